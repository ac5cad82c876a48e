// A running total exported as a counter: it follows its source, and when the source starts again
// from zero (a restarted shard's CPU time) the counter keeps rising instead of going down.
import t from 'tap';
import { Registry } from 'prom-client';
import { totalsCounter } from '../src/metric-totals.js';

t.test('a source that restarts never makes the counter go down', async (t) => {
  const registry = new Registry();
  let value = 0;
  totalsCounter({ name: 'x_total', help: 'x', labelNames: ['thread'], registers: [registry], read: () => [{ labels: { thread: 'a' }, value }] });
  const read = async () => Number(/x_total\{thread="a"\} (\S+)/.exec(await registry.metrics())?.[1]);
  const seen: number[] = [];
  for (const v of [5, 7, 7, 2, 3]) {
    value = v;
    seen.push(await read());
  }
  // 5, 7, 7, then the source restarted and reports 2 (new work: +2), then 3 (+1).
  t.same(seen, [5, 7, 7, 9, 10]);
  t.match(await registry.metrics(), /# TYPE x_total counter/);
});
