// THE ROUTE CATALOGUE: every route of the service, its authentication, request shapes and every
// status it can answer (docs/API.md says the same for
// people). The edge routes from it; the OpenAPI document is made from it.
import * as Q from './requests.js';
import * as R from './responses.js';
import { AccountEvent, GameEvent } from './events.js';
import * as E from './event-schemas.js';
import type { Method, RouteSpec } from './route-spec.js';
import { CONTENT_TYPES, json, ndjson, noContent, route, toOpenApiPath } from './route-spec.js';
import { DEFAULT_CAPACITY, DOCUMENTED_DEFAULTS as D, LEADERBOARD_DEFAULT_LIMIT, LEADERBOARD_MAX_LIMIT, MAX_CAPACITY, thousands } from './documented-defaults.js';

export type { Auth, Method, RequestSpec, ResponseSpec, RouteSpec } from './route-spec.js';
export { CONTENT_TYPES, pathParams, toOpenApiPath, toUwsPattern } from './route-spec.js';

const GAME_ID = { id: 'Game id.' };
const CHALLENGE_ID = { id: 'Challenge id.' };
const SEEK_ID = { id: 'Seek id.' };
const GUEST_SEAT = 'The guest’s seat; its seatToken is the Bearer for the game routes.';
const GUEST_BUDGET = 'Too many guest requests from this address; see Retry-After.';
const REGISTERED_ONLY = 'Anonymous or static (house) caller: registered bots only.';
const WEBHOOKS_OFF = 'Webhooks are disabled on this server (checked before authentication).';
const NO_PERSISTENCE = 'The server runs without persistence';
const TOO_MANY_GAMES = `\`too_many_games\`: a player of the new game already sits in as many live games as it may (${D.liveGamesPerIdentity.anonymous} anonymous, ${D.liveGamesPerIdentity.registered} registered, ${D.liveGamesPerIdentity.guest} guest by default; house bots have no cap); nothing was created. See Retry-After.`;
const SERVER_FULL = `\`server_full\`: the server holds as many live games as it may (${thousands(D.maxLiveGames)} by default); nothing was created. See Retry-After.`;

const LADDER_CHANGES = '`too_many_ladder_changes`: more ladder joins and leaves than the bot’s budget (60 per hour by default); see Retry-After.';

const identity = [
  route({
    operationId: 'mintAnonymous', method: 'POST', path: '/bot/anon', auth: 'public', tag: 'Identity',
    summary: 'Mint an anonymous token (ephemeral, unranked, about 24 hours).',
    request: { query: Q.AnonQuery },
    ok: { 201: json(R.TokenResponse, 'A new anonymous identity; the token is shown only here.') },
    errors: { 429: `More than ${D.anonMintsPerHour} mints per hour from this address; see Retry-After.` },
  }),
  route({
    operationId: 'register', method: 'POST', path: '/bot/register', auth: 'public', tag: 'Identity',
    summary: 'Register a durable (team, name) identity.',
    request: { body: Q.RegisterRequest },
    ok: { 201: json(R.TokenResponse, 'The registered identity; the token is shown only here.') },
    errors: {
      400: 'Invalid slug, or the reserved team `anon` or `house`.',
      409: 'This team and name are already taken.',
      429: `More than ${D.registrationsPerHour} successful registrations per hour from this address; see Retry-After.`,
    },
  }),
  route({
    operationId: 'rotateToken', method: 'POST', path: '/bot/token', auth: 'bearer', tag: 'Identity',
    summary: 'Rotate the token; the old one stops authenticating at once.',
    ok: { 200: json(R.RotatedToken, 'The replacement token.') },
    errors: { 403: 'Anonymous callers re-mint; static callers rotate through the server configuration.' },
  }),
  route({
    operationId: 'getAccount', method: 'GET', path: '/bot/account', auth: 'bearer', tag: 'Identity',
    summary: 'Who am I.',
    ok: { 200: json(R.Account, 'The calling identity.') },
  }),
  route({
    operationId: 'joinLadder', method: 'POST', path: '/bot/ladder/join', auth: 'bearer', tag: 'Identity',
    summary: 'Join the rating ladder; the server then pairs the bot on its own.',
    ok: { 200: json(R.LadderState, 'Membership and rating.') },
    errors: { 403: REGISTERED_ONLY, 429: LADDER_CHANGES },
  }),
  route({
    operationId: 'leaveLadder', method: 'POST', path: '/bot/ladder/leave', auth: 'bearer', tag: 'Identity',
    summary: 'Leave the rating ladder; the rating is frozen and the bot stays listed.',
    ok: { 200: json(R.LadderState, 'Membership and rating.') },
    errors: { 403: REGISTERED_ONLY, 429: LADDER_CHANGES },
  }),
  route({
    operationId: 'getCapacity', method: 'GET', path: '/bot/capacity', auth: 'bearer', tag: 'Identity',
    summary: 'How many ladder games the bot plays at once, and how many it is in now.',
    ok: { 200: json(R.Capacity, 'Capacity and live ladder games.') },
    errors: { 403: REGISTERED_ONLY },
  }),
  route({
    operationId: 'setCapacity', method: 'POST', path: '/bot/capacity', auth: 'bearer', tag: 'Identity',
    summary: `Set how many ladder games the server may seat the bot in at once (1 to ${MAX_CAPACITY}, ${DEFAULT_CAPACITY} by default; a mirror pair counts 2).`,
    request: { body: Q.CapacityRequest },
    ok: { 200: json(R.Capacity, 'The new capacity and live ladder games.') },
    errors: { 400: `Capacity missing, not a whole number, or outside 1..${MAX_CAPACITY}.`, 403: REGISTERED_ONLY },
  }),
];

