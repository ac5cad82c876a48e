// What an operator watches on GET /metrics, gathered at the composition root so that no layer below
// imports prom-client: the game layer is observed through its lifecycle hooks and the times its
// shards report (trees built, store writes), the store through a thin timing wrapper, and the edge
// through the small EdgeMeter interface it declares itself.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { GameRecord } from './domain/records.js';
import type { EdgeMeter, StreamKind } from './edge/deps.js';
import type { GameHandle, GameLifecycleListener } from './game/types.js';
import type { Store } from './store/types.js';
import { totalsCounter } from './metric-totals.js';

/** Store methods that write; every other member passes straight through. */
const STORE_WRITES = ['createBot', 'updateBot', 'modifyBot', 'putGame', 'finishGame', 'applyRatingBatch'] as const;

export interface MetricsSources {
  /** Games in progress. */
  liveGames: () => number;
  /** CPU seconds used so far by each thread that serves (main, then each shard). */
  threadCpu: () => { thread: string; seconds: number }[];
  /** V8 heap of each serving thread (bytes in use, bytes reserved); a shard's from its last stats. */
  threadHeap: () => { thread: string; used: number; total: number }[];
  /** Bytes of large answers not yet taken by their clients (src/edge/send-budget.ts). */
  unsentBytes: () => number;
  /** Main-thread seconds spent on the shards: crossing the channel, and applying what comes back. */
  shardTime: () => { dispatch: number; apply: number };
  /** Game updates applied to this node's replicas, and (cluster mode) the games it follows one by one. */
  replicas?: () => { applied: number; followed: number; follows: number; drops: number };
  /** Cluster mode: shard replies received by subject kind, command batches by the node that took them. */
  cluster?: () => { received: Record<'broadcast' | 'direct' | 'game', number>; batches: Record<'here' | 'elsewhere', number> };
}

