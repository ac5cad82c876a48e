// The main thread's side of the shards: the GameFactory, MirrorPairFactory and GameDirectory the
// edge and the services use, with every actor in a shard. A game's shard is fixed by its id
// (protocol/messages.ts: shardIndex), so main needs no routing table and a restarted server finds the same
// shard for the same game. Every game command goes by one generic path (`command`, a `game` message),
// every request waits in `Requests` (resent until answered, with a deadline), replies keep the
// replicas current through `ReplicaFeed`, and the channels, batching and restarts are `ShardLinks`'.
// A shard that dies is started again and given its live games back from the store; the streams of
// its games are closed (their subscribers reconnect and get a fresh Snapshot).
import type { Clock } from '../../domain/clock.js';
import type { Logger } from '../../domain/log.js';
import type { GameRecord } from '../../domain/records.js';
import { commandSpec } from '../../game/commands.js';
import { withDefaults, type GameConfig } from '../../game/game-config.js';
import { GameIndex, IndexedGames } from '../../game/game-index.js';
import type {
  GameDirectory, GameFactory, GameHandle, GameLifecycleListener, MirrorPairFactory, NewGameSpec,
} from '../../game/types.js';
import { isEnded } from '../../game/view.js';
import type { Store } from '../../store/types.js';
import type { GameReplica, ReplicaLink } from './replica.js';
import { ReplicaFeed } from './replica-feed.js';
import { shardIndex, shardKey, type Command, type ShardReply } from '../protocol/messages.js';
import { Requests } from './requests.js';
import { ShardLinks, type ShardLink } from './shard-links.js';
import type { FollowedGames, ShardedGamesDeps } from './sharded-games-deps.js';

export { HELD_MAX } from './shard-links.js';
export type { ShardedGamesDeps } from './sharded-games-deps.js';

/** Requests waiting for a shard's answer, across shards; past it a new one is answered at once. */
export const PENDING_MAX = 100_000;

export class ShardedGames extends IndexedGames<GameReplica> implements GameFactory, MirrorPairFactory, GameDirectory, ReplicaLink {
  protected readonly gameIndex: GameIndex<GameReplica>;
  private readonly cfg;
  private readonly links: ShardLinks;
  private readonly shards: ShardLink[];
  private readonly requests: Requests;
  /** Public for the cluster's recheck of every replica after a partition (cluster/transport/replica-recheck.ts). */
  readonly feed: ReplicaFeed;
  /** Main-thread seconds spent applying shard replies (replicas, store writes, the fan-out to streams). */
  applySeconds = 0;
  private stopping = false;
  private readonly verdictTimeoutMs: number;
  private readonly requestTimeoutMs: number;
  /** Cluster mode: the games followed, and the shards owned here (all of their updates arrive). */
  private readonly interest: FollowedGames | undefined;
  private readonly ownedShards = new Set<number>();

