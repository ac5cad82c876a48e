// Short-lived tokens across nodes on a real three-server cluster: an anonymous identity minted on one
// node authenticates on another and can be challenged from it; a guest seat token issued on one
// node plays on another; a token past its lifetime is refused everywhere.
import t from 'tap';
import { ManualClock } from '../../../src/domain/clock.js';
import { connectCluster, type NatsConnection } from '../../../src/cluster/transport/nats.js';
import { TokenBus } from '../../../src/cluster/sharing/token-bus.js';
import { IdentityService } from '../../../src/services/identity.js';
import { MemoryStore } from '../../../src/store/memory.js';
import { eventually, startNatsCluster } from '../../helpers/nats-cluster.js';

const cluster = await startNatsCluster({ name: 'dc-tok' });
const conns: NatsConnection[] = [];
const buses: TokenBus[] = [];
t.teardown(async () => {
  for (const b of buses) b.close();
  for (const nc of conns) await nc.close();
  await cluster.stop();
});

const clock = new ManualClock();
const TTL = 60_000;

async function node(i: number, name: string): Promise<IdentityService> {
  const nc = await connectCluster([cluster.urls[i]], name);
  conns.push(nc);
  const bus = await TokenBus.open(nc, { replicas: 3, clock, ttlMs: 10 * TTL });
  buses.push(bus);
  return new IdentityService(new MemoryStore(), clock, { anonTtlMs: TTL, guestTokenTtlMs: TTL }, bus);
}

t.test('anonymous and guest tokens issued on one node work on another until they expire', async (t) => {
  const a = await node(0, 'ta');
  const b = await node(1, 'tb');
  const alone = new IdentityService(new MemoryStore(), clock, { anonTtlMs: TTL });

  const anon = a.mintAnon('far');
  t.ok(await eventually(() => b.authenticate(anon.token) !== null), 'the anonymous token authenticates on the other node');
  t.same(b.authenticate(anon.token), { id: anon.id, tier: 'anonymous', team: 'anon', name: anon.name });
  t.same(b.findBot('anon', anon.name)?.id, anon.id, 'and the anonymous bot can be challenged from there');
  t.equal(alone.authenticate(anon.token), null, 'a server without the bus knows nothing of it');

  const seat = b.issueGuestSeatToken('g123');
  t.ok(await eventually(() => a.authenticate(seat) !== null), 'a guest seat token issued on b plays on a');
  t.match(a.authenticate(seat), { id: 'guest:g123', tier: 'guest' });
  t.equal(a.authenticate('not-a-token'), null);

  clock.advance(TTL + 1);
  t.equal(b.authenticate(anon.token), null, 'expired on the other node too');
  t.equal(a.authenticate(anon.token), null, 'and on its own');
  t.equal(a.authenticate(seat), null);
  t.equal(b.findBot('anon', anon.name), null);
});
