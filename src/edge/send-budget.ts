// What large answers may hold while they wait for slow readers: their unsent bytes, counted per address
// and in total, a budget of body bytes per address per minute, and a drain timeout (via the Clock).
// Invariant: past a bound a new large answer is refused (429 with Retry-After) rather than held, since
// uWS keeps whatever a socket has not taken. Answers below largeBodyBytes are not counted.
// (docs/OPERATIONS.md, "Hostile readers: large answers, slow sockets, guests, cross-site pages").
import type { Clock } from '../domain/clock.js';
import { SendPacer, type Defer, type PaceLimits } from './send-pacer.js';

export interface SendLimits extends PaceLimits {
  /** Bodies at least this long are streamed with backpressure and counted. */
  largeBodyBytes: number;
  /** Unsent bytes of large answers one address may have pending. */
  unsentBytesPerAddress: number;
  /** Unsent bytes of large answers pending on the whole server. */
  unsentBytesTotal: number;
  /** Large-body bytes one address may ask for per minute. */
  bodyBytesPerMinute: number;
  /** A large answer that sends nothing for this long has its connection closed. */
  drainTimeoutMs: number;
  /** Addresses whose per-minute budget is remembered (least recently used forgotten first). */
  maxKeys: number;
}

export const DEFAULT_SEND_LIMITS: SendLimits = {
  largeBodyBytes: 64 * 1024,
  unsentBytesPerAddress: 32 * 1024 * 1024,
  unsentBytesTotal: 256 * 1024 * 1024,
  bodyBytesPerMinute: 512 * 1024 * 1024,
  drainTimeoutMs: 30_000,
  maxKeys: 100_000,
  sliceBytes: 128 * 1024,
  bytesPerTurn: 512 * 1024,
};

/** One large answer on its way out: report what is still unsent, and when it is over (once). */
export interface SendTicket {
  unsent(bytes: number): void;
  done(): void;
}

export type SendVerdict =
  | { ok: true; ticket: SendTicket }
  | { ok: false; code: 'too_many_unsent_bytes' | 'too_many_body_bytes'; detail: string; retryAfterSeconds: number };

/** When to retry after an unsent-bytes refusal: a reader that drains does so within seconds. */
const UNSENT_RETRY_SECONDS = 2;

interface Bucket {
  tokens: number;
  at: number;
}

export class SendBudget {
  readonly limits: SendLimits;
  private readonly unsentBy = new Map<string, number>();
  private unsentAll = 0;
  private readonly buckets = new Map<string, Bucket>();
  /** Where large answers take turns writing their slices. */
  readonly pacer: SendPacer;

  /** defer: how the pacer waits for the next event-loop turn (setImmediate unless a test drives it). */
  constructor(
    readonly clock: Clock,
    limits: Partial<SendLimits> = {},
    defer?: Defer,
  ) {
    this.limits = { ...DEFAULT_SEND_LIMITS, ...limits };
    this.pacer = new SendPacer(this.limits, defer);
  }

  /** Should a body of this many bytes go through admit()? */
  isLarge(bytes: number): boolean {
    return bytes >= this.limits.largeBodyBytes;
  }

  /** Admits a large answer of `bytes` to `address`, counting it as unsent until the ticket says otherwise. */
  admit(address: string, bytes: number): SendVerdict {
    const l = this.limits;
    const mine = this.unsentBy.get(address) ?? 0;
    // An address with nothing pending may always have one answer (a single body may exceed the bound).
    if ((mine > 0 && mine + bytes > l.unsentBytesPerAddress) || (this.unsentAll > 0 && this.unsentAll + bytes > l.unsentBytesTotal)) {
      const detail = 'too many bytes of earlier answers are still unsent; read them first';
      return { ok: false, code: 'too_many_unsent_bytes', detail, retryAfterSeconds: UNSENT_RETRY_SECONDS };
    }
    const wait = this.spend(address, bytes);
    if (wait > 0) {
      const detail = `this address asked for more than ${l.bodyBytesPerMinute} bytes of large answers in a minute`;
      return { ok: false, code: 'too_many_body_bytes', detail, retryAfterSeconds: Math.max(1, Math.ceil(wait / 1000)) };
    }
    let pending = bytes;
    this.add(address, pending);
    return {
      ok: true,
      ticket: {
        unsent: (n) => {
          const next = Math.max(0, Math.min(pending, n));
          this.add(address, next - pending);
          pending = next;
        },
        done: () => {
          this.add(address, -pending);
          pending = 0;
        },
      },
    };
  }

  /** Unsent bytes of large answers, in total or of one address (metrics, tests). */
  unsent(address?: string): number {
    return address === undefined ? this.unsentAll : this.unsentBy.get(address) ?? 0;
  }

  private add(address: string, delta: number): void {
    if (delta === 0) return;
    this.unsentAll += delta;
    const left = (this.unsentBy.get(address) ?? 0) + delta;
    if (left > 0) this.unsentBy.set(address, left);
    else this.unsentBy.delete(address);
  }

  /** Takes `bytes` from the address's bucket; 0 when taken, else milliseconds until they would be there. */
  private spend(address: string, bytes: number): number {
    const cap = this.limits.bodyBytesPerMinute;
    const perMs = cap / 60_000;
    const now = this.clock.now();
    const b = this.buckets.get(address);
    const tokens = b === undefined ? cap : Math.min(cap, b.tokens + (now - b.at) * perMs);
    // A body larger than the whole budget is served when the bucket is full (and empties it).
    const need = Math.min(bytes, cap);
    if (tokens < need) return (need - tokens) / perMs;
    this.buckets.delete(address); // re-inserted last: the map stays in least-recently-used order
    this.buckets.set(address, { tokens: tokens - need, at: now });
    while (this.buckets.size > this.limits.maxKeys) {
      const oldest = this.buckets.keys().next();
      if (oldest.done) break;
      this.buckets.delete(oldest.value);
    }
    return 0;
  }
}