  constructor(private readonly deps: ShardedGamesDeps) {
    super();
    if (!Number.isInteger(deps.shards) || deps.shards < 1) throw new Error(`shards must be a positive integer, got ${deps.shards}`);
    this.cfg = withDefaults(deps.config);
    this.verdictTimeoutMs = deps.verdictTimeoutMs ?? 30_000;
    this.requestTimeoutMs = deps.requestTimeoutMs ?? 300_000;
    this.requests = new Requests({
      clock: deps.clock,
      max: deps.pendingMax ?? PENDING_MAX,
      resendMs: deps.resendMs ?? 1000,
      maxSends: deps.maxSends ?? 8,
      // A resend to a restarting shard is not held again: the first send is, and its rid is the same.
      send: (index, c, again, bypass) => {
        const shard = this.shards[index];
        if (!again || bypass || !shard.restarting) this.links.enqueue(shard, c, bypass);
      },
    });
    this.gameIndex = new GameIndex(deps.store, { size: this.cfg.archiveSize, bytes: this.cfg.archiveBytes }, deps.listeners, deps.log);
    this.links = new ShardLinks({
      transport: deps.transport, count: deps.shards, clock: deps.clock, log: deps.log,
      replies: (index, batch) => this.receive(index, batch),
      lost: (index) => this.lost(index),
      refuse: (c, index) => void ('rid' in c && this.requests.fail(c.rid, `shard ${index} is restarting`)),
      reopened: (index, err) => this.reopened(index, err),
      stopping: () => this.stopping,
    });
    this.shards = this.links.all;
    this.interest = deps.cluster?.follow({
      clock: deps.clock,
      owned: (id) => this.ownedShards.has(this.shardOfLive(id).index),
      subscribers: (id) => this.gameIndex.get(id)?.subscriberCount ?? 0,
      subscribe: (id, on) => this.shardOfLive(id).channel.follow?.(id, on) ?? Promise.resolve(),
      catchUp: async (id) => {
        const g = this.gameIndex.get(id);
        if (!g) return;
        // Updates that arrive before the owner's answer are not applied (they may skip some): subscribed
        // first, so none after that answer is missed.
        g.syncing = true;
        await this.shardOfLive(id).channel.follow?.(id, true).catch(() => {});
        await this.feed.refresh(id);
      },
    });
    this.feed = new ReplicaFeed({
      gameIndex: this.gameIndex, store: deps.store, clock: deps.clock, log: deps.log, link: this, requests: this.requests,
      inlineLeafCap: this.cfg.inlineLeafCap, syncTimeoutMs: this.verdictTimeoutMs,
      shardOf: (id) => this.shardOfLive(id).index,
      write: (p, id) => this.write(p, id),
      requestGame: deps.cluster ? (id, index) => this.requestGame(id, index) : undefined,
      followed: this.interest ? (id) => this.interest!.has(id) : undefined,
      retired: (id) => this.interest?.retire(id),
      onTree: deps.onTree, onStoreWrite: deps.onStoreWrite,
    });
  }

  /** Requests waiting for a shard's answer and commands held for a restarting one (tests check that it empties). */
  waiting(): number {
    return this.requests.size + this.shards.reduce((n, s) => n + s.held.length, 0);
  }

  /** Per-shard CPU seconds (from the shards' last stats), for /metrics. */
  shardCpuSeconds(): number[] {
    return this.shards.map((s) => s.cpuSeconds);
  }

  /** Shards being started again after dying (/ready). */
  readonly restartingShards = (): number[] => this.shards.filter((s) => s.restarting).map((s) => s.index);

  /** Per-shard V8 heap (from the shards' last stats), for /metrics. */
  shardHeapBytes(): { used: number; total: number }[] {
    return this.shards.map((s) => s.heap);
  }

  private shardOf(id: string, mirrorOf: string | null): ShardLink {
    return this.shards[shardIndex(shardKey(id, mirrorOf), this.shards.length)];
  }

  /** The logical shard of a live game (cluster mode: which node owns it). */
  shardOfGame(id: string): number {
    return this.shardOfLive(id).index;
  }

  /** Cluster mode: a live game with no replica here (ReplicaFeed.fetchUnknown), also each one the cluster lists at start. */
  requestGame(id: string, index?: number): void {
    if (!this.deps.cluster || this.stopping) return;
    this.feed.fetchUnknown(id, index ?? this.shardOf(id, this.deps.store.getGame(id)?.mirrorOf ?? null).index);
  }

  /** Cluster mode (the game gate's wait): a game followed again, or one with no replica here yet (its shard between owners), is asked for. */
  ready = (id: string): Promise<void> | undefined => (this.gameIndex.get(id) ? this.interest?.touch(id) : this.feed.fetched(id));
  /** Cluster mode (the game gate's wait for a tree): a live game owned elsewhere, as its owner has it now. */
  current = (id: string): Promise<void> | undefined =>
    this.interest && this.gameIndex.get(id)?.isActive() && !this.ownedShards.has(this.shardOfLive(id).index) ? this.feed.current(id) : undefined;
  /** Cluster mode (the game gate's 503): game `id` is live in the cluster, not on this node's replicas yet. */
  awaiting = (id: string): boolean => this.feed.awaiting(id);

