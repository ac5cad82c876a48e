// Takeover time of a shard when its node dies: three nats-server (one JetStream cluster, R3) and
// three `dicechess serve --cluster` nodes, house games played all along by bots that move through
// any live node (test/helpers/cluster-play.ts), and a node killed -9, then restarted, N times
// (a, b, c in turn). For each shard the dead node held:
//
//   - lease expiry: the dead holder's last write of the shard's lease key (its last renewal, as the
//     server stamped it, read from a watch of the lease bucket) plus the lease TTL;
//   - gained: when the new owner's lease candidate won the key, and serving: when it began answering
//     the shard's subject after the log takeover and the replay of its games (both from the new
//     owner's "shard taken over" log line);
//   - full outage: over the shard's games under way across the kill (a move acknowledged before it
//     and one after), the last acknowledgement before the kill to the first after it. It includes
//     the bots' own ways: a move refused while nobody serves the shard is sent again every 250 ms
//     for 15 s, then the bot waits for its stream, which it gives up after 6 s of quiet.
//
// Takeover time = serving - lease expiry; it splits into detection (gained - expiry: the member's
// and the shard's keys expiring on the server, then the survivors' next look, every TTL/3) and
// opening (serving - gained: takeover markers, replay, resume). Everything runs on this machine, so
// the servers' and the nodes' clocks are one clock.
//
// Knobs (environment): BENCH_FAILOVER_KILLS (10), BENCH_FAILOVER_TTL_MS lease TTL (10000, the
// default of a node), BENCH_FAILOVER_GAMES games played at once (12), BENCH_FAILOVER_SHARDS (6),
// BENCH_FAILOVER_MAX_MS a bound on the whole run (900000): the kills stop when it is near.
// Every process started here is stopped by its PID.
import { jetstream } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { connectCluster } from '../src/cluster/transport/nats.js';
import { shardOf } from '../src/cluster/coordination/ownership.js';
import { readLeaseValue } from '../src/cluster/coordination/lease.js';
import { eventually, startNatsCluster, type NatsCluster } from '../test/helpers/nats-cluster.js';
import { settingsFile, settled, startNode, type ClusterNodeProc } from '../test/helpers/cluster-nodes.js';
import { playHouseGame } from '../test/helpers/cluster-play.js';
import type { BenchRow } from './types.js';

const KILLS = Number(process.env.BENCH_FAILOVER_KILLS ?? 10);
const TTL_MS = Number(process.env.BENCH_FAILOVER_TTL_MS ?? 10_000);
const GAMES = Number(process.env.BENCH_FAILOVER_GAMES ?? 12);
const SHARDS = Number(process.env.BENCH_FAILOVER_SHARDS ?? 6);
const MAX_MS = Number(process.env.BENCH_FAILOVER_MAX_MS ?? 900_000);
const SETTLE_MS = 90_000;

interface TakenOver {
  node: string;
  shard: number;
  gainedAt: number;
  servingAt: number;
}

interface Sample {
  kill: number;
  victim: string;
  shard: number;
  expiry: number;
  gainedAt: number;
  servingAt: number;
  /** Last acknowledged move before the kill to the first after it, for a game on the shard. */
  outageMs?: number;
}

const pct = (xs: number[], p: number): number => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};

/** Reads every node's "shard taken over" lines as they come (the helper keeps only a bounded tail). */
function watchTakeovers(node: ClusterNodeProc, into: TakenOver[]): void {
  let part = '';
  node.child.stdout?.on('data', (d: string | Buffer) => {
    part += String(d);
    const cut = part.lastIndexOf('\n');
    if (cut < 0) return;
    for (const line of part.slice(0, cut).split('\n')) {
      if (!line.includes('"shard taken over"')) continue;
      try {
        const j = JSON.parse(line) as { shard: number; gainedAt: number; servingAt: number };
        into.push({ node: node.name, shard: j.shard, gainedAt: j.gainedAt, servingAt: j.servingAt });
      } catch {
        /* not a whole line */
      }
    }
    part = part.slice(cut + 1);
  });
}