const challenges = [
  route({
    operationId: 'createChallenge', method: 'POST', path: '/bot/challenge', auth: 'bearer', tag: 'Challenges',
    summary: 'Challenge a bot (Unlimited when no time control is given).',
    request: { body: Q.CreateChallengeRequest },
    ok: { 201: json(R.Challenge, 'The pending challenge; the target’s account stream gets ChallengeReceived.') },
    errors: {
      400: 'Challenging yourself.',
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
    summary: 'Accept a challenge addressed to the caller; the challenger plays White.',
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
    summary: 'Decline (target) or cancel (challenger) a pending challenge.',
    ok: { 200: json(R.Empty, 'Declined; the other side gets ChallengeDeclined.') },
    errors: { 403: 'The caller is neither party to the challenge.', 404: 'No such pending challenge.' },
  }),
];

const seeks = [
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

const lobby = [
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

const NOT_SEATED = 'The caller is not seated in this game.';

const gameplay = [
  route({
    operationId: 'submitSeed', method: 'POST', path: '/bot/game/{id}/seed', auth: 'seatOrBearer',
    tag: 'Gameplay', params: GAME_ID,
    summary: 'Contribute a client dice seed, once per seat, before the opening roll.',
    description:
      'Fire and forget: a duplicate, late or malformed seed is ignored with 202 ' +
      '(a malformed one may surface as a Rejected event).',
    request: { body: Q.SeedRequest, lenient: true },
    ok: { 202: json(R.Empty, 'Received.') },
    errors: { 403: NOT_SEATED, 404: 'Unknown game.' },
  }),
  route({
    operationId: 'submitMove', method: 'POST', path: '/bot/game/{id}/move', auth: 'seatOrBearer',
    tag: 'Gameplay', params: GAME_ID,
    summary: 'Play a turn: one UCI micro-move per die, a root-to-leaf path of the legal-move tree.',
    description: 'The verdict is synchronous; without one within a few seconds the answer is 202 and the stream tells.',
    request: { body: Q.MoveRequest },
    ok: {
      200: json(R.MoveApplied, 'Applied; `version` is that of the TurnPlayed event.'),
      202: json(R.Empty, 'No verdict in time; watch the game stream.'),
      409: json(R.MoveRefused, 'Refused: `not your turn`, `illegal turn` or `game is over`.'),
    },
    errors: {
      403: NOT_SEATED,
      404: 'Unknown game.',
      429: 'The game has too many commands waiting (a flood of requests); nothing was played. Retry after Retry-After.',
    },
  }),
  route({
    operationId: 'resign', method: 'POST', path: '/bot/game/{id}/resign', auth: 'seatOrBearer',
    tag: 'Gameplay', params: GAME_ID,
    summary: 'Resign; ignored (still 202) when the game has already ended.',
    ok: { 202: json(R.Empty, 'Received.') },
    errors: { 403: NOT_SEATED, 404: 'Unknown game.' },
  }),
  route({
    operationId: 'listMyGames', method: 'GET', path: '/bot/games', auth: 'bearer', tag: 'Gameplay',
    summary: 'Every live game the caller is seated in (the polling path, and recovery after a restart).',
    ok: { 200: json(R.MyGameList, 'Live games of the caller.') },
  }),
];

const discovery = [
  route({
    operationId: 'listGames', method: 'GET', path: '/games', auth: 'public', tag: 'Discovery',
    summary: 'Live games, by version descending, at most 50; `total` is the real count.',
    ok: { 200: json(R.PublicGameList, 'Live games.') },
  }),
  route({
    operationId: 'getGame', method: 'GET', path: '/games/{id}', auth: 'public', tag: 'Discovery',
    params: GAME_ID,
    summary: 'Snapshot of a live or finished game, with the dice reveal once it is public.',
    ok: { 200: json(R.GameState, 'The game.') },
    errors: { 404: 'Unknown game.' },
  }),
  route({
    operationId: 'getLegalMoves', method: 'GET', path: '/games/{id}/moves', auth: 'public', tag: 'Discovery',
    params: GAME_ID,
    summary: 'The full legal-move tree of the pending roll, never capped.',
    ok: { 200: json(R.LegalMovesResponse, 'The tree, tied to its roll by version and dfen.') },
    errors: { 404: 'Unknown game.', 503: 'The tree could not be had from the game\'s shard just now (`tree_unavailable`); retry after `Retry-After`.' },
  }),
  route({
    operationId: 'getGameHistory', method: 'GET', path: '/games/{id}/history', auth: 'public', tag: 'Discovery',
    params: GAME_ID,
    summary: 'Transcript of a live or finished game.',
    ok: { 200: json(R.GameHistory, 'Every completed turn, with the reveal once public.') },
    errors: { 404: 'Unknown game.' },
  }),
];

const leaderboard = [
  route({
    operationId: 'getLeaderboard', method: 'GET', path: '/leaderboard', auth: 'public', tag: 'Leaderboard',
    summary: `Registered bots with deviation at most 110, best first, a page at a time (${LEADERBOARD_DEFAULT_LIMIT} rows by default); the provisional ones on the ladder apart, paged the same way.`,
    request: { query: Q.LeaderboardQuery },
    ok: { 200: json(R.Leaderboard, 'The leaderboard.') },
    errors: { 400: `A paging parameter is not a whole number, \`limit\` is outside 1..${LEADERBOARD_MAX_LIMIT} or \`provisionalLimit\` outside 0..${LEADERBOARD_MAX_LIMIT}.`, 404: `${NO_PERSISTENCE}.` },
  }),
  route({
    operationId: 'getBotProfile', method: 'GET', path: '/bots/{team}/{name}', auth: 'public', tag: 'Leaderboard',
    params: { team: 'Team slug.', name: 'Bot name.' },
    summary: 'Public profile of a registered bot: up to 20 recent games and its rating history.',
    ok: { 200: json(R.BotProfile, 'The profile.') },
    errors: { 404: `${NO_PERSISTENCE}, or no registered bot with that team and name.` },
  }),
];

const TOO_MANY_STREAMS = `\`too_many_streams\`: the identity already holds as many streams open as it may (${D.streamsPerIdentity} by default, account and game streams together); the open ones keep working. See Retry-After.`;

const streams = [
  route({
    operationId: 'streamAccountEvents', method: 'GET', path: '/bot/stream/event', auth: 'bearer', tag: 'Streams',
    summary: 'Long-lived ndjson: challenges and game starts for the caller (see the AsyncAPI document).',
    description: 'One event per line; blank lines are keep-alives. Live only: nothing is replayed.',
    ok: { 200: ndjson(AccountEvent, 'The stream; the schema describes one line.') },
    errors: { 429: TOO_MANY_STREAMS },
  }),
  route({
    operationId: 'streamGameEvents', method: 'GET', path: '/bot/game/stream/{id}', auth: 'seatOrBearer',
    tag: 'Streams', params: GAME_ID,
    summary: 'Long-lived ndjson of one game, opening with a Snapshot (see the AsyncAPI document).',
    description: 'Closes after GameEnded. Blank lines are keep-alives.',
    ok: { 200: ndjson(GameEvent, 'The stream; the schema describes one line.') },
    errors: { 403: 'A guest’s seat token names another game (any bot token may watch any game).', 404: 'Unknown game.', 429: TOO_MANY_STREAMS },
  }),
  route({
    operationId: 'streamPublicGameEvents', method: 'GET', path: '/games/{id}/stream', auth: 'public',
    tag: 'Streams', params: GAME_ID,
    summary: 'The same ndjson game stream without a token, for spectators (see the AsyncAPI document).',
    description: 'Opens with a Snapshot, closes after GameEnded; public faces only. Blank lines are keep-alives.',
    ok: { 200: ndjson(GameEvent, 'The stream; the schema describes one line.') },
    errors: { 404: 'Unknown game.', 429: 'Too many spectators on this game, from this address (20 by default) or on the server; see Retry-After.' },
  }),
];

const webhooks = [
  route({
    operationId: 'registerWebhook', method: 'POST', path: '/bot/webhook', auth: 'bearer', tag: 'Webhooks',
    summary: 'Register or replace the webhook after a verification handshake.',
    description:
      'The URL must be https and every address its host resolves to public (not loopback, private, ' +
      'link-local, CGNAT, reserved, multicast, or their IPv4-mapped and NAT64 forms). The server then POSTs ' +
      'a signed `verification` delivery (see the `webhooks` section) and waits, at most the answer cap, for ' +
      '200 `{"nonce": <same>}`. Registering again replaces URL and secret; delivery statistics start over.',
    request: { body: Q.WebhookRequest },
    ok: { 201: json(R.WebhookCreated, 'Active; the secret is shown only here.') },
    errors: {
      403: REGISTERED_ONLY,
      422: 'URL policy violation (code `webhook_url_refused`) or failed handshake (`webhook_handshake_failed`); `detail` says which rule or what the handshake got.',
      429: `More than ${D.webhookRegistrationsPerHour} registrations per hour from this address; see Retry-After.`,
      503: WEBHOOKS_OFF,
    },
  }),
  route({
    operationId: 'getWebhook', method: 'GET', path: '/bot/webhook', auth: 'bearer', tag: 'Webhooks',
    summary: 'The active webhook and its delivery statistics.',
    ok: { 200: json(R.WebhookInfo, 'The webhook.') },
    errors: { 403: REGISTERED_ONLY, 404: 'No webhook registered (code `no_webhook`).', 503: WEBHOOKS_OFF },
  }),
  route({
    operationId: 'deleteWebhook', method: 'DELETE', path: '/bot/webhook', auth: 'bearer', tag: 'Webhooks',
    summary: 'Stop deliveries from the next turn on; games keep running.',
    ok: { 204: noContent('Removed.') },
    errors: { 403: REGISTERED_ONLY, 404: 'No webhook registered (code `no_webhook`).', 503: WEBHOOKS_OFF },
  }),
];

const EVENT_ID = { id: 'Event id.' };
const UNKNOWN_EVENT = 'Unknown event (code `unknown_event`).';
const NOT_INVITED = `${UNKNOWN_EVENT} Or the caller is not one of its players (code \`not_invited\`).`;

const events = [
  route({
    operationId: 'createEvent', method: 'POST', path: '/events', auth: 'bearer', tag: 'Events',
    summary: 'Host an event: a match, gauntlet, round-robin, Swiss or SPRT played in mirror pairs.',
    description: 'House bots and bots of the host’s team take part at once; every other player is invited on its account stream and answers with accept or decline. The event starts when all have accepted (or when the host starts it).',
    request: { body: E.CreateEventRequest },
    ok: { 201: json(E.EventView, 'The new event, with the commitment of its seed.') },
    errors: {
      400: 'A shape the format does not allow, an unknown or anonymous player, or more players or pairs than the server allows (code `invalid_event`).',
      403: 'Only registered bots host events.',
      429: '`too_many_events`: the host already has as many events pending or running as it may; see Retry-After.',
    },
  }),
  route({
    operationId: 'listEvents', method: 'GET', path: '/events', auth: 'public', tag: 'Events',
    summary: 'The newest events, newest first.',
    ok: { 200: json(E.EventList, 'The events.') },
  }),
  route({
    operationId: 'getEvent', method: 'GET', path: '/events/{id}', auth: 'public', tag: 'Events', params: EVENT_ID,
    summary: 'An event: state, players, standings, pair statistics and, for an SPRT, its LLR and verdict.',
    ok: { 200: json(E.EventView, 'The event.') },
    errors: { 404: UNKNOWN_EVENT },
  }),
  route({
    operationId: 'streamEvent', method: 'GET', path: '/events/{id}/stream', auth: 'public', tag: 'Events', params: EVENT_ID,
    summary: 'Long-lived ndjson of an event: the event as it stands, each pair started and finished, then the end.',
    description: 'Closes after EventEnded. Blank lines are keep-alives.',
    ok: { 200: ndjson(E.EventLine, 'The stream; the schema describes one line.') },
    errors: { 404: UNKNOWN_EVENT, 429: 'Too many spectators on this event or on the server; see Retry-After.' },
  }),
  route({
    operationId: 'getEventGames', method: 'GET', path: '/events/{id}/games', auth: 'public', tag: 'Events', params: EVENT_ID,
    summary: 'The export of an event: the event, then every finished game with its dice, moves, result and seeds.',
    description: 'Feed it to `dicechess verify-event FILE` to recompute every roll, the standings and the statistics.',
    ok: { 200: ndjson(E.EventGameLine, 'One line the event, then one line per finished game.') },
    errors: { 404: UNKNOWN_EVENT },
  }),
  route({
    operationId: 'acceptEvent', method: 'POST', path: '/events/{id}/accept', auth: 'bearer', tag: 'Events', params: EVENT_ID,
    summary: 'Take part in an event the caller is invited to.',
    ok: { 200: json(E.EventView, 'The event.') },
    errors: { 404: NOT_INVITED, 409: 'The event has already started or ended.' },
  }),
  route({
    operationId: 'declineEvent', method: 'POST', path: '/events/{id}/decline', auth: 'bearer', tag: 'Events', params: EVENT_ID,
    summary: 'Decline an invitation to an event.',
    ok: { 200: json(E.EventView, 'The event.') },
    errors: { 404: NOT_INVITED, 409: 'The event has already started or ended.' },
  }),
  route({
    operationId: 'startEvent', method: 'POST', path: '/events/{id}/start', auth: 'bearer', tag: 'Events', params: EVENT_ID,
    summary: 'The host starts a pending event with the players who have accepted.',
    ok: { 200: json(E.EventView, 'The event, now running.') },
    errors: { 403: 'Only the host starts an event.', 404: UNKNOWN_EVENT, 409: 'Not pending, or too few players have accepted for its format.' },
  }),
  route({
    operationId: 'cancelEvent', method: 'POST', path: '/events/{id}/cancel', auth: 'bearer', tag: 'Events', params: EVENT_ID,
    summary: 'The host cancels a pending or running event; its seed is revealed.',
    ok: { 200: json(E.EventView, 'The event, cancelled.') },
    errors: { 403: 'Only the host cancels an event.', 404: UNKNOWN_EVENT, 409: 'The event is already over.' },
  }),
  route({
    operationId: 'myEvents', method: 'GET', path: '/bot/events', auth: 'bearer', tag: 'Events',
    summary: 'Events the caller hosts or is invited to, with its own answer.',
    ok: { 200: json(E.MyEventList, 'The events.') },
  }),
];

const operations = [
  route({
    operationId: 'health', method: 'GET', path: '/health', auth: 'public', tag: 'Operations',
    summary: 'Liveness and server version.',
    ok: { 200: json(R.Health, 'Alive.') },
  }),
  route({
    operationId: 'metrics', method: 'GET', path: '/metrics', auth: 'public', tag: 'Operations',
    summary: 'Prometheus metrics.',
    ok: { 200: { description: 'Prometheus text exposition format.', contentType: CONTENT_TYPES.prometheus } },
  }),
  route({
    operationId: 'getOpenApi', method: 'GET', path: '/openapi.json', auth: 'public', tag: 'Operations',
    summary: 'This document: OpenAPI 3.1 of the REST routes.',
    ok: { 200: json(R.JsonDocument, 'The OpenAPI document.') },
  }),
  route({
    operationId: 'getAsyncApi', method: 'GET', path: '/asyncapi.json', auth: 'public', tag: 'Operations',
    summary: 'AsyncAPI 3 of the ndjson streams.',
    ok: { 200: json(R.JsonDocument, 'The AsyncAPI document.') },
  }),
];

/**
 * Every route as the catalogue wrote it: its operationId, path, auth and request schemas keep their
 * literal types, so the edge derives what each handler receives from here (src/edge/deps.ts).
 */
export type CatalogueRoute =
  | (typeof identity)[number] | (typeof challenges)[number] | (typeof seeks)[number] | (typeof lobby)[number]
  | (typeof gameplay)[number] | (typeof discovery)[number] | (typeof leaderboard)[number]
  | (typeof streams)[number] | (typeof webhooks)[number] | (typeof events)[number] | (typeof operations)[number];

/** Every route of the service, grouped as docs/API.md groups them. */
export const ROUTES: readonly RouteSpec[] = Object.freeze([
  ...identity, ...challenges, ...seeks, ...lobby, ...gameplay, ...discovery, ...leaderboard, ...streams,
  ...webhooks, ...events, ...operations,
]);

/** Tags in document order, with a line each. */
export const TAGS: readonly { name: string; description: string }[] = [
  { name: 'Identity', description: 'Tokens, accounts and ladder membership.' },
  { name: 'Challenges', description: 'Bot-to-bot challenges.' },
  { name: 'Seeks', description: 'Public offers made and taken by bots.' },
  { name: 'Lobby', description: 'The public lobby shared with human guests; seeks held by their secret.' },
  { name: 'Gameplay', description: 'Seeds, turns and resignations.' },
  { name: 'Discovery', description: 'Public reads of games.' },
  { name: 'Leaderboard', description: 'Ratings; only on a server with persistence.' },
  { name: 'Streams', description: 'Long-lived ndjson event streams.' },
  { name: 'Webhooks', description: 'Turn deliveries by HTTPS, registered bots only.' },
  { name: 'Events', description: 'Matches, gauntlets, round-robins, Swiss and SPRT tests for tournament hosts.' },
  { name: 'Operations', description: 'Health, metrics and the machine-readable contract.' },
];

const byKey = new Map(ROUTES.map((r) => [`${r.method} ${r.path}`, r]));

/** The route for a method and a template (OpenAPI `{id}` or uWS `:id` syntax), or undefined. */
export function findRoute(method: string, pattern: string): RouteSpec | undefined {
  return byKey.get(`${method.toUpperCase()} ${toOpenApiPath(pattern)}`);
}

/** Methods a path template answers (for the `Allow` header of a 405). */
export function allowedMethods(pattern: string): Method[] {
  const path = toOpenApiPath(pattern);
  return ROUTES.filter((r) => r.path === path).map((r) => r.method);
}