  /** Cluster mode: this node owns shard `index` now (`on`: every update of its games comes here) or no longer. */
  async followShard(index: number, on: boolean): Promise<void> {
    const shard = this.shards[index];
    if (on) this.ownedShards.add(index);
    else {
      this.ownedShards.delete(index);
      // The streams still open here on its games go on following them one by one.
      for (const g of this.gameIndex.live()) if (g.subscriberCount > 0 && this.shardOfLive(g.id) === shard) this.interest?.keep(g.id);
    }
    await shard.channel.followAll?.(on);
  }

  /** Updates applied to replicas since the start, games followed one by one now, follows and drops so far (/metrics). */
  replicaStats(): { applied: number; followed: number; follows: number; drops: number } {
    return { applied: this.feed.applied, followed: this.interest?.size ?? 0, follows: this.interest?.follows ?? 0, drops: this.interest?.drops ?? 0 };
  }

  /** The shard of a game main knows as live (its record says whether it has a mirror-pair twin). */
  private shardOfLive(id: string): ShardLink {
    return this.shardOf(id, this.gameIndex.get(id)?.record().mirrorOf ?? null);
  }

  // ---- factory --------------------------------------------------------------------------------

  async create(spec: NewGameSpec): Promise<GameHandle> {
    if (this.stopping) throw new Error('game registry is stopping');
    const id = this.deps.newId();
    await this.made(() => this.appear(this.shardOf(id, null), (rid) => ({ t: 'create', rid, id, spec }), [id], 'gameStarted'));
    return this.created(id);
  }

  async createMirrorPair(spec: NewGameSpec): Promise<[GameHandle, GameHandle]> {
    if (this.stopping) throw new Error('game registry is stopping');
    const ids: [string, string] = [this.deps.newId(), this.deps.newId()];
    await this.made(() => this.appear(this.shardOf(ids[0], ids[1]), (rid) => ({ t: 'pair', rid, ids, spec }), ids, 'gameStarted'));
    return [this.created(ids[0]), this.created(ids[1])];
  }

  /** Cluster mode: a create caught by a shard move is sent again (the cluster's create retry: ShardedGamesDeps.cluster). */
  private made(create: () => Promise<void>): Promise<void> {
    return this.deps.cluster ? this.deps.cluster.createAgainIfMoved(create, { log: this.deps.log, stopping: () => this.stopping }) : create();
  }

  /** The handle of a game the shard announced; an ended one is read from the directory. */
  private created(id: string): GameHandle {
    const g = this.gameIndex.get(id) ?? this.gameIndex.find(id);
    if (!g) throw new Error(`game ${id} was created but never announced`);
    return g;
  }

  /** Hands every live game of the store to its shard; resolves once each has settled. */
  async resume(): Promise<number> {
    const recs = this.deps.store.listLiveGames().filter((r) => !isEnded(r));
    await Promise.all(this.shards.map((s) => this.resumeShard(s, recs)));
    if (recs.length > 0) this.deps.log.info({ games: recs.length, shards: this.shards.length }, 'live games resumed');
    return recs.length;
  }

  private async resumeShard(shard: ShardLink, all: readonly GameRecord[]): Promise<void> {
    const recs = all.filter((r) => this.shardOf(r.id, r.mirrorOf) === shard);
    if (recs.length === 0) return;
    await this.appear(shard, (rid) => ({ t: 'resume', rid, recs }), recs.map((r) => r.id), 'gameResumed', true);
  }

  /**
   * A command that makes games appear on a shard (create, pair, resume). Each is announced with the
   * command's rid while it waits; one whose announcement was lost is asked for by `sync` once the
   * command is answered, so main has every game it made when this resolves.
   */
  private async appear(
    shard: ShardLink, make: (rid: number) => Extract<Command, { t: 'create' | 'pair' | 'resume' }>, ids: readonly string[],
    hook: 'gameStarted' | 'gameResumed', bypass = false,
  ): Promise<void> {
    const announced = await this.request(shard, make, { announces: true, bypass });
    const missed = ids.filter((id) => !announced.has(id));
    if (missed.length === 0) return;
    this.deps.log.warn({ shard: shard.index, games: missed.length }, 'games announced by no message: asking their shard');
    const got = await Promise.allSettled(missed.map((id) => this.fetch(shard, id, hook, bypass)));
    const failed = got.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
  }

