// The ndjson streams: account, game, and the public game stream. All are live only; a reader that
// falls too far behind is cut off by the stream itself (CONTRACT.md "Streams"), and every
// subscription is dropped when its stream closes.
import { caller, type Call, type EdgeDeps, type HandlerTable } from '../deps.js';
import { problem, tooManyRequests, type Reply } from '../reply.js';

export function streamHandlers(deps: EdgeDeps): HandlerTable {
  return {
    streamAccountEvents: (call) => {
      const stream = call.ctx.ndjson();
      const unsubscribe = deps.hub.subscribe(caller(call).id, {
        send: (line) => void stream.write(line),
        close: () => stream.end(),
      });
      stream.onClose(unsubscribe);
    },

    streamGameEvents: (call) => followGame(deps, call),

    // The same public events for anyone, no token: spectators (the web page) watch games with it.
    // Without a token to budget, the streams themselves are counted (per game and in all).
    streamPublicGameEvents: (call) => {
      if (!deps.games.find(call.params.id)) return problem(404, 'unknown_game', 'no game with this id');
      const release = deps.spectators.take(call.params.id);
      if (!release) return tooManyRequests(5, 'too many spectators right now; retry shortly', 'too_many_spectators');
      const r = followGame(deps, call, release);
      if (r) release();
      return r;
    },
  };
}

/**
 * Snapshot, then every event of one game, closing after GameEnded. Game events carry public faces
 * only (never a raw id or a token), so the authenticated and the public stream share this.
 */
function followGame(deps: EdgeDeps, call: Call, onClose?: () => void): Reply | void {
  const game = deps.games.find(call.params.id);
  if (!game) return problem(404, 'unknown_game', 'no game with this id');
  const stream = call.ctx.ndjson();
  // Snapshot and subscription happen in one synchronous step: no event can fall between them.
  const sub = game.subscribe({
    deliver: (frame) => void stream.write(frame.line),
    close: () => stream.end(),
  });
  if (onClose) stream.onClose(onClose);
  stream.write(sub.snapshot.line);
  if (sub.ended) {
    stream.write(sub.ended.line);
    stream.end();
    return;
  }
  stream.onClose(() => sub.unsubscribe());
}
