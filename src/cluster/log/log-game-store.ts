// The store of one logical shard's games on the node that owns it: every committed version goes to the
// game log (game-log.ts) and counts before putGame resolves; opening takes the shard over (markers,
// replay) and settles what a crash left half done.
// Invariant: once an append is refused as fenced, the whole store refuses and `onFenced` is called: the
// node must stop the shard host and discard whatever it still emits. A new game's first version counts
// only if the shard lease (`guard`) was certain when the append was answered.
// Once an ending is archived the game's subject is trimmed from the log, then the game leaves the live
// index: a crash in between leaves it listed, and the next owner, finding it archived, only trims it.
// Order of the writes, and why: (docs/CLUSTER.md, "One shard's games over the log").
import type { Clock } from '../../domain/clock.js';
import { systemClock } from '../../domain/clock.js';
import { silentLogger, type Logger } from '../../domain/log.js';
import { RecentMap } from '../../domain/recent-map.js';
import type { GameRecord, ResultRecord } from '../../domain/records.js';
import type { GameStore } from '../../store/types.js';
import { shardIndex, shardKey } from '../../shard/protocol/messages.js';
import type { GameLog, GameWriter, LogEntry } from './game-log.js';
import type { LiveIndex } from './live-index.js';
import { EndingSettler, type Archive } from './ending-settler.js';
import { encodeVersion, foldVersion, type Folded } from './record-codec.js';

/**
 * A write this store no longer makes: `taken-over`, another node took the shard over; `unanswered`,
 * an append stayed unanswered, so this node can no longer tell what the log holds.
 */
export class FencedError extends Error {
  constructor(readonly gameId: string, readonly shard: number, readonly why: 'taken-over' | 'unanswered') {
    super(
      why === 'taken-over'
        ? `game ${gameId}: shard ${shard} was taken over by another node; this node may no longer write it`
        : `game ${gameId}: an append to the log of shard ${shard} went unanswered; this node no longer writes the shard`,
    );
    this.name = 'FencedError';
  }
}

export interface LogGameStoreOptions {
  /** This node's name (written in takeover markers). */
  node: string;
  shard: number;
  shards: number;
  index: LiveIndex;
  /**
   * Whether this node's lease on the shard is still certain (Lease.held()). Without it, appends are
   * checked against the log after each answer, and a new game's first version is taken on trust: only
   * tests may leave it out.
   */
  guard?: () => boolean;
  /**
   * Called once, when the first write is refused because another node took the shard over, or when
   * an append stayed unanswered for retryForMs (this node can no longer tell what the log holds).
   * Either way the node stops the shard host and discards what it still emits; if it still holds the
   * shard's lease it may open a new store for the shard, which takes the games over from the log.
   */
  onFenced(gameId: string): void;
  /** Stores an ended game's final record and its result lines for good (the cluster store's finishGame); idempotent. */
  onFinished(game: GameRecord, results: ResultRecord[]): Promise<void>;
  /**
   * Where ended games are read from and an ended record is written again (a mirror pair's lifted
   * reveal): the cluster store. Without it, only the recently ended games kept here are readable.
   */
  archive?: Archive;
  /**
   * How long an unanswered append is retried before putGame rejects, and an ending's archive write
   * before it goes on in the background; default 30 s.
   */
  retryForMs?: number;
  /** Keep finished games' entries in the log (no trim once archived; for audits). Default false. */
  keepFinishedLogs?: boolean;
  /** Games taken over at once while opening; default 16. */
  openConcurrency?: number;
  clock?: Clock;
  log?: Logger;
}

/**
 * Recently ended games kept for reads, at most: a game whose reveal is withheld until its mirror
 * partner ends (the partner's ending reads its twin once, however late); any other for ENDED_KEPT_MS
 * only (read back right after its ending; later reads go to the archive), so that steady play keeps
 * a minute of endings here rather than filling the count over many minutes.
 */
const ENDED_KEPT = 256;
const ENDED_KEPT_MS = 60_000;

