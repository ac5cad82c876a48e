// The ndjson streams: account (its catch-up on connect: account-stream.ts), game, and the public game
// stream. Past what they send first, all are live only; a reader that falls too far behind is cut
// off by the stream itself (docs/API.md, "Streams"), and every subscription is dropped when its
// stream closes.
import type { GameHandle } from '../../game/types.js';
import type { RequestContext } from '../context.js';
import type { EdgeDeps, Handlers } from '../deps.js';
import type { NdjsonStream } from '../ndjson.js';
import { problem, tooManyRequests, type Reply } from '../reply.js';
import type { SpectatorRefusal } from '../spectators.js';
import { openAccountStream, type AccountStreamDeps } from './account-stream.js';

/** When a refused stream may retry: a stream frees its place only when it closes, which may be never. */
const STREAM_RETRY_SECONDS = 10;

/** What the stream routes use. */
export type StreamRouteDeps = AccountStreamDeps & Pick<EdgeDeps, 'games' | 'hub' | 'spectators' | 'meter' | 'guestAbandonment'> & {
  limits: Pick<EdgeDeps['limits'], 'streams'>;
};

export const SPECTATOR_REFUSALS: Record<SpectatorRefusal, string> = {
  game: 'too many spectators of this game right now; retry shortly',
  address: 'this address already watches as many games as it may; close a stream first',
  total: 'too many spectators right now; retry shortly',
};

type StreamOps = 'streamAccountEvents' | 'streamGameEvents' | 'streamPublicGameEvents';

export function streamHandlers(deps: StreamRouteDeps): Handlers<StreamOps> {
  const open = deps.limits.streams;
  /** Opens the stream if the identity is under its cap; its place comes back when the stream closes. */
  const openCounted = (ctx: RequestContext, identity: string): { stream: NdjsonStream } | { refused: Reply } => {
    if (!open.tryOpen(identity)) {
      const detail = `at most ${open.limit} streams open per identity; close one first`;
      return { refused: tooManyRequests('too_many_streams', STREAM_RETRY_SECONDS, detail) };
    }
    const stream = ctx.ndjson();
    stream.onClose(() => open.close(identity));
    return { stream };
  };

  return {
    streamAccountEvents: (call) => {
      const opened = openCounted(call.ctx, call.principal.id);
      if ('refused' in opened) return opened.refused;
      const { stream } = opened;
      stream.onClose(deps.meter.streamOpened('account'));
      openAccountStream(deps, call.principal, stream);
    },

    streamGameEvents: (call) => {
      const game = deps.games.find(call.params.id);
      if (!game) return problem('unknown_game');
      // Any bot may watch any game; a guest's seat token is good for its own game only.
      if (call.principal.tier === 'guest' && game.seatOf(call.principal.id) === null) {
        return problem('not_seated', 'a seat token only works on the routes of its own game');
      }
      const opened = openCounted(call.ctx, call.principal.id);
      if ('refused' in opened) return opened.refused;
      opened.stream.onClose(deps.meter.streamOpened('game'));
      if (call.principal.tier === 'guest' && deps.guestAbandonment) opened.stream.onClose(deps.guestAbandonment.streamOpened(game.id));
      followGame(game, opened.stream);
    },

    // The same public events for anyone, no token: spectators (the web page) watch games with it.
    // Without a token to budget, the streams themselves are counted (per game and in all).
    streamPublicGameEvents: (call) => {
      const game = deps.games.find(call.params.id);
      if (!game) return problem('unknown_game');
      const release = deps.spectators.take(call.params.id, call.ctx.addressKey);
      if (typeof release !== 'function') return tooManyRequests('too_many_spectators', 5, SPECTATOR_REFUSALS[release]);
      const stream = call.ctx.ndjson();
      stream.onClose(release);
      stream.onClose(deps.meter.streamOpened('spectator'));
      followGame(game, stream);
    },
  };
}

/**
 * Snapshot, then every event of one game, closing after GameEnded. Game events carry public faces
 * only (never a raw id or a token), so the authenticated and the public stream share this.
 */
function followGame(game: GameHandle, stream: NdjsonStream): void {
  // Snapshot and subscription happen in one synchronous step: no event can fall between them.
  const sub = game.subscribe({
    deliver: (frame) => void stream.write(frame.line),
    deliverAll: (frames) => void stream.write(frames.length === 1 ? frames[0].line : frames.map((f) => f.line).join('')),
    close: () => stream.end(),
  });
  stream.write(sub.snapshot.line);
  if (sub.ended) {
    stream.write(sub.ended.line);
    stream.end();
    return;
  }
  stream.onClose(() => sub.unsubscribe());
}
