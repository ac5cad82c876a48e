// Per-bot delivery statistics: counts per outcome, nearest-rank percentiles, and both bounds.
import t from 'tap';
import { DeliveryStats } from '../../../src/services/webhooks/stats.js';

t.test('counts and percentiles', async (t) => {
  const s = new DeliveryStats({ window: 100, maxBots: 10 });
  for (let ms = 1; ms <= 100; ms++) s.record('a', ms % 10 === 0 ? 'timeout' : 'applied', ms);
  const v = s.view('a');
  t.equal(v.applied, 90);
  t.equal(v.timeout, 10);
  t.equal(v.deliveries, 100);
  t.equal(v.latencyMsP50, 50);
  t.equal(v.latencyMsP90, 90);
  t.equal(v.latencyMsP99, 99);
  t.equal(v.latencyMsMax, 100);
  t.equal(s.view('nobody').deliveries, 0, 'an unknown bot has empty stats');
  t.equal(s.view('nobody').latencyMsP50, 0);
});

t.test('the latency window and the number of bots are bounded', async (t) => {
  const s = new DeliveryStats({ window: 4, maxBots: 3 });
  for (const ms of [1000, 1000, 1000, 1000, 1, 2, 3, 4]) s.record('a', 'applied', ms);
  t.equal(s.view('a').latencyMsMax, 4, 'only the last 4 latencies are kept');
  t.equal(s.view('a').applied, 8, 'counts are not windowed');
  for (const b of ['b', 'c', 'd']) s.record(b, 'declined', 1);
  t.equal(s.size(), 3, 'at most 3 bots tracked');
  t.equal(s.view('a').deliveries, 0, 'the least recently active bot was dropped');
  s.reset('d');
  t.equal(s.view('d').deliveries, 0, 'reset starts a bot over');
});
