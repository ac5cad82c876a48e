// A service held by one node and called from others over NATS request/reply, on a real three-server
// cluster: results and error results come back as values, optional arguments keep their defaults, a
// holder's exception and a missing holder both answer with the fallback value (never a rejection,
// never a hang), a retried call runs once, and calls follow the service when its lease moves.
import t from 'tap';
import { systemClock } from '../../../src/domain/clock.js';
import { LeaseCandidate } from '../../../src/cluster/coordination/lease.js';
import { connectCluster, leaseBucket, openBucket, type NatsConnection } from '../../../src/cluster/transport/nats.js';
import { heldService, remoteService, serveService, type CallFailure } from '../../../src/cluster/sharing/service-proxy.js';
import { eventually, startNatsCluster } from '../../helpers/nats-cluster.js';

const cluster = await startNatsCluster({ name: 'dc-svc' });
const conns: NatsConnection[] = [];
const conn = async (i: number, name: string) => {
  const nc = await connectCluster([cluster.urls[i]], name);
  conns.push(nc);
  return nc;
};
t.teardown(async () => {
  for (const nc of conns) await nc.close();
  await cluster.stop();
});

type Result<T> = { ok: true; value: T } | { ok: false; error: { code: string; detail: string } };

/** A small stateful service, as the challenges or the lobby are: a counter per key. */
class Counter {
  readonly counts = new Map<string, number>();
  calls = 0;
  constructor(
    readonly node: string,
    private readonly delayMs = 0,
  ) {}
  add(key: string, by = 1): Result<{ node: string; count: number }> {
    this.calls++;
    if (key === '') return { ok: false, error: { code: 'empty_key', detail: 'a key is needed' } };
    const count = (this.counts.get(key) ?? 0) + by;
    this.counts.set(key, count);
    return { ok: true, value: { node: this.node, count } };
  }
  async slowAdd(key: string): Promise<Result<{ node: string; count: number }>> {
    await new Promise((r) => setTimeout(r, this.delayMs));
    return this.add(key);
  }
  list(prefix?: string, limit = 10): string[] {
    return [...this.counts.keys()].filter((k) => prefix === undefined || k.startsWith(prefix)).slice(0, limit);
  }
  boom(): never {
    throw new Error('broken');
  }
}

const METHODS = ['add', 'slowAdd', 'list', 'boom'] as const;
type Fallback = { ok: false; error: { code: string; detail: string }; why: CallFailure };
const unavailable = (_method: string, why: CallFailure, detail: string): Fallback => ({ ok: false, error: { code: 'service_unavailable', detail }, why });

t.test('a proxied service answers; errors travel as values; undefined arguments stay undefined', async (t) => {
  const impl = new Counter('a');
  const served = serveService(await conn(0, 'holder'), 'counter1', impl, METHODS, { clock: systemClock });
  t.teardown(() => served.stop());
  const remote = remoteService<Counter, (typeof METHODS)[number], Fallback>(await conn(1, 'caller'), 'counter1', METHODS, { clock: systemClock, unavailable });
  t.same(await remote.add('k'), { ok: true, value: { node: 'a', count: 1 } }, 'the default argument applied');
  t.same(await remote.add('k', 5), { ok: true, value: { node: 'a', count: 6 } });
  t.same(await remote.add(''), { ok: false, error: { code: 'empty_key', detail: 'a key is needed' } }, 'an error result is a value');
  await remote.add('kk');
  t.same(await remote.list(), ['k', 'kk'], 'both optional arguments left out');
  t.same(await remote.list(undefined, 1), ['k'], 'a hole before a given argument stays a hole');
  t.same(await remote.list('kk'), ['kk']);
  const thrown = await remote.boom();
  t.match(thrown, { ok: false, why: 'failed', error: { code: 'service_unavailable' } }, 'an exception on the holder is a value here');
  t.notMatch((thrown as Fallback).error.detail, /broken/, 'its message stays on the holder');
  // A method not listed is not callable, even by a hand-made request.
  const raw = await conns[1].request('dc.svc.counter1', new TextEncoder().encode(JSON.stringify({ m: 'constructor', n: 0, a: {} })));
  t.match(new TextDecoder().decode(raw.data), /no method/);
});

t.test('with nobody serving, a call answers with the fallback at its deadline rather than hang', async (t) => {
  const remote = remoteService<Counter, 'add', Fallback>(await conn(2, 'lonely'), 'nobody', ['add'], { clock: systemClock, unavailable, deadlineMs: 400 });
  const r = await remote.add('k');
  t.match(r, { ok: false, why: 'no-holder' });
  t.match((r as Fallback).error.detail, /no responders|timeout/);
});

