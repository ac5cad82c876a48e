// Routes that make games: bot-to-bot challenges, the seeks bots post and take, and the public lobby
// shared with human guests. Part of the route catalogue (../routes.ts).
import * as Q from '../requests.js';
import * as R from '../responses.js';
import { json, noContent, route } from '../route-spec.js';
import { DOCUMENTED_DEFAULTS as D, thousands } from '../documented-defaults.js';

const CHALLENGE_ID = { id: 'Challenge id.' };
const SEEK_ID = { id: 'Seek id.' };
const GUEST_SEAT = 'The guest’s seat; its seatToken is the Bearer for the game routes.';
const GUEST_BUDGET = 'Too many guest requests from this address; see Retry-After.';
const TOO_MANY_GAMES = `\`too_many_games\`: a player of the new game already sits in as many live games as it may (${D.liveGamesPerIdentity.anonymous} anonymous, ${D.liveGamesPerIdentity.registered} registered, ${D.liveGamesPerIdentity.guest} guest by default; house bots have no cap); nothing was created. See Retry-After.`;
const SERVER_FULL = `\`server_full\`: the server holds as many live games as it may (${thousands(D.maxLiveGames)} by default); nothing was created. See Retry-After.`;

export const challenges = [
  route({
    operationId: 'createChallenge', method: 'POST', path: '/bot/challenge', auth: 'bearer', tag: 'Challenges',
    summary: 'Challenge a bot (Unlimited when no time control is given).',
    request: { body: Q.CreateChallengeRequest },
    ok: { 201: json(R.Challenge, 'The pending challenge; the target’s account stream gets ChallengeReceived.') },
    errors: {
      400: 'Challenging yourself, or a field out of range (`timeControl`, `color`).',
      404: 'No bot with that team and name.',
      429: `\`too_many_challenges\`: too many pending challenges (${D.maxPendingPerChallenger}); \`too_many_challenge_requests\`: more than ${D.challengesPerHour} challenges an hour from this address; or ${TOO_MANY_GAMES} (the challenger is checked here; a house bot target accepts at once, so the game is checked here too). See Retry-After.`,
      503: SERVER_FULL,
    },
  }),
  route({
    operationId: 'listChallenges', method: 'GET', path: '/bot/challenges', auth: 'bearer', tag: 'Challenges',
    summary: 'Pending challenges to and from the caller (the polling path).',
    ok: { 200: json(R.ChallengeList, 'Both directions.') },
  }),
  route({
    operationId: 'acceptChallenge', method: 'POST', path: '/bot/challenge/{id}/accept', auth: 'bearer',
    tag: 'Challenges', params: CHALLENGE_ID,
    summary: 'Accept a challenge addressed to the caller; the challenger plays the colour it asked for (White by default).',
    ok: { 201: json(R.GameCreated, 'The new game.') },
    errors: {
      403: 'The challenge is addressed to someone else.',
      404: 'No such pending challenge.',
      429: `${TOO_MANY_GAMES} The challenge stays pending.`,
      503: `${SERVER_FULL} The challenge stays pending.`,
    },
  }),
  route({
    operationId: 'declineChallenge', method: 'POST', path: '/bot/challenge/{id}/decline', auth: 'bearer',
    tag: 'Challenges', params: CHALLENGE_ID,
    summary: 'Decline (target) or cancel (challenger) a pending challenge, with an optional reason.',
    request: { body: Q.DeclineChallengeRequest, bodyRequired: false },
    ok: { 200: json(R.Empty, 'Declined; the other side gets ChallengeDeclined (with the reason, when one was given).') },
    errors: { 400: 'A reason that is not one of the listed ones.', 403: 'The caller is neither party to the challenge.', 404: 'No such pending challenge.' },
  }),
];

export const seeks = [
  route({
    operationId: 'createSeek', method: 'POST', path: '/bot/seeks', auth: 'bearer', tag: 'Seeks',
    summary: 'Post a public offer (Fischer 600+10 when no time control is given).',
    description: 'Keep it alive by polling GET /lobby/seeks/{id}?secret= at least every 2 minutes.',
    request: { body: Q.SeekRequest, bodyRequired: false },
    ok: { 201: json(R.SeekCreated, 'The open seek and its capability secret.') },
    errors: {
      429: `\`too_many_seeks\`: the caller already has ${D.maxOpenSeeksPerCaller} open seeks; or ${TOO_MANY_GAMES}`,
      503: SERVER_FULL,
    },
  }),
  route({
    operationId: 'acceptSeek', method: 'POST', path: '/bot/seeks/{id}/accept', auth: 'bearer', tag: 'Seeks',
    params: SEEK_ID,
    summary: 'Accept an open seek; colours are random (read the seat from GET /bot/games).',
    ok: { 201: json(R.GameCreated, 'The new game.') },
    errors: {
      400: 'The seek is the caller’s own.',
      404: 'No such open seek.',
      409: 'Someone else claimed the seek first.',
      429: `${TOO_MANY_GAMES} The seek stays open.`,
      503: `${SERVER_FULL} The seek stays open.`,
    },
  }),
];

