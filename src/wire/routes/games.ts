// Routes of a game once it exists: the seated player's seed, moves and resignation, the public reads
// of games, and the ndjson streams. Part of the route catalogue (../routes.ts).
import * as Q from '../requests.js';
import * as R from '../responses.js';
import { AccountEvent, GameEvent } from '../events.js';
import { json, ndjson, route } from '../route-spec.js';
import { DOCUMENTED_DEFAULTS as D } from '../documented-defaults.js';

const GAME_ID = { id: 'Game id.' };

const NOT_SEATED = 'The caller is not seated in this game.';

/** A cluster node's answer for a live game it cannot reach yet (see bind.ts). */
const UNAVAILABLE = 'Cluster mode: the game is live but its shard is between two nodes just now (`game_unavailable`); retry after `Retry-After`.';

export const gameplay = [
  route({
    operationId: 'submitSeed', method: 'POST', path: '/bot/game/{id}/seed', auth: 'seatOrBearer',
    game: 'state',
    tag: 'Gameplay', params: GAME_ID,
    summary: 'Contribute a client dice seed, once per seat, before the opening roll.',
    description:
      'Fire and forget: a duplicate, late or malformed seed is ignored with 202 ' +
      '(a malformed one may surface as a Rejected event).',
    request: { body: Q.SeedRequest, lenient: true },
    ok: { 202: json(R.Empty, 'Received.') },
    errors: { 403: NOT_SEATED, 404: 'Unknown game.', 503: UNAVAILABLE },
  }),
  route({
    operationId: 'submitMove', method: 'POST', path: '/bot/game/{id}/move', auth: 'seatOrBearer',
    game: 'state',
    tag: 'Gameplay', params: GAME_ID,
    summary: 'Play a turn: one UCI micro-move per die, a root-to-leaf path of the legal-move tree.',
    description: 'The verdict is synchronous; without one within a few seconds the answer is 202 and the stream tells.',
    request: { body: Q.MoveRequest },
    ok: {
      200: json(R.MoveApplied, 'Applied; `version` is that of the TurnPlayed event.'),
      202: { ...json(R.Empty, 'No verdict in time; watch the game stream.'), pending: true as const },
      409: json(R.MoveRefused, 'Refused: `not your turn`, `illegal turn` or `game is over`.'),
    },
    errors: {
      403: NOT_SEATED,
      404: 'Unknown game.',
      429: 'The game has too many commands waiting (a flood of requests); nothing was played. Retry after Retry-After.',
      503: UNAVAILABLE,
    },
  }),
  route({
    operationId: 'resign', method: 'POST', path: '/bot/game/{id}/resign', auth: 'seatOrBearer',
    game: 'state', command: 'resign',
    tag: 'Gameplay', params: GAME_ID,
    summary: 'Resign; ignored (still 202) when the game has already ended.',
    ok: { 202: json(R.Empty, 'Received.') },
    errors: { 403: NOT_SEATED, 404: 'Unknown game.', 503: UNAVAILABLE },
  }),
  route({
    operationId: 'listMyGames', method: 'GET', path: '/bot/games', auth: 'bearer', tag: 'Gameplay',
    summary: 'Every live game the caller is seated in (the polling path, and recovery after a restart).',
    ok: { 200: json(R.MyGameList, 'Live games of the caller.') },
  }),
];

export const discovery = [
  route({
    operationId: 'listGames', method: 'GET', path: '/games', auth: 'public', tag: 'Discovery',
    summary: 'Live games, by version descending, at most 50; `total` is the real count.',
    ok: { 200: json(R.PublicGameList, 'Live games.') },
  }),
  route({
    operationId: 'getGame', method: 'GET', path: '/games/{id}', auth: 'public', tag: 'Discovery',
    game: 'state',
    params: GAME_ID,
    summary: 'Snapshot of a live or finished game, with the dice reveal once it is public.',
    ok: { 200: json(R.GameState, 'The game.') },
    errors: { 404: 'Unknown game.', 503: UNAVAILABLE },
  }),
  route({
    operationId: 'getLegalMoves', method: 'GET', path: '/games/{id}/moves', auth: 'public', tag: 'Discovery',
    game: 'tree',
    params: GAME_ID,
    summary: 'The full legal-move tree of the pending roll, never capped.',
    ok: { 200: json(R.LegalMovesResponse, 'The tree, tied to its roll by version and dfen.') },
    errors: { 404: 'Unknown game.', 503: `The tree could not be had from the game's shard just now (\`tree_unavailable\`); retry after \`Retry-After\`. ${UNAVAILABLE}` },
  }),
  route({
    operationId: 'getGameHistory', method: 'GET', path: '/games/{id}/history', auth: 'public', tag: 'Discovery',
    game: 'state',
    params: GAME_ID,
    summary: 'Transcript of a live or finished game.',
    ok: { 200: json(R.GameHistory, 'Every completed turn, with the reveal once public.') },
    errors: { 404: 'Unknown game.', 503: UNAVAILABLE },
  }),
];

const TOO_MANY_STREAMS = `\`too_many_streams\`: the identity already holds as many streams open as it may (${D.streamsPerIdentity} by default, account and game streams together); the open ones keep working. See Retry-After.`;

export const streams = [
  route({
    operationId: 'streamAccountEvents', method: 'GET', path: '/bot/stream/event', auth: 'bearer', tag: 'Streams',
    summary: 'Long-lived ndjson: challenges and game starts for the caller (see the AsyncAPI document).',
    description: 'One event per line; blank lines are keep-alives. Live only: nothing is replayed.',
    ok: { 200: ndjson(AccountEvent, 'The stream; the schema describes one line.') },
    errors: { 429: TOO_MANY_STREAMS },
  }),
  route({
    operationId: 'streamGameEvents', method: 'GET', path: '/bot/game/stream/{id}', auth: 'seatOrBearer',
    game: 'state',
    tag: 'Streams', params: GAME_ID,
    summary: 'Long-lived ndjson of one game, opening with a Snapshot (see the AsyncAPI document).',
    description: 'Closes after GameEnded. Blank lines are keep-alives.',
    ok: { 200: ndjson(GameEvent, 'The stream; the schema describes one line.') },
    errors: { 403: 'A guest’s seat token names another game (any bot token may watch any game).', 404: 'Unknown game.', 429: TOO_MANY_STREAMS, 503: UNAVAILABLE },
  }),
  route({
    operationId: 'streamPublicGameEvents', method: 'GET', path: '/games/{id}/stream', auth: 'public',
    game: 'state',
    tag: 'Streams', params: GAME_ID,
    summary: 'The same ndjson game stream without a token, for spectators (see the AsyncAPI document).',
    description: 'Opens with a Snapshot, closes after GameEnded; public faces only. Blank lines are keep-alives.',
    ok: { 200: ndjson(GameEvent, 'The stream; the schema describes one line.') },
    errors: { 404: 'Unknown game.', 429: 'Too many spectators on this game, from this address (20 by default) or on the server; see Retry-After.', 503: UNAVAILABLE },
  }),
];