t.test('a call retried after a timeout runs once on the holder', async (t) => {
  const impl = new Counter('slow', 500);
  const served = serveService(await conn(0, 'slow-holder'), 'counter2', impl, METHODS, { clock: systemClock });
  t.teardown(() => served.stop());
  const remote = remoteService<Counter, 'slowAdd', Fallback>(await conn(2, 'impatient'), 'counter2', ['slowAdd'], {
    clock: systemClock, unavailable, attemptTimeoutMs: 150, deadlineMs: 10_000,
  });
  t.same(await remote.slowAdd('x'), { ok: true, value: { node: 'slow', count: 1 } });
  t.equal(impl.calls, 1, 'sent several times, run once');
});

t.test('calls follow the service when its lease moves to another node', async (t) => {
  const TTL = 1500;
  const kv = leaseBucket(await openBucket(await conn(0, 'leases'), { bucket: 'svc-leases', replicas: 3, ttlMs: TTL, timeoutMs: 1000 }));
  /** A node competing for the service's lease: it serves a fresh Counter while it holds it. */
  const contender = async (i: number, name: string) => {
    const nc = await conn(i, name);
    const made: Counter[] = [];
    const held = heldService(nc, 'counter3', () => { made.push(new Counter(name)); return made.at(-1)!; }, METHODS, {
      clock: systemClock, holds: () => candidate.lease.held(),
    });
    const candidate: LeaseCandidate = new LeaseCandidate({
      kv, key: 'singleton.counter3', holder: name, ttlMs: TTL, clock: systemClock, retryMs: 100,
      onGained: () => held.start(),
      onLost: () => void held.stop(),
    });
    return { made, held, candidate, stop: async () => { await held.stop(); await candidate.stop(); } };
  };
  const first = await contender(0, 'first');
  first.candidate.start();
  t.ok(await eventually(() => first.candidate.lease.held()), 'the first node holds the service');
  const second = await contender(1, 'second');
  second.candidate.start();
  t.teardown(async () => { await first.stop(); await second.stop(); });

  const remote = remoteService<Counter, 'add', Fallback>(await conn(2, 'user'), 'counter3', ['add'], { clock: systemClock, unavailable, deadlineMs: 10_000 });
  t.match(await remote.add('k'), { ok: true, value: { node: 'first' } });
  // The holder stops (its lease released): the same caller now reaches the second node.
  await first.stop();
  const moved = await remote.add('k');
  t.match(moved, { ok: true, value: { node: 'second', count: 1 } }, 'answered by the new holder (whose state starts empty)');
  t.equal(first.made.length, 1);
  t.equal(first.made[0].calls, 1, 'the old holder got nothing more');
  t.equal(first.held.current(), undefined, 'and dropped its instance');
  t.equal(second.held.current(), second.made[0]);
});

t.test('a node that serves but no longer holds answers "not holder" and the caller waits for the holder', async (t) => {
  let holds = false;
  const impl = new Counter('late');
  const served = serveService(await conn(1, 'stale'), 'counter4', impl, METHODS, { clock: systemClock, holds: () => holds });
  t.teardown(() => served.stop());
  const remote = remoteService<Counter, 'add', Fallback>(await conn(0, 'asker'), 'counter4', ['add'], { clock: systemClock, unavailable, deadlineMs: 10_000 });
  const pending = remote.add('k');
  setTimeout(() => (holds = true), 300);
  t.match(await pending, { ok: true, value: { node: 'late' } }, 'answered once it holds');
  const refused = await remoteService<Counter, 'add', Fallback>(conns[0], 'counter4', ['add'], { clock: systemClock, unavailable, deadlineMs: 2_000 })
    .add('j')
    .then((r) => r);
  t.match(refused, { ok: true }, 'still holding: answered at once');
  holds = false;
  // Long enough for the stale node's "not holder" to come back on a loaded machine (with 300 ms the
  // first answer itself could be late, and the caller then reported a timeout instead).
  const never = await remoteService<Counter, 'add', Fallback>(conns[0], 'counter4', ['add'], { clock: systemClock, unavailable, deadlineMs: 2_000 }).add('j');
  t.match(never, { ok: false, why: 'no-holder' });
  t.match((never as Fallback).error.detail, /not holder/);
});
