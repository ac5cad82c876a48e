// The two ndjson streams. Both are live only; a reader that falls too far behind is cut off by the
// stream itself (CONTRACT.md "Streams"), and every subscription is dropped when its stream closes.
import type { RequestContext } from '../context.js';
import { caller, type EdgeDeps, type HandlerTable } from '../deps.js';
import type { NdjsonStream } from '../ndjson.js';
import { problem, tooManyRequests, type Reply } from '../reply.js';

/** When a refused stream may retry: a stream frees its place only when it closes, which may be never. */
const STREAM_RETRY_SECONDS = 10;

export function streamHandlers(deps: EdgeDeps): HandlerTable {
  const open = deps.limits.streams;
  /** Opens the stream if the identity is under its cap; its place comes back when the stream closes. */
  const openCounted = (ctx: RequestContext, identity: string): { stream: NdjsonStream } | { refused: Reply } => {
    if (!open.tryOpen(identity)) {
      const detail = `at most ${open.limit} streams open per identity; close one first`;
      return { refused: tooManyRequests(STREAM_RETRY_SECONDS, detail, 'too_many_streams') };
    }
    const stream = ctx.ndjson();
    stream.onClose(() => open.close(identity));
    return { stream };
  };

  return {
    streamAccountEvents: (call) => {
      const opened = openCounted(call.ctx, caller(call).id);
      if ('refused' in opened) return opened.refused;
      const { stream } = opened;
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
      const opened = openCounted(call.ctx, caller(call).id);
      if ('refused' in opened) return opened.refused;
      const { stream } = opened;
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
