// The cluster side of the composition root (`dicechess serve --cluster … --node NAME`): connects to
// the NATS servers, opens the cluster's store, and once main.ts has built the games and the
// services, takes part in shard ownership: every logical shard this node holds runs in a ShardHost
// here, fed over NATS (cluster/shard-hosts.ts); every node's ShardedGames reaches every shard through
// the NatsShardTransport. docs/CLUSTER.md describes the whole.
import type { Config } from './server-config.js';
import type { Clock } from './domain/clock.js';
import type { Logger } from './domain/log.js';
import type { GameRecord } from './domain/records.js';
import type { Result } from './domain/result.js';
import type { GameConfig } from './game/game-config.js';
import type { HouseKind } from './game/house.js';
import type { GameHandle, GameLifecycleListener } from './game/types.js';
import { connectCluster, leaseBucket, openBucket, type NatsConnection } from './cluster/nats.js';
import { ShardOwnership } from './cluster/ownership.js';
import { NatsShardTransport } from './cluster/nats-transport.js';
import { ShardHosts } from './cluster/shard-hosts.js';
import { KvBotStore, TICKET_TTL_MS } from './cluster/bots.js';
import { ShardHost } from './shard/host.js';
import { shardIndex, shardKey } from './shard/protocol.js';
import type { ShardedGames } from './shard/sharded-games.js';
import { MemoryStore } from './store/memory.js';
import type { BotRecord } from './domain/records.js';
import type { GameStore, Store } from './store/types.js';

/** A service that runs on one node of the cluster at a time. */
export interface ClusterSingleton {
  name: string;
  start(): void | Promise<void>;
  stop(): Promise<void>;
}

export interface ClusterParts {
  registry: ShardedGames;
  clock: Clock;
  games: GameConfig;
  housePlayers: Map<string, HouseKind>;
  random?: () => number;
  singletons: ClusterSingleton[];
}

/**
 * Until the cluster's own store lands: bots and tokens shared through the bots bucket (any node
 * authenticates any bot), the rest of the store kept by each node in memory.
 */
class SharedBotsMemoryStore extends MemoryStore {
  constructor(private readonly shared: KvBotStore) {
    super();
  }
  override getBot(id: string): BotRecord | undefined {
    return this.shared.getBot(id);
  }
  override getBotByTokenHash(tokenHash: string): BotRecord | undefined {
    return this.shared.getBotByTokenHash(tokenHash);
  }
  override createBot(bot: BotRecord): Promise<boolean> {
    return this.shared.createBot(bot);
  }
  override updateBot(bot: BotRecord): Promise<void> {
    return this.shared.updateBot(bot);
  }
  override listBots(): BotRecord[] {
    return this.shared.listBots();
  }
  override modifyBot(id: string, change: (bot: BotRecord) => BotRecord | null): Promise<BotRecord | undefined> {
    return this.shared.modifyBot(id, change);
  }
  override botsRevision(): number {
    return this.shared.botsRevision();
  }
  override async close(): Promise<void> {
    this.shared.close();
    await super.close();
  }
}

async function openStore(nc: NatsConnection, replicas: number): Promise<Store> {
  const bots = await KvBotStore.open(
    await openBucket(nc, { bucket: 'dc-bots', replicas }),
    await openBucket(nc, { bucket: 'dc-bot-tickets', replicas, ttlMs: TICKET_TTL_MS }),
  );
  return new SharedBotsMemoryStore(bots);
}

/** The games of one logical shard in the node's store (until the game log holds them). */
function shardGames(store: Store, shard: number, shards: number): GameStore & { live(): GameRecord[] } {
  const mine = (r: GameRecord): boolean => shardIndex(shardKey(r.id, r.mirrorOf), shards) === shard;
  return {
    getGame: (id) => store.getGame(id),
    listLiveGames: () => store.listLiveGames().filter(mine),
    live: () => store.listLiveGames().filter(mine),
    putGame: (g) => store.putGame(g),
    finishGame: (g, results) => store.finishGame(g, results),
  };
}

export class ClusterNode {
  readonly transport: NatsShardTransport;
  private ownership: ShardOwnership | undefined;
  private hosts: ShardHosts | undefined;
  private leaderTimer: { cancel(): void } | undefined;
  private leading = false;
  private switching: Promise<void> = Promise.resolve();
  private parts: ClusterParts | undefined;
  private closed = false;