export async function run(): Promise<BenchRow[]> {
  const started = Date.now();
  const nats: NatsCluster = await startNatsCluster({ name: 'dc-failover' });
  const settings = settingsFile({
    cluster: { shards: SHARDS, leaseTtlMs: TTL_MS },
    limits: { registrationsPerHour: 1_000_000 },
    games: { houseMoveDelayMs: 150, seedGraceMs: 0 },
  });
  const nodes: ClusterNodeProc[] = [];
  const takeovers: TakenOver[] = [];
  /** Each lease key's writes: holder and the server's time of the write. */
  const leaseWrites = new Map<string, { holder: string; at: number }[]>();
  /** Acknowledged moves: when, and which bot slot and game round (the game id comes when it ends). */
  const acks: { at: number; game: string }[] = [];
  const gameIds = new Map<string, string>();
  /** Games that could not be played, by the start of their error. */
  const failures = new Map<string, number>();
  let playing = true;
  const samples: Sample[] = [];
  const killTimes: number[] = [];
  let kills = 0;
  let nc: Awaited<ReturnType<typeof connectCluster>> | undefined;
  try {
    for (const name of ['a', 'b', 'c']) {
      const n = await startNode(name, nats.urls, settings.file, SETTLE_MS);
      watchTakeovers(n, takeovers);
      nodes.push(n);
    }
    if (!(await eventually(() => settled(nodes, SHARDS), SETTLE_MS))) throw new Error('the shards never settled');
    nc = await connectCluster(nats.urls, 'bench-failover');
    const kv = await new Kvm(jetstream(nc)).open('dc-shards');
    const watch = await kv.watch({ key: 'shard.*' });
    void (async () => {
      for await (const e of watch) {
        if (e.operation !== 'PUT') continue;
        const v = readLeaseValue(e.value);
        if (!v) continue;
        let list = leaseWrites.get(e.key);
        if (!list) leaseWrites.set(e.key, (list = []));
        list.push({ holder: v.holder, at: e.created.getTime() });
      }
    })();

    // The bots: each slot plays one house game after another until the kills are done.
    const slots = Array.from({ length: GAMES }, async (_, i) => {
      for (let round = 0; playing; round++) {
        const key = `${i}.${round}`;
        try {
          const p = await playHouseGame(nodes, `fo${round}s`, i, () => acks.push({ at: Date.now(), game: key }));
          gameIds.set(key, p.gameId);
        } catch (e) {
          // Most often a challenge refused (503) while the challenges service's lease moves with the
          // dead node: counted, and the slot starts another game.
          if (playing) failures.set((e as Error).message.slice(0, 60), (failures.get((e as Error).message.slice(0, 60)) ?? 0) + 1);
        }
      }
    });

    const under = await eventually(() => acks.length >= GAMES * 2, SETTLE_MS);
    if (!under) throw new Error('the games never got under way');
    for (let k = 0; k < KILLS; k++) {
      if (Date.now() - started > MAX_MS - 4 * TTL_MS - 2 * SETTLE_MS) {
        console.error(`failover bench: stopping after ${k} kills (BENCH_FAILOVER_MAX_MS)`);
        break;
      }
      const vi = k % nodes.length;
      const victim = nodes[vi];
      const held = [...victim.serving()].sort((a, b) => a - b);
      const ackedBefore = acks.length;
      await eventually(() => acks.length >= ackedBefore + GAMES, 20_000); // moves under way
      const killAt = Date.now();
      await victim.kill9();
      // An answer the node sent before it died may be handled here a little later: what is handled
      // before its exit is seen counts as before the kill.
      killTimes[k] = Date.now();
      kills++;
      const seen = takeovers.length;
      const taken = (s: number) => takeovers.slice(seen).find((t) => t.shard === s && t.node !== victim.name && t.servingAt > killAt);
      if (!(await eventually(() => held.every((s) => taken(s) !== undefined), SETTLE_MS))) {
        const missing = held.filter((s) => !taken(s));
        console.error(`failover bench: kill ${k} (${victim.name}): shards ${missing.join(',')} not taken over in time`);
        // What the survivors said of those shards lately, to tell churn from a stuck takeover.
        for (const n of nodes.filter((x) => x !== victim)) {
          const about = n.log.filter((l) => missing.some((s) => l.includes(`"shard":${s},`))).slice(-8);
          console.error(`--- node ${n.name}\n${about.join('\n')}`);
        }
      }
      for (const s of held) {
        const t = taken(s);
        const writes = (leaseWrites.get(`shard.${s}`) ?? []).filter((w) => w.holder === victim.name && w.at <= killTimes[k]);
        if (!t || writes.length === 0) continue;
        samples.push({ kill: k, victim: victim.name, shard: s, expiry: writes[writes.length - 1].at + TTL_MS, gainedAt: t.gainedAt, servingAt: t.servingAt });
      }
      // Let the games on the moved shards play on a little before the node comes back.
      await new Promise((r) => setTimeout(r, 3000));
      const back = await startNode(victim.name, nats.urls, settings.file, SETTLE_MS);
      watchTakeovers(back, takeovers);
      nodes[vi] = back;
      if (!(await eventually(() => settled(nodes, SHARDS), SETTLE_MS))) console.error(`failover bench: kill ${k}: the shards did not settle after the restart`);
      // One more round of moves after the node is back, so the next kill finds games under way.
      const now = acks.length;
      await eventually(() => acks.length >= now + GAMES, 30_000);
      console.error(`failover bench: kill ${k + 1}/${KILLS} (node ${victim.name}, shards ${held.join(',')}) done`);
    }
    playing = false;
    // The games still going end on their own; their acknowledgements count only once their ids are known.
    await Promise.race([Promise.all(slots), new Promise((r) => setTimeout(r, 120_000))]);
    for (const smp of samples) smp.outageMs = outage(smp.shard, killTimes[smp.kill]);
    for (const [why, n] of failures) console.error(`failover bench: ${n} game(s) not played: ${why}…`);
  } finally {
    playing = false;
    await nc?.close().catch(() => {});
    await Promise.all(nodes.map((n) => n.stop()));
    await nats.stop();
    settings.remove();
  }

  /**
   * The shard's outage at a kill, over the games under way across it (a move acknowledged before
   * and one after): their last acknowledgement before it to their first after it.
   */
  function outage(shard: number, killAt: number): number | undefined {
    const before = new Map<string, number>();
    const after = new Map<string, number>();
    for (const a of acks) {
      const id = gameIds.get(a.game);
      if (id === undefined || shardOf(id, SHARDS) !== shard) continue;
      if (a.at <= killAt) before.set(a.game, Math.max(before.get(a.game) ?? -Infinity, a.at));
      else after.set(a.game, Math.min(after.get(a.game) ?? Infinity, a.at));
    }
    const across = [...before.keys()].filter((g) => after.has(g));
    if (across.length === 0) return undefined;
    return Math.min(...across.map((g) => after.get(g)!)) - Math.max(...across.map((g) => before.get(g)!));
  }
  return report(samples, kills);
}

