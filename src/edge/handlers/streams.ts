// The two ndjson streams. Both are live only; a reader that falls too far behind is cut off by the
// stream itself (CONTRACT.md "Streams"), and every subscription is dropped when its stream closes.
import { caller, type EdgeDeps, type HandlerTable } from '../deps.js';
import { problem } from '../reply.js';

export function streamHandlers(deps: EdgeDeps): HandlerTable {
  return {
    streamAccountEvents: (call) => {
      const stream = call.ctx.ndjson();
      stream.onClose(deps.meter.streamOpened('account'));
      const unsubscribe = deps.hub.subscribe(caller(call).id, {
        send: (line) => void stream.write(line),
        close: () => stream.end(),
      });
      stream.onClose(unsubscribe);
    },

    streamGameEvents: (call) => {
      const game = deps.games.find(call.params.id);
      if (!game) return problem(404, 'unknown_game', 'no game with this id');
      const stream = call.ctx.ndjson();
      stream.onClose(deps.meter.streamOpened('game'));
      // Snapshot and subscription happen in one synchronous step: no event can fall between them.
      const sub = game.subscribe({
        deliver: (frame) => void stream.write(frame.line),
        close: () => stream.end(),
      });
      stream.write(sub.snapshot.line);
      if (sub.ended) {
        stream.write(sub.ended.line);
        stream.end();
        return;
      }
      stream.onClose(() => sub.unsubscribe());
    },
  };
}
