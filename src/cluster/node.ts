// The cluster side of the composition root (`dicechess serve --cluster … --node NAME`): connects to
// the NATS servers, opens the cluster's store, and once main.ts has built the games and the
// services, takes part in shard ownership: every logical shard this node holds runs in a ShardHost
// here, fed over NATS (coordination/owned-shards.ts); every node's ShardedGames reaches every shard through
// the NatsShardTransport. docs/CLUSTER.md describes the whole.
import type { Config } from '../server-config.js';
import type { Clock } from '../domain/clock.js';
import type { Logger } from '../domain/log.js';
import type { Result } from '../domain/result.js';
import type { GameConfig } from '../game/game-config.js';
import type { HouseKind } from '../game/house.js';
import type { GameHandle, GameLifecycleListener } from '../game/types.js';
import { connectCluster, leaseBucket, openBucket, type NatsConnection } from './transport/nats.js';
import { explainConnectError, natsClientOptions } from './transport/nats-auth.js';
import { ConnectionState } from './transport/connection-state.js';
import { ReplicaRecheck } from './transport/replica-recheck.js';
import { ShardOwnership } from './coordination/ownership.js';
import { NatsShardTransport } from './transport/nats-transport.js';
import { OwnedShards } from './coordination/owned-shards.js';
import { ClusterStore } from './store/cluster-store.js';
import { GameLog } from './log/game-log.js';
import { openLiveIndex, type LiveIndex } from './log/live-index.js';
import { LogGameStore } from './log/log-game-store.js';
import { Singletons, type SingletonService } from './coordination/singletons.js';
import { ResultsQueue } from './store/results.js';
import { ResultsFeed } from './store/rating-feed.js';
import { connectMayPass, StartWait } from './start-wait.js';
import { ShardHost } from '../shard/owner/host.js';
import type { ShardedGames } from '../shard/main/sharded-games.js';
import type { ShardReply } from '../shard/protocol/messages.js';
import type { GameRecord } from '../domain/records.js';
import { hostGameConfig } from './coordination/host-config.js';

export interface ClusterParts {
  sharded: ShardedGames;
  clock: Clock;
  games: GameConfig;
  housePlayers: Map<string, HouseKind>;
  random?: () => number;
  singletons: SingletonService[];
}


export class ClusterNode {
  readonly transport: NatsShardTransport;
  private ownership: ShardOwnership | undefined;
  private hosts: OwnedShards | undefined;
  private singletons: Singletons | undefined;
  private parts: ClusterParts | undefined;
  private readonly ownedListeners: GameLifecycleListener[] = [];
  private readonly connection: ConnectionState;
  /** Every replica here asked of its owner again after a partition (replica-recheck.ts). */
  private recheck: ReplicaRecheck | undefined;

  private constructor(
    readonly config: Config['cluster'],
    readonly nc: NatsConnection,
    readonly store: ClusterStore,
    private readonly results: ResultsQueue,
    private readonly gameLog: GameLog,
    private readonly liveIndex: LiveIndex,
    private readonly clock: Clock,
    private readonly log: Logger,
    /** The start-up budget: `start` and the sharing buses wait for the cluster under it too. */
    readonly startWait: StartWait,
  ) {
    this.transport = new NatsShardTransport({
      nc, node: config.node, clock, deadlineMs: Math.round(config.leaseTtlMs * 1.5),
      onPartsDropped: (why) => log.warn({ why }, 'a shard reply sent in parts was dropped (the game resyncs)'),
    });
    this.connection = new ConnectionState(nc, () => this.recheck?.start('NATS connection back'));
  }

  /** For /ready: NATS's state (undefined: connected), and shards whose lease is held here but not yet served. */
  readiness(): { nats: string | undefined; unserved: number[]; started: boolean } {
    const nats = this.connection.problem();
    if (this.ownership === undefined || this.hosts === undefined) return { nats, unserved: [], started: false };
    const serving = new Set(this.hosts.serving());
    return { nats, unserved: this.ownership.owned().filter((s) => !serving.has(s)), started: true };
  }

