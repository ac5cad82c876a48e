// `make bench`: runs every benchmark module in turn and prints one table.
// Usage: node dist/bench/run.js [name ...]   (names: engine, store, http, throughput, persistence, abuse, ladder, ratings, webhooks, channel, scaling, streams, idle-games, game-memory, big-trees, cluster-log, events; soak, targets, cluster, cluster-failover and cluster-soak only when named)
import type { BenchRow } from './types.js';

const SUITES: Record<string, () => Promise<{ run(): Promise<BenchRow[]> }>> = {
  engine: () => import('./engine.js'),
  store: () => import('./store.js'),
  http: () => import('./http.js'),
  throughput: () => import('./throughput.js'),
  persistence: () => import('./persistence.js'),
  abuse: () => import('./abuse.js'),
  ladder: () => import('./ladder-pairs.js'),
  ratings: () => import('./ladder-ratings.js'),
  webhooks: () => import('./webhooks.js'),
  channel: () => import('./shard-channel.js'),
  scaling: () => import('./scaling.js'),
  streams: () => import('./streams.js'),
  'idle-games': () => import('./idle-games.js'),
  'game-memory': () => import('./game-memory.js'),
  soak: () => import('./soak.js'),
  'big-trees': () => import('./big-trees.js'),
  'cluster-log': () => import('./cluster-log.js'),
  cluster: () => import('./cluster.js'),
  'cluster-failover': () => import('./cluster-failover.js'),
  'cluster-soak': () => import('./cluster-soak.js'),
  events: () => import('./events.js'),
  targets: () => import('./targets.js'),
};

/**
 * Suites run only when named: soak and targets are too long for the default list; cluster needs nats-server
 * (`make nats-deps`) and takes about three minutes (`node dist/bench/run.js cluster`); cluster-failover kills -9 and
 * restarts a node ten times (about eight minutes: `node dist/bench/run.js cluster-failover`); cluster-soak plays
 * ten minutes on one node and ten on three (`make bench-cluster-soak`).
 */
const ON_REQUEST = new Set(['soak', 'targets', 'cluster', 'cluster-failover', 'cluster-soak']);

function fmt(n: number | undefined): string {
  if (n === undefined) return '';
  if (!Number.isFinite(n)) return String(n);
  if (Math.abs(n) >= 1000) return Math.round(n).toLocaleString('en-US');
  return n.toFixed(Math.abs(n) >= 10 ? 1 : 2);
}

function table(rows: BenchRow[]): string {
  const head = ['bench', 'metric', 'value', 'baseline', 'ratio', 'note'];
  const body = rows.map((r) => [
    r.bench,
    r.metric,
    fmt(r.value),
    r.baseline === undefined ? '' : `${fmt(r.baseline)} (${r.baselineName ?? 'baseline'})`,
    r.baseline ? `${(r.value / r.baseline).toFixed(2)}x` : '',
    r.note ?? '',
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells: string[]) => '| ' + cells.map((c, i) => c.padEnd(widths[i])).join(' | ') + ' |';
  return [line(head), '|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|', ...body.map(line)].join('\n');
}

async function main(): Promise<void> {
  const wanted = process.argv.slice(2);
  const names = wanted.length ? wanted : Object.keys(SUITES).filter((n) => !ON_REQUEST.has(n));
  const rows: BenchRow[] = [];
  for (const name of names) {
    const load = SUITES[name];
    if (!load) {
      console.error(`unknown benchmark ${name}; known: ${Object.keys(SUITES).join(', ')}`);
      process.exitCode = 2;
      return;
    }
    console.error(`running ${name}…`);
    const mod = await load();
    rows.push(...(await mod.run()));
  }
  console.log(table(rows));
}

await main();
