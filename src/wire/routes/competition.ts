// Routes of ranked play: the leaderboard and bot profiles, and the events (matches, gauntlets,
// round-robins, Swiss, SPRT) that hosts run. Part of the route catalogue (../routes.ts).
import * as Q from '../requests.js';
import * as R from '../responses.js';
import * as E from '../tournament-schemas.js';
import * as L from '../tournament-lines.js';
import { CONTENT_TYPES, json, ndjson, route } from '../route-spec.js';
import { LEADERBOARD_DEFAULT_LIMIT, LEADERBOARD_MAX_LIMIT } from '../documented-defaults.js';
import { EVENT_HOSTS_MAX } from '../../domain/tournaments.js';

const NO_PERSISTENCE = 'The server runs without persistence';

export const leaderboard = [
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

const EVENT_ID = { id: 'Event id.' };
const UNKNOWN_EVENT = 'Unknown event (code `unknown_event`).';
const NOT_INVITED = `${UNKNOWN_EVENT} Or the caller is not one of its players (code \`not_invited\`).`;

export const events = [
  route({
    operationId: 'createEvent', method: 'POST', path: '/events', auth: 'bearer', tag: 'Events',
    summary: 'Host an event: a match, gauntlet, round-robin, Swiss or SPRT played in mirror pairs.',
    description: 'House bots, and the host itself when it plays, take part at once; so does a bot whose event-hosts setting names the host (for a rated event, only when the setting accepts rated events). Every other player is invited on its account stream and answers with accept or decline. The event starts when all have accepted (or when the host starts it).',
    request: { body: E.CreateEventRequest },
    ok: { 201: json(E.EventView, 'The new event, with the commitment of its seed.') },
    errors: {
      400: 'A shape the format does not allow, an unknown or anonymous player, or more players or pairs than the server allows (code `invalid_event`).',
      403: 'Only registered bots host events.',
      429: '`too_many_events`: the host already has as many events pending or running as it may; `too_many_events_created`: the host has created as many events this hour as it may; `too_many_event_requests`: too many creations asked for from this address this hour; `too_many_invitations`: an invited bot has had as many event invitations this hour as it may receive. See Retry-After.',
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
    ok: { 200: ndjson(L.EventLine, 'The stream; the schema describes one line.') },
    errors: { 404: UNKNOWN_EVENT, 429: 'Too many spectators on this event or on the server; see Retry-After.' },
  }),
  route({
    operationId: 'getEventGames', method: 'GET', path: '/events/{id}/games', auth: 'public', tag: 'Events', params: EVENT_ID,
    summary: 'The export of an event: the event, then every finished game with its dice, moves, result and seeds.',
    description: 'Feed it to `dicechess verify-event FILE` to recompute every roll, the standings and the statistics.',
    ok: { 200: ndjson(L.EventGameLine, 'One line the event, then one line per finished game.') },
    errors: { 404: UNKNOWN_EVENT },
  }),
  route({
    operationId: 'getEventPgn', method: 'GET', path: '/events/{id}/games.pgn', auth: 'public', tag: 'Events', params: EVENT_ID,
    summary: 'The games of an event as PGN: the same games as the export, one PGN game each.',
    description: 'Every game of every finished pair (none of a pair still playing), by pair, then game. The Seven Tag Roster ' +
      'plus EventId, Pair, PairGame, GameId, TimeControl, Termination, DiceTermination, Commit, ServerSeed, ClientSeedWhite ' +
      'and ClientSeedBlack; each turn is its number, the roll as a comment (`{dice: 3 5 6}`) and its micro-moves in UCI ' +
      'notation (`--` for a pass). Sent as it is made, like the export.',
    ok: { 200: { description: 'PGN text.', contentType: CONTENT_TYPES.pgn } },
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
    summary: 'The host cancels a pending or running event: no new pair starts; running pairs play to the end and count.',
    description: 'A pending event, or a running one with no pair running, is `cancelled` at once and its seed revealed. ' +
      'With pairs running it is `cancelling` (`pairsRunning` says how many, `seed` stays null) until they end; then ' +
      'it is `cancelled` and the seed is revealed (EventEnded on its stream).',
    ok: { 200: json(E.EventView, 'The event, cancelled or cancelling.') },
    errors: { 403: 'Only the host cancels an event.', 404: UNKNOWN_EVENT, 409: 'The event is already over.' },
  }),
  route({
    operationId: 'pauseEvent', method: 'POST', path: '/events/{id}/pause', auth: 'bearer', tag: 'Events', params: EVENT_ID,
    summary: 'The host pauses a running event: no new pair starts until it resumes; running pairs play on and count.',
    description: 'The event is `paused` (an EventState line on its stream says so), and stays so across a restart.',
    ok: { 200: json(E.EventView, 'The event, paused.') },
    errors: { 403: 'Only the host pauses an event.', 404: UNKNOWN_EVENT, 409: 'The event is not running (`event_not_running`) or is over (`event_over`).' },
  }),
  route({
    operationId: 'resumeEvent', method: 'POST', path: '/events/{id}/resume', auth: 'bearer', tag: 'Events', params: EVENT_ID,
    summary: 'The host resumes a paused event: pairs start again.',
    ok: { 200: json(E.EventView, 'The event, running.') },
    errors: { 403: 'Only the host resumes an event.', 404: UNKNOWN_EVENT, 409: 'The event is not paused (`event_not_paused`) or is over (`event_over`).' },
  }),
  route({
    operationId: 'withdrawEventPlayer', method: 'POST', path: '/events/{id}/players/{team}/{name}/withdraw', auth: 'bearer', tag: 'Events',
    params: { ...EVENT_ID, team: 'Team of the player.', name: 'Name of the player.' },
    summary: 'The host withdraws a player from a running or paused event: its pairs not yet started are not played.',
    description: 'Its pairs already played count and a running one plays to the end; a Swiss pairs it no more; an event left with fewer than two players finishes, with a note.',
    ok: { 200: json(E.EventView, 'The event.') },
    errors: {
      403: 'Only the host withdraws a player.',
      404: `${UNKNOWN_EVENT} Or the bot is not one of its players (code \`not_invited\`).`,
      409: 'The event is pending (`event_not_running`) or over (`event_over`), or the player does not play in it (`not_playing`: declined, never accepted, withdrawn already).',
    },
  }),
  route({
    operationId: 'withdrawFromEvent', method: 'POST', path: '/events/{id}/withdraw', auth: 'bearer', tag: 'Events', params: EVENT_ID,
    summary: 'A player withdraws itself from a running or paused event, as the host would withdraw it.',
    ok: { 200: json(E.EventView, 'The event.') },
    errors: {
      404: NOT_INVITED,
      409: 'The event is pending (decline instead: `event_not_running`) or over (`event_over`), or the caller does not play in it (`not_playing`).',
    },
  }),
  route({
    operationId: 'setEventHosts', method: 'PUT', path: '/bot/account/event-hosts', auth: 'bearer', tag: 'Events',
    summary: `Name the hosts (at most ${EVENT_HOSTS_MAX}) whose event invitations the caller accepts without answering; replaces the list.`,
    description: 'Shown to the caller in GET /bot/account, to nobody else. Rated events are covered only with `rated: true`.',
    request: { body: E.EventHostsRequest },
    ok: { 200: json(E.EventHosts, 'The setting now in effect.') },
    errors: {
      400: `More than ${EVENT_HOSTS_MAX} hosts (code \`invalid_body\`), or a host that is not a registered bot or is named twice (code \`invalid_event_hosts\`).`,
      403: 'Anonymous or static (house) caller: registered bots only.',
    },
  }),
  route({
    operationId: 'myEvents', method: 'GET', path: '/bot/events', auth: 'bearer', tag: 'Events',
    summary: 'Events the caller hosts or is invited to, with its own answer.',
    ok: { 200: json(E.MyEventList, 'The events.') },
  }),
];