export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly turns: Counter;
  private readonly started: Counter;
  private readonly ended: Counter<'termination'>;
  private readonly verdicts: Histogram;
  private readonly streams: Gauge<'kind'>;
  private readonly trees: Histogram;
  private readonly refusals: Counter<'route'>;
  private readonly storeWrites: Histogram<'op'>;
  private readonly shardRestarts: Counter;

  /** A game write made in a shard (its own store handle), reported to main. */
  observeStoreWrite(op: string, seconds: number): void {
    this.storeWrites.observe({ op }, seconds);
  }

  /** A roll's legal-move tree built in a shard, reported to main with its version. */
  observeTree(seconds: number): void {
    this.trees.observe(seconds);
  }

  /** A shard died and was started again. */
  shardRestarted(): void {
    this.shardRestarts.inc();
  }

  constructor(sources: MetricsSources) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    new Gauge({ name: 'dicechess_live_games', help: 'Games in progress', registers, collect() { this.set(sources.liveGames()); } });
    totalsCounter({
      name: 'dicechess_thread_cpu_seconds_total',
      help: 'CPU time used by each serving thread (main, shard-N), from /proc/thread-self/schedstat',
      labelNames: ['thread'],
      registers,
      read: () => sources.threadCpu().map(({ thread, seconds }) => ({ labels: { thread }, value: seconds })),
    });
    new Gauge({
      name: 'dicechess_thread_heap_bytes',
      help: 'V8 heap of each serving thread (main, shard-N): used, and total reserved',
      labelNames: ['thread', 'kind'],
      registers,
      collect() {
        for (const { thread, used, total } of sources.threadHeap()) {
          this.set({ thread, kind: 'used' }, used);
          this.set({ thread, kind: 'total' }, total);
        }
      },
    });
    new Gauge({
      name: 'dicechess_http_unsent_bytes',
      help: 'Bytes of large answers written but not yet taken by their clients (bounded per address and in total)',
      registers,
      collect() { this.set(sources.unsentBytes()); },
    });
    totalsCounter({
      name: 'dicechess_shard_main_seconds_total',
      help: 'Main-thread wall time spent on the game shards (preemption included): dispatch (packing, posting, unpacking batches), apply (mirrors and stream fan-out)',
      labelNames: ['part'],
      registers,
      read: () => {
        const t = sources.shardTime();
        return [{ labels: { part: 'dispatch' }, value: t.dispatch }, { labels: { part: 'apply' }, value: t.apply }];
      },
    });
    const replicas = sources.replicas;
    if (replicas) {
      totalsCounter({
        name: 'dicechess_replica_updates_applied_total',
        help: 'Game updates applied to this node\'s replicas (in a cluster: only of the games it follows or whose shard it owns)',
        registers,
        read: () => [{ labels: {}, value: replicas().applied }],
      });
      new Gauge({
        name: 'dicechess_replica_follows',
        help: 'Cluster mode: games followed one by one because someone asked this node about them: now, started and dropped so far',
        labelNames: ['kind'],
        registers,
        collect() {
          const r = replicas();
          this.set({ kind: 'now' }, r.followed);
          this.set({ kind: 'started' }, r.follows);
          this.set({ kind: 'dropped' }, r.drops);
        },
      });
    }
    const cluster = sources.cluster;
    if (cluster) {
      totalsCounter({
        name: 'dicechess_cluster_replies_received_total',
        help: 'Cluster mode: shard reply messages this node decoded, by subject: broadcast (every node hears it), direct (its own answers), game (a followed game\'s updates)',
        labelNames: ['subject'],
        registers,
        read: () => Object.entries(cluster().received).map(([subject, value]) => ({ labels: { subject }, value })),
      });
      totalsCounter({
        name: 'dicechess_cluster_shard_batches_total',
        help: 'Cluster mode: command batches this node sent to a shard\'s owner, by who took them: here (this node owns the shard) or elsewhere (forwarded)',
        labelNames: ['taken'],
        registers,
        read: () => Object.entries(cluster().batches).map(([taken, value]) => ({ labels: { taken }, value })),
      });
    }
    this.shardRestarts = new Counter({
      name: 'dicechess_shard_restarts_total',
      help: 'Game shards started again after dying (an uncaught error in the worker)',
      registers,
    });
    this.turns = new Counter({ name: 'dicechess_turns_applied_total', help: 'Turns applied (forced passes included)', registers });
    this.started = new Counter({ name: 'dicechess_games_started_total', help: 'Games created (resumed games are not counted again)', registers });
    this.ended = new Counter({
      name: 'dicechess_games_ended_total',
      help: 'Games ended, by termination',
      labelNames: ['termination'],
      registers,
    });
    this.verdicts = new Histogram({
      name: 'dicechess_verdict_seconds',
      help: 'From a move reaching its game to its verdict (applied or refused)',
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers,
    });
    this.streams = new Gauge({ name: 'dicechess_open_streams', help: 'Open ndjson streams, by kind', labelNames: ['kind'], registers });
    // Both kinds show from the start, at 0, so a dashboard never sees a missing series.
    for (const kind of ['account', 'game', 'spectator'] satisfies StreamKind[]) this.streams.set({ kind }, 0);
    this.trees = new Histogram({
      name: 'dicechess_tree_seconds',
      help: 'Legal-move tree builds, one per roll, timed in the game shard that owns the game',
      buckets: [0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.01, 0.1],
      registers,
    });
    this.refusals = new Counter({
      name: 'dicechess_rate_limited_total',
      help: 'Requests refused with 429, by route',
      labelNames: ['route'],
      registers,
    });
    this.storeWrites = new Histogram({
      name: 'dicechess_store_write_seconds',
      help: 'Store writes, from call to commit, by operation',
      labelNames: ['op'],
      buckets: [0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5],
      registers,
    });
  }

  /** Prometheus text exposition. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  /** The edge's seam. */
  readonly edge: EdgeMeter = {
    refused: (route) => this.refusals.inc({ route }),
    streamOpened: (kind) => {
      this.streams.inc({ kind });
      let open = true;
      return () => {
        if (!open) return;
        open = false;
        this.streams.dec({ kind });
      };
    },
    verdictTimer: () => {
      const end = this.verdicts.startTimer();
      return () => void end();
    },
  };

  /** Counts games started, turns applied and games ended (by termination). */
  readonly games: GameLifecycleListener = {
    gameStarted: () => this.started.inc(),
    turnApplied: () => this.turns.inc(),
    gameEnded: (_game: GameHandle, record: GameRecord) => {
      if ('Ended' in record.status) this.ended.inc({ termination: record.status.Ended.over.termination });
    },
  };

  /** The store, with each write timed; reads pass through. */
  timedStore(store: Store): Store {
    const histogram = this.storeWrites;
    const wrapped = new Map<PropertyKey, unknown>();
    for (const op of STORE_WRITES) {
      const write = (store[op] as (...args: unknown[]) => Promise<unknown>).bind(store);
      wrapped.set(op, async (...args: unknown[]) => {
        const end = histogram.startTimer({ op });
        try {
          return await write(...args);
        } finally {
          end();
        }
      });
    }
    return new Proxy(store, {
      get(target, prop) {
        const known = wrapped.get(prop);
        if (known !== undefined) return known;
        const v = Reflect.get(target, prop, target) as unknown;
        if (typeof v !== 'function') return v;
        // Bound once and kept: reads such as getBotByTokenHash run on every request.
        const bound = (v as (...a: unknown[]) => unknown).bind(target);
        wrapped.set(prop, bound);
        return bound;
      },
    });
  }
}
