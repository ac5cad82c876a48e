// A service that keeps its state in one process's memory (pending challenges, the lobby's seeks) runs on
// the node holding its singleton lease: `serveService` answers there over NATS request/reply, and
// `remoteService` gives any node an object whose methods call it (arguments and results as JSON).
// Invariant: errors are values: a caller's promise never rejects (no holder by the deadline, or a
// method that threw, resolves with `unavailable(...)`), and a call keeps its id on every retry, so it
// runs once on a holder.
// Re-routing and retry safety: (docs/CLUSTER.md, "Services held by one node: challenges and the lobby").
import { headers, RequestError, TimeoutError, type Msg, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import { LRUCache } from 'lru-cache';
import { randomBytes } from 'node:crypto';
import type { Clock } from '../../domain/clock.js';
import type { Logger } from '../../domain/log.js';
import { silentLogger } from '../../domain/log.js';

/** Less time than this left before a deadline: no further attempt (it could not be answered). */
const LAST_ATTEMPT_MS = 5;

const CALL_ID = 'Dc-Call-Id';
const STATUS = 'Dc-Status';
const NOT_HOLDER = 'not-holder';
const NAME_RE = /^[A-Za-z0-9_-]{1,64}$/;

/** The methods of T that may be called remotely (functions only). */
export type MethodName<T> = { [K in keyof T]: T[K] extends (...args: never[]) => unknown ? K : never }[keyof T] & string;

/** What a remote caller holds: each listed method, returning a promise of its result or of the fallback. */
export type Proxied<T, K extends MethodName<T>, F> = {
  [M in K]: T[M] extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R> | F> : never;
};

/** Why a call got the fallback value instead of the holder's result. */
export type CallFailure = 'no-holder' | 'failed';

export const serviceSubject = (prefix: string, name: string): string => `${prefix}.${name}`;

interface Request {
  m: string;
  /** Number of arguments, and those that are not undefined by position. */
  n: number;
  a: Record<string, unknown>;
}

type Reply = { v: unknown } | { e: string };

const enc = new TextEncoder();
const dec = new TextDecoder();

function encodeCall(method: string, args: unknown[]): Uint8Array {
  const a: Record<string, unknown> = {};
  args.forEach((v, i) => {
    if (v !== undefined) a[i] = v;
  });
  return enc.encode(JSON.stringify({ m: method, n: args.length, a } satisfies Request));
}

function decodeArgs(r: Request): unknown[] {
  const n = Math.min(Math.max(0, Math.floor(Number(r.n) || 0)), 32);
  return Array.from({ length: n }, (_, i) => r.a?.[i]);
}

export interface ServeOptions {
  /** True while this node may act for the service (its lease is certain); without it, always. */
  holds?: () => boolean;
  clock: Clock;
  log?: Logger;
  prefix?: string;
  /** Call ids remembered for retries (default 10,000). */
  maxRemembered?: number;
  /** How late a "not holder" answer goes out (default 25 ms). */
  notHolderDelayMs?: number;
}

export interface Served {
  /** Stops answering (call when the lease is lost or the service stops here). */
  stop(): Promise<void>;
}

/** The holder's side: answers calls of the listed methods of `impl` on the service's subject. */
export function serveService<T extends object, K extends MethodName<T>>(
  nc: NatsConnection,
  name: string,
  impl: T,
  methods: readonly K[],
  o: ServeOptions,
): Served {
  if (!NAME_RE.test(name)) throw new Error(`service name ${JSON.stringify(name)}: letters, digits, - and _ only`);
  const allowed = new Set<string>(methods);
  const log = o.log ?? silentLogger;
  const answers = new LRUCache<string, Promise<Reply>>({ max: o.maxRemembered ?? 10_000 });

  const run = async (data: Uint8Array): Promise<Reply> => {
    let req: Request;
    try {
      req = JSON.parse(dec.decode(data)) as Request;
    } catch {
      return { e: 'the call could not be read' };
    }
    if (typeof req?.m !== 'string' || !allowed.has(req.m)) return { e: `no method ${JSON.stringify(req?.m)} on service ${name}` };
    const fn = (impl as Record<string, (...a: unknown[]) => unknown>)[req.m];
    try {
      const v = await fn.apply(impl, decodeArgs(req));
      return { v: v === undefined ? null : v };
    } catch (err) {
      log.error({ service: name, method: req.m, err: String(err) }, 'remote call failed on the holder');
      return { e: `${name}.${req.m} failed on the holder` };
    }
  };

  const onRequest = (m: Msg): void => {
    if (o.holds && !o.holds()) {
      const h = headers();
      h.set(STATUS, NOT_HOLDER);
      o.clock.schedule(o.notHolderDelayMs ?? 25, () => m.respond(new Uint8Array(), { headers: h }));
      return;
    }
    const id = m.headers?.get(CALL_ID) ?? '';
    let answer = id ? answers.get(id) : undefined;
    if (!answer) {
      answer = run(m.data);
      if (id) answers.set(id, answer);
    }
    void answer.then((r) => {
      if ('e' in r && id) answers.delete(id); // a failed call may be tried again
      try {
        m.respond(enc.encode(JSON.stringify(r)));
      } catch {
        // The connection is closing: the caller retries elsewhere.
      }
    });
  };

  const sub: Subscription = nc.subscribe(serviceSubject(o.prefix ?? 'dc.svc', name), {
    callback: (err, m) => {
      if (err === null) onRequest(m);
    },
  });
  return { stop: () => sub.drain() };
}

export interface RemoteOptions<F> {
  clock: Clock;
  /** The value a call resolves with when it gets no result (no holder by the deadline, or the holder threw). */
  unavailable: (method: string, why: CallFailure, detail: string) => F;
  prefix?: string;
  /** How long a call keeps trying, in all (default 5000 ms). */
  deadlineMs?: number;
  /** How long one attempt waits for an answer (default 1000 ms). */
  attemptTimeoutMs?: number;
  /** Wait before asking again after "not holder" or no responders (default 50 ms, doubling to 1 s). */
  backoffMs?: number;
}

let counter = 0;
const node = randomBytes(6).toString('base64url');
const newCallId = (): string => `${node}-${(counter++).toString(36)}`;

/** The caller's side: an object whose listed methods call the service wherever its holder is. */
export function remoteService<T extends object, K extends MethodName<T>, F>(
  nc: NatsConnection,
  name: string,
  methods: readonly K[],
  o: RemoteOptions<F>,
): Proxied<T, K, F> {
  if (!NAME_RE.test(name)) throw new Error(`service name ${JSON.stringify(name)}: letters, digits, - and _ only`);
  const subject = serviceSubject(o.prefix ?? 'dc.svc', name);
  const sleep = (ms: number) => new Promise<void>((r) => o.clock.schedule(ms, () => r()));

  const call = async (method: string, args: unknown[]): Promise<unknown> => {
    const data = encodeCall(method, args);
    const h = headers();
    h.set(CALL_ID, newCallId());
    const giveUpAt = o.clock.monotonic() + (o.deadlineMs ?? 5000);
    let wait = o.backoffMs ?? 50;
    let last = 'no attempt';
    // Timers may wake a fraction of a millisecond before the monotonic deadline they were set for
    // (libuv counts whole milliseconds): an attempt with almost nothing left is not made.
    while (giveUpAt - o.clock.monotonic() >= LAST_ATTEMPT_MS) {
      const timeout = Math.max(1, Math.min(o.attemptTimeoutMs ?? 1000, giveUpAt - o.clock.monotonic()));
      try {
        const reply = await nc.request(subject, data, { timeout, headers: h });
        if (reply.headers?.get(STATUS) !== NOT_HOLDER) {
          const r = JSON.parse(dec.decode(reply.data)) as Reply;
          return 'v' in r ? r.v : o.unavailable(method, 'failed', r.e);
        }
        last = 'not holder';
      } catch (e) {
        if (e instanceof TimeoutError) {
          last = 'timeout';
          continue; // the same id is safe to send again
        }
        if (e instanceof RequestError && e.isNoResponders()) last = 'no responders';
        else last = String(e); // the connection is reconnecting or closed
      }
      await sleep(Math.min(wait, Math.max(0, giveUpAt - o.clock.monotonic())));
      wait = Math.min(wait * 2, 1000);
    }
    return o.unavailable(method, 'no-holder', `service ${name}: no holder answered (${last})`);
  };

  const proxy: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
  for (const m of methods) proxy[m] = (...args: unknown[]) => call(m, args);
  return proxy as Proxied<T, K, F>;
}

/** A held service as a singleton runs it: `{ name, start, stop }` (cluster/singletons.ts). */
export interface HeldService<T> {
  readonly name: string;
  /** Builds a fresh instance and answers calls for it (the lease was gained). */
  start(): void;
  /** Stops answering and drops the instance (the lease was lost, or the node stops). */
  stop(): Promise<void>;
  /** The instance answering here now, if any. */
  current(): T | undefined;
}

/**
 * The holder's side as a singleton: each start builds a NEW instance with `make` (a node that held the
 * service before and gets it back must not bring back what it held then) and serves it; stop stops
 * serving and lets `retire` settle the old instance (e.g. give back what it holds).
 */
export function heldService<T extends object, K extends MethodName<T>>(
  nc: NatsConnection,
  name: string,
  make: () => T,
  methods: readonly K[],
  o: ServeOptions & { retire?: (old: T) => void },
): HeldService<T> {
  let impl: T | undefined;
  let served: Served | undefined;
  return {
    name,
    start() {
      if (served) return;
      impl = make();
      served = serveService(nc, name, impl, methods, o);
    },
    async stop() {
      const [was, old] = [served, impl];
      served = impl = undefined;
      await was?.stop();
      if (old) o.retire?.(old);
    },
    current: () => impl,
  };
}