  /**
   * Connects and opens the store; the shards are taken once `start` is given the games.
   * `maxResultsInFlight`: results the rater may hold unacknowledged (its largest batch). Every step
   * of start-up (here, `start` and the sharing buses) waits for the cluster within one budget,
   * `config.startTimeoutMs`; `onWait` is told each time a step waits, with the cause.
   */
  static async open(
    config: Config['cluster'], clock: Clock, log: Logger,
    o: { maxResultsInFlight?: number; onWait?: (step: string, cause: string) => void } = {},
  ): Promise<Result<ClusterNode, string>> {
    // Credentials and TLS: a missing or malformed file stops the node here, naming the setting.
    const security = natsClientOptions(config.servers, config.nats);
    if (!security.ok) return { ok: false, error: `cluster: ${security.error}` };
    const wait = new StartWait({ timeoutMs: config.startTimeoutMs, log, onWait: o.onWait });
    try {
      // The servers may not listen yet (started with the node), and then JetStream may not be ready
      // (no meta leader yet, too few current peers to place an R3 stream, a request unanswered on a
      // busy cluster): both are waited for. Each try of the opening is on a fresh connection, whose
      // closing drops whatever the failed try had opened on it (watches, consumers).
      let nc: NatsConnection | undefined;
      const opened = await wait.step('opening the store', async () => {
        // Refused credentials and an untrusted certificate are said in words, and end the waiting.
        const connect = () => connectCluster(config.servers, `dicechess-${config.node}`, security.value).catch((e: unknown) => {
          throw new Error(explainConnectError(e), { cause: e });
        });
        nc = await wait.step(`connecting to ${config.servers.join(',')}`, connect, { retryable: connectMayPass });
        const { replicas } = config;
        // Finished rated games go to the rater through the results queue (cluster/rating-feed.ts).
        const results = await ResultsQueue.open(nc, { replicas, maxInFlight: o.maxResultsInFlight });
        const [store, gameLog, liveIndex] = await Promise.all([
          ClusterStore.open(nc, { replicas, clock, results, finishedCache: config.finishedCache }),
          GameLog.open(nc, { replicas }),
          openLiveIndex(nc, { replicas }),
        ]);
        return { nc, results, store, gameLog, liveIndex };
      }, { cleanup: async () => void (await nc?.close()) });
      const { results, store, gameLog, liveIndex } = opened;
      return { ok: true, value: new ClusterNode(config, opened.nc, store, results, gameLog, liveIndex, clock, log, wait) };
    } catch (e) {
      return { ok: false, error: (e as Error).message };
    }
  }

  /** Where the rating batch takes its games: the results queue, acknowledged after each batch's write. */
  ratingFeed(): ResultsFeed {
    return new ResultsFeed({ queue: this.results, store: this.store, log: this.log });
  }

  get shards(): number {
    return this.config.shards;
  }

  /** True when this node owns the game's shard now. */
  ownsGame(g: GameHandle): boolean {
    return this.ownership?.owns(this.parts?.sharded.shardOfGame(g.id) ?? -1) === true;
  }

  /**
   * The node that owns (or is about to own) a game's shard, as this node sees it: itself while it
   * holds the shard's lease, else the member the shard is assigned to in its view of the members
   * (sorted names, shard s to member s mod N: what every node's leases settle to). Undefined before
   * the node has joined. A proxy routes a game's requests there (docs/CLUSTER.md, "Routing to the owner").
   */
  ownerOf(gameId: string): string | undefined {
    const ownership = this.ownership;
    if (ownership === undefined || this.parts === undefined) return undefined;
    const shard = this.parts.sharded.shardOfGame(gameId);
    if (ownership.owns(shard)) return this.config.node;
    const members = ownership.view();
    return members.length === 0 ? undefined : members[shard % members.length];
  }

  /**
   * A lifecycle listener that sees only the games whose shard this node owns (webhook deliveries).
   * When this node takes a shard over, it sees the shard's live games resumed (see tookOver).
   */
  ownedOnly(l: GameLifecycleListener): GameLifecycleListener {
    this.ownedListeners.push(l);
    return {
      gameStarted: (g) => this.ownsGame(g) && l.gameStarted?.(g),
      gameResumed: (g) => this.ownsGame(g) && l.gameResumed?.(g),
      gameEnded: (g, rec) => l.gameEnded?.(g, rec),
    };
  }

  /**
   * A shard was taken over with these live games: the owned-only listeners see each resumed, so that a
   * roll the dead owner had not delivered is delivered from here (a game this node already followed
   * is not announced to it again). A game not on this node's replicas yet is looked for again a
   * little later, ten times at most.
   */
  private tookOver(ids: string[], tries = 0): void {
    const missing: string[] = [];
    const resumed: string[] = [];
    for (const id of ids) {
      const g = this.parts?.sharded.find(id);
      if (g === undefined) missing.push(id);
      else if (g.isActive() && this.ownsGame(g)) {
        resumed.push(id);
        for (const l of this.ownedListeners) l.gameResumed?.(g);
      }
    }
    this.log.info({ resumed, missing, tries }, 'taken-over games resumed here');
    if (missing.length > 0 && tries < 10) this.clock.schedule(500, () => this.tookOver(missing, tries + 1));
  }