  private constructor(
    readonly config: Config['cluster'],
    readonly nc: NatsConnection,
    readonly store: Store,
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {
    this.transport = new NatsShardTransport({ nc, node: config.node, clock, deadlineMs: Math.round(config.leaseTtlMs * 1.5) });
  }

  /** Connects and opens the store; the shards are taken once `start` is given the games. */
  static async open(config: Config['cluster'], clock: Clock, log: Logger): Promise<Result<ClusterNode, string>> {
    let nc: NatsConnection;
    try {
      nc = await connectCluster(config.servers, `dicechess-${config.node}`);
    } catch (e) {
      return { ok: false, error: `cluster: cannot connect to ${config.servers.join(',')}: ${(e as Error).message}` };
    }
    try {
      const store = await openStore(nc, config.replicas);
      return { ok: true, value: new ClusterNode(config, nc, store, clock, log) };
    } catch (e) {
      await nc.close().catch(() => {});
      return { ok: false, error: `cluster: cannot open the store: ${(e as Error).message}` };
    }
  }

  get shards(): number {
    return this.config.shards;
  }

  /** True when this node owns the game's shard now. */
  ownsGame(g: GameHandle): boolean {
    return this.ownership?.owns(this.parts?.registry.shardOfGame(g.id) ?? -1) === true;
  }

  /** A lifecycle listener that sees only the games whose shard this node owns (webhook deliveries). */
  ownedOnly(l: GameLifecycleListener): GameLifecycleListener {
    return {
      gameStarted: (g) => this.ownsGame(g) && l.gameStarted?.(g),
      gameResumed: (g) => this.ownsGame(g) && l.gameResumed?.(g),
      gameEnded: (g, rec) => l.gameEnded?.(g, rec),
    };
  }

  /** Joins shard ownership, adopts the cluster's live games, and runs the singletons on the leader. */
  async start(parts: ClusterParts): Promise<void> {
    this.parts = parts;
    const { config, nc, clock, log } = this;
    this.hosts = new ShardHosts({
      nc,
      clock,
      log,
      leaseHeld: (s) => this.ownership?.owns(s) === true,
      open: async (shard, post) => {
        const games = shardGames(this.store, shard, config.shards);
        const host = new ShardHost({
          store: { mode: 'shared', games },
          clock,
          config: parts.games,
          log,
          housePlayers: parts.housePlayers,
          random: parts.random,
          statsEveryMs: 0,
          later: (fn) => setImmediate(fn),
          post,
        });
        return { receive: (b) => host.receive(b), live: games.live(), close: async () => {} };
      },
    });
    const kv = leaseBucket(await openBucket(nc, { bucket: 'dc-shards', replicas: config.replicas, ttlMs: config.leaseTtlMs }));
    const hosts = this.hosts;
    this.ownership = new ShardOwnership({
      kv,
      node: config.node,
      shards: config.shards,
      ttlMs: config.leaseTtlMs,
      clock,
      onGained: (s) => hosts.gained(s),
      onLost: (s, why) => {
        log.warn({ shard: s, why }, 'shard lease lost');
        void hosts.stop(s);
      },
      drain: (s) => hosts.stop(s),
    });
    this.ownership.start();
    for (const rec of this.store.listLiveGames()) parts.registry.adopt(rec.id);
    this.checkLeader();
  }

  /**
   * The singletons run on the node named first among the members this node sees; a view that
   * changes moves them (stopped here, started there).
   */
  private checkLeader(): void {
    if (this.closed || !this.ownership || !this.parts) return;
    const view = this.ownership.view();
    const lead = view.length > 0 && view[0] === this.config.node;
    if (lead !== this.leading) {
      this.leading = lead;
      const singletons = this.parts.singletons;
      this.switching = this.switching.then(async () => {
        for (const s of singletons) {
          try {
            if (lead) await s.start();
            else await s.stop();
          } catch (e) {
            this.log.error({ singleton: s.name, err: String(e) }, lead ? 'could not start' : 'could not stop');
          }
        }
        this.log.info({ leading: lead, singletons: singletons.map((s) => s.name) }, lead ? 'running the singletons' : 'singletons stopped here');
      });
    }
    this.leaderTimer = this.clock.schedule(Math.max(250, Math.round(this.config.leaseTtlMs / 3)), () => this.checkLeader());
  }

  /** Stops the singletons, hands every shard back (drained), and closes the connection. */
  async close(): Promise<void> {
    this.closed = true;
    this.leaderTimer?.cancel();
    await this.switching;
    if (this.leading && this.parts) for (const s of this.parts.singletons) await s.stop().catch(() => {});
    this.leading = false;
    await this.ownership?.stop().catch(() => {});
    await this.hosts?.stopAll();
  }

  /** After the store: the connection goes last. */
  async disconnect(): Promise<void> {
    await this.nc.drain().catch(() => {});
  }
}
