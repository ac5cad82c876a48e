// Playing and watching games: seed, move, resign, the caller's games, and the public reads.
import type { Principal, Seat } from '../../domain/types.js';
import type { GameHandle } from '../../game/types.js';
import { classifySeed } from '../../wire/requests.js';
import { myGame, publicGameList } from '../../wire/encode.js';
import type { EdgeDeps, Handlers } from '../deps.js';
import type { EncodedBodies, EncodedBody } from '../encoded-bodies.js';
import { JSON_TYPE, json, jsonBytes, problem, tooManyRequests, type Reply } from '../reply.js';
import { pickEncoding } from '../web.js';

import { GAME_OVER } from '../../domain/rules.js';
const unknownGame = (): Reply => problem('unknown_game');
const notSeated = (): Reply => problem('not_seated');

/** What the game routes use. */
export type GameRouteDeps = Pick<EdgeDeps, 'games' | 'gameGate' | 'store' | 'clock' | 'meter' | 'verdictWaitMs'> & {
  /** Large legal-move bodies as bytes, once per game version, with a gzip copy. */
  movesBodies?: EncodedBodies;
};

/** Asks pickEncoding whether a client takes a compressed body at all. */
const CAN_COMPRESS = { gzip: new Uint8Array(0), br: new Uint8Array(0) };

type GameOps =
  | 'submitSeed' | 'submitMove' | 'listMyGames' | 'listGames' | 'getGame' | 'getLegalMoves' | 'getGameHistory';

/** The game and the caller's seat in it, or the problem to answer. */
function seated(deps: GameRouteDeps, principal: Principal, gameId: string): { game: GameHandle; seat: Seat } | Reply {
  const game = deps.games.find(gameId);
  if (!game) return unknownGame();
  const seat = game.seatOf(principal.id);
  if (seat === null) return notSeated();
  return { game, seat };
}

const isReply = (x: unknown): x is Reply => typeof x === 'object' && x !== null && 'status' in x;

export function gameHandlers(deps: GameRouteDeps): Handlers<GameOps> {
  return {
    submitSeed: (call) => {
      const s = seated(deps, call.principal, call.params.id);
      if (isReply(s)) return s;
      const seed = classifySeed(call.body);
      // A malformed seed (wrong length, not a string) is handed on as an empty one: the actor
      // ignores it and answers with a Rejected event, and the caller still gets 202.
      s.game.seed(s.seat, seed.ok ? seed.seed : '');
      return json(202, {});
    },

    submitMove: async (call) => {
      const s = seated(deps, call.principal, call.params.id);
      if (isReply(s)) return s;
      if (!s.game.isActive()) return json(409, GAME_OVER);
      const { moves, version } = call.body;
      const verdictTimed = deps.meter.verdictTimer();
      const pending = s.game.move(s.seat, moves, version);
      // Timed to the verdict itself, also when the answer to the client was already a 202.
      void pending.then((v) => v !== 'busy' && verdictTimed());
      let timer: { cancel(): void } | undefined;
      const late = new Promise<'late'>((resolve) => {
        timer = deps.clock.schedule(deps.verdictWaitMs, () => resolve('late'));
      });
      const verdict = await Promise.race([pending, late]);
      timer?.cancel();
      if (verdict === 'late') return json(202, {});
      if (verdict === 'busy') return tooManyRequests('game_busy', 1);
      return json(verdict.applied ? 200 : 409, verdict);
    },


    listMyGames: async (call) => {
      const id = call.principal.id;
      // In a cluster, the caller's games are brought up to date here first (the polling path reads
      // whose turn it is from this list); each is then followed on this node for a while.
      await deps.gameGate?.player(id);
      const games = deps.games.liveFor(id).map((g) => myGame(g.summary(), g.seatOf(id) as Seat));
      return json(200, { games });
    },

    listGames: () => {
      // Ratings are read only for rated (ladder) games, from the store's bot records.
      const rating = (id: string): number | null => deps.store.getBot(id)?.rating.rating ?? null;
      const rows = deps.games.live().map((g) => {
        const s = g.summary();
        return g.rated ? { ...s, rated: true, ratings: { white: rating(g.white.id), black: rating(g.black.id) } } : s;
      });
      return json(200, publicGameList(rows));
    },

    getGame: ({ params }) => {
      const game = deps.games.find(params.id);
      return game ? json(200, game.stateJson()) : unknownGame();
    },

    getLegalMoves: ({ ctx, params }) => {
      const game = deps.games.find(params.id);
      if (!game) return unknownGame();
      const bodies = deps.movesBodies;
      if (bodies === undefined) return json(200, game.movesJson());
      const send = (body: EncodedBody | string): Reply => {
        if (typeof body === 'string') return json(200, body);
        const vary = { vary: 'accept-encoding' };
        const accept = ctx.headers.other.get('accept-encoding') ?? '';
        const encoding = pickEncoding(accept, body);
        if (encoding !== undefined) {
          const bytes = encoding === 'br' ? body.br : body.gzip;
          if (bytes !== undefined) return { status: 200, body: bytes, contentType: JSON_TYPE, headers: { ...vary, 'content-encoding': encoding } };
        }
        if ((body.gzip === undefined || body.br === undefined) && pickEncoding(accept, CAN_COMPRESS) !== undefined) bodies.wantCompressed(body);
        return jsonBytes(200, body.identity, vary);
      };
      const version = game.record().version;
      const kept = bodies.find(game.id, version);
      if (kept !== undefined) return send(kept);
      // A shard's game with a large tree: the body is the bytes the shard made, kept as they are.
      const large = game.movesBody?.() ?? null;
      if (large === null) return send(bodies.keep(game.id, version, game.movesJson()));
      return large.then(
        (b) => send(bodies.keepBytes(game.id, b.version, b.bytes)),
        () => problem('tree_unavailable', undefined, { 'retry-after': '1' }),
      );
    },

    getGameHistory: ({ params }) => {
      const game = deps.games.find(params.id);
      if (!game) return unknownGame();
      const state = game.state();
      return json(200, {
        gameId: game.id,
        players: state.players,
        timeControl: state.timeControl,
        ...(state.timeControls ? { timeControls: state.timeControls } : {}),
        commit: state.commit,
        seed: state.seed,
        clientSeeds: state.clientSeeds,
        status: state.status,
        history: game.history(),
      });
    },
  };
}