const LOBBY_POLLS = '`too_many_polls`: more lobby reads (list and seek polls) from this address than its budget per minute (600 by default); see Retry-After.';
const GUEST_CLOCK = '`clock_too_long`: a guest’s clock is at most 3600 s initial, 60 s increment, 600 s per move by default.';

export const lobby = [
  route({
    operationId: 'listLobbySeeks', method: 'GET', path: '/lobby/seeks', auth: 'public', tag: 'Lobby',
    summary: 'Open seeks of bots and human guests, oldest first, a page at a time.',
    request: { query: Q.LobbySeeksQuery },
    ok: { 200: json(R.LobbySeekList, 'The lobby.') },
    errors: { 400: '`limit` or `after` is not a whole number.', 429: LOBBY_POLLS },
  }),
  route({
    operationId: 'createGuestSeek', method: 'POST', path: '/lobby/seeks', auth: 'public', tag: 'Lobby',
    summary: 'A human guest posts an offer (lives 30 seconds without a poll).',
    request: { body: Q.GuestSeekRequest, bodyRequired: false },
    ok: { 201: json(R.GuestSeekCreated, 'The open guest seek.') },
    errors: { 400: GUEST_CLOCK, 429: `${GUEST_BUDGET} Or \`too_many_seeks\`: this address already holds 3 open guest seeks (by default).` },
  }),
  route({
    operationId: 'pollSeek', method: 'GET', path: '/lobby/seeks/{id}', auth: 'public', tag: 'Lobby',
    params: SEEK_ID,
    summary: 'Poll a seek with its secret; keeps an open seek alive and reports a match.',
    request: { query: Q.SecretQuery },
    ok: { 200: json(R.SeekPoll, 'Open, or matched (pollable for 10 minutes after the match).') },
    errors: { 400: 'No `secret`.', 404: 'Unknown seek or wrong secret.', 429: LOBBY_POLLS },
  }),
  route({
    operationId: 'cancelSeek', method: 'DELETE', path: '/lobby/seeks/{id}', auth: 'public', tag: 'Lobby',
    params: SEEK_ID,
    summary: 'Cancel a seek with its secret.',
    request: { query: Q.SecretQuery },
    ok: { 204: noContent('Cancelled.') },
    errors: {
      400: 'No `secret`.',
      404: 'Unknown seek or wrong secret.',
      409: 'The seek is no longer open.',
    },
  }),
  route({
    operationId: 'guestAcceptSeek', method: 'POST', path: '/lobby/seeks/{id}/accept', auth: 'public',
    tag: 'Lobby', params: SEEK_ID,
    summary: 'A human guest accepts an open seek and receives a seat token.',
    request: { body: Q.GuestAcceptRequest, bodyRequired: false },
    ok: { 201: json(R.GuestAccepted, GUEST_SEAT) },
    errors: {
      400: 'The seek is the guest’s own.',
      404: 'No such open seek.',
      409: 'Someone else claimed the seek first.',
      429: `Too many guest requests from this address; or ${TOO_MANY_GAMES} Or \`too_many_games\`: the accepting guest’s address, or a guest owner’s, already plays 4 live guest games (by default). The seek stays open.`,
      503: `${SERVER_FULL} The seek stays open.`,
    },
  }),
  route({
    operationId: 'guestPlayHouse', method: 'POST', path: '/lobby/house/{name}', auth: 'public', tag: 'Lobby',
    params: { name: 'A built-in house bot: `random` or `greedy`.' },
    summary: 'A human guest starts a game against a built-in house bot at once (colours are random).',
    description: 'Unrated. Unlimited when no time control is given. Counts against the same per-address guest budget as the lobby routes.',
    request: { body: Q.GuestHouseRequest, bodyRequired: false },
    ok: { 201: json(R.GuestHouseGame, GUEST_SEAT) },
    errors: {
      400: GUEST_CLOCK,
      404: 'No built-in house bot with this name.',
      429: `Too many guest requests from this address; or ${TOO_MANY_GAMES} Or \`too_many_games\`: this address already plays 4 live guest games (by default).`,
      503: SERVER_FULL,
    },
  }),
];
