// An ndjson event reader for the whole-service tests, with a watchdog: a broken server fails the test
// instead of hanging it.
import type { LineReader } from './http.js';

// Events are read as loose JSON: the tests assert the fields they care about.
export type Ev = Record<string, any>;

/**
 * An ndjson reader: `next()` is the next event (keep-alives are counted, not returned), with a
 * watchdog so a stream that never delivers fails instead of hanging the test.
 */
export class EventStream {
  keepAlives = 0;
  readonly seen: Ev[] = [];

  constructor(readonly reader: LineReader, private readonly watchdogMs = 15_000) {}

  get status(): number {
    return this.reader.status;
  }

  /** The next raw line ('' for a keep-alive), undefined at the end of the stream. */
  async line(): Promise<string | undefined> {
    let timer: NodeJS.Timeout | undefined;
    const watchdog = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('stream watchdog: no line arrived')), this.watchdogMs);
    });
    try {
      return await Promise.race([this.reader.next(), watchdog]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The next event, or undefined when the stream is over. */
  async next(): Promise<Ev | undefined> {
    for (;;) {
      const line = await this.line();
      if (line === undefined) return undefined;
      if (line.trim() === '') {
        this.keepAlives++;
        continue;
      }
      const ev = JSON.parse(line) as Ev;
      this.seen.push(ev);
      return ev;
    }
  }

  /** Reads until an event satisfies `pred`; fails if the stream ends first. */
  async until(pred: (ev: Ev) => boolean, what = 'an event'): Promise<Ev> {
    for (;;) {
      const ev = await this.next();
      if (ev === undefined) throw new Error(`stream ended before ${what}; saw ${JSON.stringify(this.seen.slice(-3))}`);
      if (pred(ev)) return ev;
    }
  }

  /** Every remaining event up to the end of the stream. */
  async rest(): Promise<Ev[]> {
    const out: Ev[] = [];
    for (let ev = await this.next(); ev !== undefined; ev = await this.next()) out.push(ev);
    return out;
  }

  close(): void {
    this.reader.destroy();
  }
}

export const kindOf = (ev: Ev): string => Object.keys(ev)[0];
export const vOf = (ev: Ev): number => (Object.values(ev)[0] as { v: number }).v;