  /** Joins shard ownership, asks for the cluster's live games, and runs the singletons on the leader. */
  async start(parts: ClusterParts): Promise<void> {
    this.parts = parts;
    const { config, nc, clock, log } = this;
    const { sharded } = parts;
    this.recheck = new ReplicaRecheck({
      clock,
      log,
      live: () => sharded.live().map((g) => g.id),
      ask: (id) => sharded.feed.recheck(id),
      stored: (id) => this.store.loadGame(id),
      ended: (rec) => sharded.feed.endedElsewhere(rec),
      retryMs: 1000,
    });
    this.hosts = new OwnedShards({
      nc,
      clock,
      log,
      node: config.node,
      leaseHeld: (s) => this.ownership?.owns(s) === true,
      served: (_shard, ids) => this.tookOver(ids),
      open: async (shard, post, fenced) => {
        // Every update of the shard's games comes here from now on (before the host announces them).
        await parts.sharded.followShard(shard, true);
        // Taking the shard over: a marker after each live game's last version, then its replay.
        const games = await LogGameStore.open(this.gameLog, {
          node: config.node,
          shard,
          shards: config.shards,
          index: this.liveIndex,
          guard: () => this.ownership?.owns(shard) === true,
          onFenced: (gameId) => {
            log.warn({ shard, gameId }, 'shard taken over by another node: dropping it');
            fenced();
            this.recheck?.start('fenced by the log');
          },
          onFinished: (game, results) => this.store.finishGame(game, results),
          archive: this.store,
          keepFinishedLogs: config.keepFinishedLogs,
          clock,
          log,
        }).catch(async (e: unknown) => {
          await parts.sharded.followShard(shard, false);
          throw e;
        });
        const host = new ShardHost({
          store: { mode: 'shared', games },
          clock,
          config: hostGameConfig(parts.games),
          log,
          housePlayers: parts.housePlayers,
          random: parts.random,
          statsEveryMs: 0,
          later: (fn) => setImmediate(fn),
          // A game's last update is followed by its final record for every node (the others may not
          // follow the game): read from this shard's store, which holds it before the update is sent.
          post: (batch) => post(withEndings(batch, (id) => games.getGame(id))),
          // Update counts start past any an earlier owner reached (1,024 per millisecond of its clock),
          // so the other nodes' replicas see a gap and resync rather than drop the new owner's updates.
          // Wall time on purpose: the count is compared with another process's, and monotonic clocks
          // of two processes share no origin (a wall clock stepped back only makes replicas resync).
          seqBase: () => clock.now() * 1024,
          // A repeat comes from a sender's resend, within its 30 s deadline: a minute of replies is
          // enough, where a count alone would fill for as long as play lasts.
          repliesKeptMs: 60_000,
          // A late sync of an ended game comes within seconds of its end; later reads go to the
          // cluster store. Kept by count alone, a shard's endings filled for an hour of play.
          endedKeptMs: 60_000,
        });
        // A game whose ending the log held although its owner died before telling anyone: every
        // node's replica ends it now (it would otherwise stay live there, with nobody to end it).
        const ended = games.endedOnOpen();
        if (ended.length > 0) post(ended.map((rec) => ({ t: 'ended', rec })));
        return {
          receive: (b) => host.receive(b),
          live: games.listLiveGames(),
          close: async () => {
            await games.close();
            await parts.sharded.followShard(shard, false);
          },
        };
      },
    });
    // JetStream may still be electing its leaders (servers started or restarted with the node): asked again.
    const wait = this.startWait;
    const kv = leaseBucket(await wait.step('opening the shard leases', () => openBucket(nc, { bucket: 'dc-shards', replicas: config.replicas, ttlMs: config.leaseTtlMs })));
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
        this.recheck?.start('shard lease lost');
      },
      drain: (s) => hosts.stop(s),
      log,
    });
    this.ownership.start();
    // The games live now on any shard: this node keeps a record of each (asked of its owner), and
    // follows their updates only while it is asked about them or owns their shard.
    for (let shard = 0; shard < config.shards; shard++) {
      for (const id of await wait.step('listing the live games', () => this.liveIndex.list(shard))) parts.sharded.requestGame(id, shard);
    }
    const singletonKv = leaseBucket(await wait.step('opening the singleton leases', () => openBucket(nc, { bucket: 'dc-singletons', replicas: config.replicas, ttlMs: config.leaseTtlMs })));
    this.singletons = new Singletons({ kv: singletonKv, node: config.node, ttlMs: config.leaseTtlMs, clock, log }, parts.singletons);
    this.singletons.start();
    wait.finish();
  }

  /** Stops the singletons, hands every shard back (drained), and closes the connection. */
  async close(): Promise<void> {
    this.recheck?.stop();
    await this.singletons?.stop().catch(() => {});
    await this.ownership?.stop().catch(() => {});
    await this.hosts?.stopAll();
  }

  /** After the store: the connection goes last. */
  async disconnect(): Promise<void> {
    await this.nc.drain().catch(() => {});
  }
}

/** `batch` with, after each update that ends a game, the game's final record for every node. */
export function withEndings(batch: ShardReply[], final: (id: string) => GameRecord | undefined): ShardReply[] {
  if (!batch.some((r) => r.t === 'update' && 'Ended' in r.head.status)) return batch;
  const out: ShardReply[] = [];
  for (const r of batch) {
    out.push(r);
    if (r.t !== 'update' || !('Ended' in r.head.status)) continue;
    const rec = final(r.id);
    if (rec && 'Ended' in rec.status) out.push({ t: 'ended', rec });
  }
  return out;
}