  /** A game's whole state, asked of its shard, taken as if announced. */
  private fetch(shard: ShardLink, id: string, hook: 'gameStarted' | 'gameResumed', bypass: boolean): Promise<void> {
    return new Promise((resolve, reject) => {
      const sent = this.requests.open(shard.index, (rid) => ({ t: 'sync', rid, id }), { timeoutMs: this.requestTimeoutMs, bypass }, {
        settle: (r) => {
          if (r.t !== 'synced') return reject(new Error(r.t === 'failed' ? r.error : `unexpected ${r.t}`));
          if (isEnded(r.rec) && r.results) this.write(this.deps.store.finishGame(r.rec, r.results), id);
          this.feed.announced(r.rec, r.tree, hook, r.seq);
          resolve();
        },
        fail: (why) => reject(new Error(why)),
      });
      if (!sent) reject(new Error('too many requests waiting for the game shards'));
    });
  }

  /** Resolves once every shard has nothing waiting or running, and its replies are applied. */
  async idle(): Promise<void> {
    await Promise.all(this.shards.map((s) => this.request(s, (rid) => ({ t: 'idle', rid })).catch(() => {})));
  }

  /** Stops every shard's actors (their timers, their running commands), closes the subscribers. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.interest?.stop();
    await Promise.all(
      this.shards.filter((s) => !s.restarting).map((s) => this.request(s, (rid) => ({ t: 'stop', rid })).catch(() => {})),
    );
    for (const g of this.gameIndex.live()) g.closeSubscribers();
    this.requests.stop();
    await this.links.close();
  }

  /** Tests: makes shard `index` throw an uncaught error, as a bug would. */
  crash(index: number): void {
    this.links.enqueue(this.shards[index], { t: 'crash' });
  }

  // ---- game commands: one path for all (src/game/commands.ts) ------------------------------------

  /** Sends a game command to the game's shard; its reply, or the command's `lost` answer (ReplicaLink). */
  command(id: string, name: string, payload: unknown): Promise<unknown> {
    const spec = commandSpec(name);
    if (spec === undefined) return Promise.reject(new Error(`unknown game command ${name}`));
    const shard = this.shardOfLive(id);
    void this.interest?.touch(id); // a command through this node: its player reads the game here
    return new Promise((resolve) => {
      const sent = this.requests.open(shard.index, (rid) => ({ t: 'game', rid, id, name, payload }), { timeoutMs: this.verdictTimeoutMs }, {
        settle: (r) => resolve(r.t === 'answer' ? r.reply : spec.lost),
        fail: () => resolve(spec.lost),
      });
      if (!sent) resolve(spec.lost);
    });
  }

  /** Asks the shard for a replica's large tree again (ReplicaLink). */
  refetchTree(id: string): void {
    this.feed.refetchTree(id);
  }

  // ---- the channel ----------------------------------------------------------------------------

  /** A control request: resolves with the games it announced when `done`, rejects on `failed` or its deadline. */
  private request(
    shard: ShardLink, make: (rid: number) => Extract<Command, { rid: number }>, opts: { announces?: boolean; bypass?: boolean } = {},
  ): Promise<ReadonlySet<string>> {
    return new Promise((resolve, reject) => {
      const sent = this.requests.open(shard.index, make, { timeoutMs: this.requestTimeoutMs, ...opts }, {
        settle: (r, announced) => (r.t === 'done' ? resolve(announced) : reject(new Error(r.t === 'failed' ? r.error : `unexpected ${r.t}`))),
        fail: (why) => reject(new Error(why)),
      });
      if (!sent) reject(new Error('too many requests waiting for the game shards'));
    });
  }

  private receive(index: number, batch: readonly ShardReply[]): void {
    const t0 = performance.now();
    if (this.deps.aroundBatch) this.deps.aroundBatch(() => this.replies(index, batch));
    else this.replies(index, batch);
    this.applySeconds += (performance.now() - t0) / 1000;
  }