interface Live {
  /** The last version that counts (undefined until a new game's first append counts). */
  rec: GameRecord | undefined;
  /** Replaced once at most: a new game whose id had only takeover markers (startsAfterMarkers). */
  writer: GameWriter;
  /** Appends made by this writer (the version number of the log entry: unique per writer). */
  n: number;
  /** The game's writes, one after another. */
  tail: Promise<unknown>;
}

export class LogGameStore implements GameStore {
  private readonly live = new Map<string, Live>();
  private readonly ended: RecentMap<string, GameRecord>;
  /** Ended games whose reveal is withheld until their mirror partner ends (see ENDED_KEPT). */
  private readonly heldReveals = new Map<string, GameRecord>();
  /** See endedOnOpen (at most one per game the live index listed). */
  private readonly settledOnOpen: GameRecord[] = [];
  /** Why this store stopped writing (undefined while it writes). */
  private fencedWhy: FencedError['why'] | undefined;
  private closed = false;
  /** Archive, trim, unlist of each ending (with their background retries). */
  private readonly endings: EndingSettler;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly retryForMs: number;

  private constructor(
    private readonly log: GameLog,
    private readonly o: LogGameStoreOptions,
  ) {
    this.clock = o.clock ?? systemClock;
    this.retryForMs = o.retryForMs ?? 30_000;
    this.logger = o.log ?? silentLogger;
    this.ended = new RecentMap({ clock: this.clock, windowMs: ENDED_KEPT_MS, max: ENDED_KEPT });
    this.endings = new EndingSettler({
      log: { trim: (id) => this.trimLog(id) }, index: o.index, shard: o.shard, archive: o.archive, onFinished: o.onFinished, retryForMs: this.retryForMs,
      stopped: () => this.closed || this.fencedWhy !== undefined, clock: this.clock, logger: this.logger,
    });
  }

