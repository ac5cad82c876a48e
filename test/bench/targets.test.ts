// The targets table: each target's figure is read from the right suite row, and met or not.
import t from 'tap';
import { TARGETS, targetRows } from '../../bench/targets.js';
import type { BenchRow } from '../../bench/types.js';

const rows: BenchRow[] = [
  { bench: 'throughput N=8', metric: 'verdict p99 vs p50 ms', value: 99, baseline: 1 },
  { bench: 'throughput N=32', metric: 'server CPU µs/turn vs engine', value: 500, baseline: 100, baselineName: 'engine' },
  { bench: 'throughput N=32', metric: 'main-thread CPU µs/turn vs bare uWS', value: 90, baseline: 30 },
  { bench: 'throughput N=32', metric: 'verdict p99 ms', value: 1000 },
  { bench: 'throughput N=32', metric: 'verdict p99 vs p50 ms', value: 20, baseline: 10 },
  { bench: 'soak 32 pairs lmdb', metric: 'RssAnon MB at 600 s', value: 250, baseline: 200 },
  { bench: 'soak 32 pairs lmdb', metric: 'RssAnon MB peak under load', value: 900, baseline: 10 },
  { bench: 'soak 32 pairs lmdb', metric: 'RssAnon MB 60 s after the load', value: 120, baseline: 100 },
];

t.test('every target is read from its own row and judged against its bound', async (t) => {
  const out = targetRows(rows);
  t.equal(out.length, TARGETS.length);
  const by = new Map(out.map((r) => [r.metric, r]));
  const get = (prefix: string): BenchRow => out.find((r) => r.metric.startsWith(prefix))!;
  t.equal(by.size, TARGETS.length, 'one row per target');
  t.equal(get('server CPU per turn').value, 5);
  t.match(get('server CPU per turn').note, /^NOT met/);
  t.equal(get('main-thread').value, 3);
  t.match(get('main-thread').note, /^met/);
  t.equal(get('verdict p99').value, 2, 'the 32-pair row, not the 8-pair one');
  t.equal(get('RssAnon at the end of the soak ÷').value, 1.25, 'end ÷ early, not the peak row');
  t.equal(get('RssAnon at the end of the soak').value, 1.25);
  t.equal(out.find((r) => r.metric === 'RssAnon at the end of the soak')!.value, 250);
  t.equal(get('RssAnon after the idle').value, 1.2, 'the idle row');
  t.equal(get('RssAnon after the idle').baseline, 1.5, 'the target is the baseline');
  const ladder = get('ladder');
  t.ok(Number.isNaN(ladder.value), 'a suite that did not run leaves its target unmeasured');
  t.match(ladder.note, /not measured/);
});