  private replies(index: number, batch: readonly ShardReply[]): void {
    for (const r of batch) {
      try {
        this.reply(index, r);
      } catch (e) {
        this.deps.log.error({ shard: index, reply: r.t, err: e instanceof Error ? e.stack ?? e.message : String(e) }, 'shard reply failed');
      }
    }
  }

  private reply(index: number, r: ShardReply): void {
    switch (r.t) {
      case 'update':
        return this.feed.update(r, index);
      case 'started':
      case 'resumed': {
        // Taken only while the command that made the game waits, and once (a late or repeated one is not).
        // Cluster mode: rid 0 is an owner's announcement to every node (a game created for another
        // node, or taken over): a new replica, or one that starts over from the owner's state.
        if (r.rid === 0) {
          if (!this.deps.cluster || (r.t === 'started' && this.gameIndex.get(r.rec.id))) return;
          return this.feed.announced(r.rec, r.t === 'resumed' ? r.tree : null, r.t === 'started' ? 'gameStarted' : 'gameResumed', r.seq ?? 0);
        }
        const w = this.requests.peek(r.rid);
        if (!w?.announced || w.announced.has(r.rec.id)) return;
        w.announced.add(r.rec.id);
        return this.feed.announced(r.rec, r.t === 'resumed' ? r.tree : null, r.t === 'started' ? 'gameStarted' : 'gameResumed', r.seq ?? 0);
      }
      case 'write':
        this.write(r.results ? this.deps.store.finishGame(r.rec, r.results) : this.deps.store.putGame(r.rec), r.rec.id);
        return;
      case 'answer':
      case 'synced':
      case 'done':
      case 'failed':
        // The first reply settles its request; a repeated or late one finds nothing waiting.
        return this.requests.answer(r);
      case 'heads':
        return this.feed.heads(this.shards[index], r.seqs);
      case 'ended':
        return this.feed.endedElsewhere(r.rec);
      case 'stats':
        this.shards[index].cpuSeconds = r.cpuSeconds;
        this.shards[index].heap = { used: r.heapUsed, total: r.heapTotal };
        return;
    }
  }

  /** A forwarded write: the memory store applies it at once; a failure is logged (it cannot be undone). */
  private write(p: Promise<void>, id: string): void {
    p.catch((e: unknown) => this.deps.log.error({ gameId: id, err: String(e) }, 'could not store a shard write'));
  }

  // ---- a shard dies ---------------------------------------------------------------------------

  /** Whatever waited on the dead shard gets an answer now; its games' streams end. */
  private lost(index: number): void {
    this.requests.failShard(index, `shard ${index} is restarting`);
    // Events between what main saw and what the store holds are gone with the thread: the streams of
    // its games end, and a reconnecting subscriber starts from a fresh Snapshot.
    // Its next instance counts updates afresh: what the dead one reported says nothing any more.
    for (const g of this.gameIndex.live()) {
      if (this.shardOfLive(g.id).index !== index) continue;
      g.closeSubscribers();
      g.headSeq = 0;
    }
  }

  /** The shard is open again: its live games handed back; those whose end the store holds end here too. */
  private async reopened(index: number, err: Error): Promise<void> {
    const shard = this.shards[index];
    this.deps.onRestart?.(index, err);
    try {
      // A memory server's live versions are its replicas' records; LMDB's are in the store.
      const live = this.deps.forwarded ? this.gameIndex.live().map((g) => g.record()) : this.deps.store.listLiveGames();
      await this.resumeShard(shard, live.filter((r) => !isEnded(r)));
    } catch (e) {
      this.deps.log.error({ shard: index, err: String(e) }, 'restarted shard could not resume its games');
    }
    // A game main still shows live whose end the store holds (the update was lost with the thread).
    for (const g of this.gameIndex.live()) {
      if (this.shardOfLive(g.id) !== shard) continue;
      const stored = this.deps.store.getGame(g.id);
      if (stored && isEnded(stored)) {
        g.reset(stored, null);
        this.gameIndex.retire(g, stored);
        this.gameIndex.notify('gameEnded', g, stored);
      }
    }
  }
}