  /** Takes every live game of the shard over (see above) and opens the store with them. */
  static async open(log: GameLog, o: LogGameStoreOptions): Promise<LogGameStore> {
    const store = new LogGameStore(log, o);
    const ids = await o.index.list(o.shard);
    const width = Math.max(1, o.openConcurrency ?? 16);
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(width, ids.length) }, async () => {
        while (next < ids.length) await store.takeOver(ids[next++]);
      }),
    );
    return store;
  }

  /**
   * The games this store's takeover found ended in the log and settled (their final version landed,
   * but the previous owner may have died before anyone was told): the caller announces them.
   */
  endedOnOpen(): GameRecord[] {
    return [...this.settledOnOpen];
  }

  /** True once a write was refused because the shard moved. */
  fenced(): boolean {
    return this.fencedWhy !== undefined;
  }

  getGame(id: string): GameRecord | undefined {
    return this.live.get(id)?.rec ?? this.heldReveals.get(id) ?? this.ended.get(id) ?? this.o.archive?.getGame(id);
  }

  listLiveGames(): GameRecord[] {
    const out: GameRecord[] = [];
    for (const g of this.live.values()) if (g.rec !== undefined && 'Active' in g.rec.status) out.push(g.rec);
    return out;
  }

  async putGame(game: GameRecord): Promise<void> {
    this.checkShard(game);
    // Nothing at all once fenced: not even an ended record (a game this node aborted in memory might
    // lift its mirror partner's reveal while the next owner still plays it).
    if (this.fencedWhy !== undefined) this.refuse(game.id);
    const g = this.live.get(game.id);
    if (g === undefined && !('Active' in game.status)) {
      // An ended record written again (a mirror pair's reveal lifted): the archive's business.
      this.keepEnded(game);
      await this.o.archive?.putGame(game);
      return;
    }
    if (g === undefined) return this.begin(game);
    await this.queue(g, async () => {
      await this.append(g, game);
      // An ending written without result lines: stored as given, then archived.
      if (!('Active' in game.status)) await this.settle(game, undefined);
    });
  }

  async finishGame(game: GameRecord, results: ResultRecord[]): Promise<void> {
    this.checkShard(game);
    if (this.fencedWhy !== undefined) this.refuse(game.id);
    const g = this.live.get(game.id);
    if (g === undefined) throw new Error(`game ${game.id} is not live on shard ${this.o.shard}`);
    await this.queue(g, async () => {
      await this.append(g, game, results);
      await this.settle(game, results);
    });
  }

  /** Resolves once every write in flight has settled (they keep their own outcome); stops background retries. */
  async close(): Promise<void> {
    this.closed = true;
    this.endings.close();
    await Promise.all([...this.live.values()].map((g) => g.tail.catch(() => {})));
  }

  // ---- internals ---------------------------------------------------------------------------------

  private checkShard(game: GameRecord): void {
    const s = shardIndex(shardKey(game.id, game.mirrorOf), this.o.shards);
    if (s !== this.o.shard) throw new Error(`game ${game.id} belongs to shard ${s}, not ${this.o.shard}`);
  }

  private refuse(gameId: string): never {
    throw new FencedError(gameId, this.o.shard, this.fencedWhy ?? 'taken-over');
  }

  private fence(gameId: string, why: FencedError['why']): never {
    this.live.delete(gameId);
    if (this.fencedWhy === undefined) {
      this.fencedWhy = why;
      this.o.onFenced(gameId);
    }
    this.refuse(gameId);
  }

  /** A new game: its index key first, then its first version, which counts only under a certain lease. */
  private async begin(game: GameRecord): Promise<void> {
    if (this.fencedWhy !== undefined) this.refuse(game.id);
    const g: Live = { rec: undefined, writer: this.log.begin(game.id, this.o.guard), n: 0, tail: Promise.resolve() };
    this.live.set(game.id, g);
    try {
      await this.queue(g, async () => {
        await this.o.index.add(this.o.shard, game.id);
        await this.append(g, game, undefined, () => this.o.guard === undefined || this.o.guard());
      });
    } catch (e) {
      // Not started: the caller was told so. (An append that landed unanswered leaves a game the
      // next owner resumes; so it is with any store whose commit outcome is unknown.)
      if (this.live.get(game.id) === g && g.rec === undefined) this.live.delete(game.id);
      throw e;
    }
  }

  private queue(g: Live, fn: () => Promise<void>): Promise<void> {
    const run = g.tail.then(fn, fn);
    g.tail = run.catch(() => {});
    return run;
  }

  /**
   * Appends `next` as the game's next version and waits until it counts, retrying an unanswered
   * append (with the same entry: the log stores it once) until retryForMs has passed, or the lease
   * (`guard`) is gone; then fenced.
   */
  private async append(g: Live, next: GameRecord, results?: ResultRecord[], stillOwner?: () => boolean): Promise<void> {
    if (this.fencedWhy !== undefined || this.live.get(next.id) !== g) this.refuse(next.id);
    const n = g.n + 1;
    const data = encodeVersion(g.rec, next, results);
    const deadline = this.clock.monotonic() + this.retryForMs; // local: on the monotonic clock
    let restarted = false;
    for (let wait = 50; ; wait = Math.min(wait * 2, 1000)) {
      let r;
      try {
        r = await g.writer.append(n, data);
      } catch (e) {
        // Nor is it tried again once the shard's lease is gone: another node may be taking the shard
        // over, and appends sent on through a server cut from the others only wait there for the heal.
        const leaseGone = this.o.guard !== undefined && !this.o.guard();
        if (leaseGone || this.clock.monotonic() >= deadline) {
          // Whether the entry landed is unknown, and any later write of the game would be taken for
          // it or fenced by it: this node stops writing the shard, as if fenced. The log stays the
          // truth; whoever opens the shard next resumes the game from what it holds.
          this.logger.error({ gameId: next.id, shard: this.o.shard, leaseGone, err: String(e) }, 'game log append unanswered: giving the shard up');
          this.fence(next.id, 'unanswered');
        }
        await new Promise<void>((res) => this.clock.schedule(wait, res));
        if (this.fencedWhy !== undefined) this.refuse(next.id);
        continue;
      }
      if (!r.ok && !restarted && g.rec === undefined && (await this.startsAfterMarkers(g, next.id))) {
        restarted = true;
        continue;
      }
      if (!r.ok || (stillOwner !== undefined && !stillOwner())) this.fence(next.id, 'taken-over');
      break;
    }
    g.n = n;
    g.rec = next;
  }

  /**
   * A new game's first append was refused: its id already has entries. If they are only takeover
   * markers (an earlier owner listed the game and found no version: its first append never landed,
   * and its creation is being tried again) and this node's lease is certain, the id is still free:
   * the store takes it over (a marker of its own) and the game starts after it. Anything that counts
   * in the log means another writer made the game: the caller fences.
   */
  private async startsAfterMarkers(g: Live, id: string): Promise<boolean> {
    if (this.o.guard === undefined || !this.o.guard()) return false;
    const made = (entries: LogEntry[]): boolean => entries.some((e) => e.counts && e.kind === 'version');
    // Read first: a game made elsewhere is not marked from here.
    if (made(await this.log.replay(id))) return false;
    const { writer, entries } = await this.log.takeOver(id, this.o.node, { guard: this.o.guard });
    if (made(entries)) return false;
    this.logger.warn({ gameId: id, shard: this.o.shard }, 'new game started after an earlier takeover marker of its id');
    g.writer = writer;
    return true;
  }

  /** After the final version counts: kept for reads here, then archived, trimmed from the log, unlisted (ending-settler.ts). */
  private async settle(game: GameRecord, results: ResultRecord[] | undefined): Promise<void> {
    this.live.delete(game.id);
    this.keepEnded(game);
    await this.endings.settle(game, results);
  }

  /** A finished game's log trimmed, unless the node keeps finished logs (keepFinishedLogs). */
  private async trimLog(id: string): Promise<void> {
    if (this.o.keepFinishedLogs !== true) await this.log.trim(id);
  }

  private keepEnded(game: GameRecord): void {
    this.ended.delete(game.id);
    this.heldReveals.delete(game.id);
    if (!game.revealHeld) return this.ended.set(game.id, game);
    this.heldReveals.set(game.id, game);
    while (this.heldReveals.size > ENDED_KEPT) this.heldReveals.delete(this.heldReveals.keys().next().value as string);
  }

  /** Ended games kept here now (the tests check their bound). */
  keptEnded(): number {
    this.ended.prune();
    return this.ended.size + this.heldReveals.size;
  }

  /** One listed game, taken over: resumed when live, settled when a crash left it half done. */
  private async takeOver(id: string): Promise<void> {
    // Archived already (the previous owner died between the archive write and the trim, or the
    // whole cluster restarted then): its log is only trimmed, no marker is appended, nothing resumed.
    const archived = await this.endings.archivedEnding(id);
    if (archived !== undefined) {
      this.logger.info({ gameId: id, shard: this.o.shard }, 'game found archived at takeover: its log trimmed');
      await this.trimLog(id);
      this.settledOnOpen.push(archived);
      await this.o.index.remove(this.o.shard, id);
      return;
    }
    const { writer, entries } = await this.log.takeOver(id, this.o.node, { guard: this.o.guard });
    let state: Folded | undefined;
    try {
      for (const e of entries) if (e.counts && e.kind === 'version') state = foldVersion(state, e.data);
    } catch (e) {
      // An entry this server cannot read (a newer schema, or a bug): the game stays listed and
      // untouched, and the rest of the shard is served.
      this.logger.error({ gameId: id, shard: this.o.shard, err: String(e) }, 'live game not resumed: its log cannot be read');
      return;
    }
    if (state === undefined) {
      // No version: a game listed before its first version landed (its markers stay, fencing a late
      // first append), or one whose previous owner archived and trimmed it meanwhile: then the marker
      // just appended is trimmed too.
      const ended = await this.endings.archivedEnding(id);
      if (ended !== undefined) {
        await this.trimLog(id);
        this.settledOnOpen.push(ended);
      }
      await this.o.index.remove(this.o.shard, id);
      return;
    }
    const g: Live = { rec: state.rec, writer, n: 0, tail: Promise.resolve() };
    if ('Active' in state.rec.status) {
      this.live.set(id, g);
      return;
    }
    this.logger.info({ gameId: id, shard: this.o.shard }, 'game found ended in the log at takeover: settled here');
    this.settledOnOpen.push(state.rec);
    await this.settle(state.rec, state.results);
  }
}
