// Main's end of one edge thread: takes the thread's batches, hands each request to the handler of its
// route (the router's own, registered on the RecordingApp) with stand-ins for uWS's request and
// response, and sends what those responses do back as one batch per event-loop turn.
import type { Logger } from '../../domain/log.js';
import { asUws, ProxiedRequest, ProxiedResponse, type DownSink } from './proxied.js';
import { DOWN, packBatch, unpackBatch, UP, type DownMessage, type UpMessage } from './protocol.js';
import type { RecordedRoute } from './recording-app.js';

export interface EdgePort {
  postMessage(value: unknown, transfer?: ArrayBuffer[]): void;
}

export class EdgeLink implements DownSink {
  private readonly open = new Map<number, ProxiedResponse>();
  private out: DownMessage[] = [];
  private flushing = false;

  constructor(
    private readonly port: EdgePort,
    private readonly routes: readonly RecordedRoute[],
    private readonly log: Pick<Logger, 'error'>,
    /** Runs around the handling of one batch (the shards' writes are gathered the same way). */
    private readonly around: (fn: () => void) => void = (fn) => fn(),
    /** The thread has ports to the shards: game streams may follow their game there (game-feeds.ts). */
    readonly feeds = false,
    /** Called after each batch posted: wakes the thread if it waits for an answer (at-once.ts). */
    private readonly posted: () => void = () => {},
  ) {}

  /** Responses main still writes to (tests, metrics). */
  get inFlight(): number {
    return this.open.size;
  }

  receive(buf: ArrayBuffer): void {
    const batch = unpackBatch<UpMessage>(buf);
    this.around(() => {
      for (const m of batch) {
        try {
          this.take(m);
        } catch (err) {
          this.log.error({ err }, 'edge thread message failed');
        }
      }
    });
  }

  private take(m: UpMessage): void {
    switch (m[0]) {
      case UP.REQUEST: {
        const [, id, route, method, url, query, params, headers, peer] = m;
        const handler = this.routes[route]?.handler;
        const res = new ProxiedResponse(id, this, peer);
        if (handler === undefined) {
          res.close();
          return;
        }
        this.open.set(id, res);
        const [raw, req] = asUws(res, new ProxiedRequest(method, url, query, params, headers));
        handler(raw, req);
        return;
      }
      case UP.DATA:
        this.open.get(m[1])?.data(m[2], m[3]);
        return;
      case UP.ABORTED:
        this.open.get(m[1])?.aborted();
        return;
      case UP.BLOCKED:
        this.open.get(m[1])?.isBlocked();
        return;
      case UP.WRITABLE:
        this.open.get(m[1])?.writable(m[2]);
        return;
      case UP.SYNC:
        // Queued behind whatever the requests before it produced; flushed with this turn's answers.
        this.send([DOWN.SYNCED, 0, m[1]]);
        return;
    }
  }

  send(msg: DownMessage): void {
    this.out.push(msg);
    if (this.flushing) return;
    this.flushing = true;
    setImmediate(() => this.flush());
  }

  forget(id: number): void {
    this.open.delete(id);
  }

  /** Sends what is queued now (also called before the thread is told to stop). */
  flush(): void {
    this.flushing = false;
    if (this.out.length === 0) return;
    const batch = this.out;
    this.out = [];
    const buf = packBatch(batch);
    this.port.postMessage(buf, [buf]);
    this.posted();
  }

  /** Every response still open is cut (the server stops). */
  closeAll(): void {
    for (const res of [...this.open.values()]) res.close();
  }
}