function report(samples: Sample[], kills: number): BenchRow[] {
  for (const x of samples) {
    console.error(
      `kill ${x.kill} node ${x.victim} shard ${x.shard}: expiry→gained ${x.gainedAt - x.expiry} ms, gained→serving ${x.servingAt - x.gainedAt} ms, ` +
        `takeover ${x.servingAt - x.expiry} ms, outage ${x.outageMs ?? '-'} ms`,
    );
  }
  const note = `${kills} kills -9, ${samples.length} shards taken over, lease TTL ${TTL_MS} ms, ${SHARDS} shards, ${GAMES} games at once`;
  const rows: BenchRow[] = [];
  const add = (metric: string, xs: number[], what: string) => {
    if (xs.length === 0) return;
    rows.push({ bench: 'cluster-failover', metric: `${metric} p50 ms`, value: pct(xs, 50), note: `${what}; ${note}` });
    rows.push({ bench: 'cluster-failover', metric: `${metric} p99 ms`, value: pct(xs, 99), note: `max of ${xs.length}` });
  };
  add('takeover', samples.map((x) => x.servingAt - x.expiry), 'lease expiry (last renewal + TTL) to the new owner serving');
  add('detection', samples.map((x) => x.gainedAt - x.expiry), 'lease expiry to the new owner gaining it');
  add('opening', samples.map((x) => x.servingAt - x.gainedAt), 'lease gained to serving (log takeover, replay, resume)');
  const outages = samples.flatMap((x) => (x.outageMs === undefined ? [] : [x.outageMs]));
  add('full outage', outages, `last acknowledged move before the kill to the first after it, per shard with games across the kill (${outages.length})`);
  return rows;
}
