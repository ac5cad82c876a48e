// One shard: the game actors of the games whose ids map to it, behind a command/reply channel. It
// runs a GameRegistry of its own (actors, clocks, rules in-thread, house players, mirror pairs, the
// store writes) and reports every adopted version to the main thread as an `update`: the record's
// head, the history entries main lacks, the pending tree when it changed and the already-encoded
// event lines. Replies are batched: one array per event-loop turn.
import type { Clock } from '../domain/clock.js';
import type { Logger } from '../domain/log.js';
import type { GameRecord } from '../domain/records.js';
import type { GameConfig } from '../game/game-config.js';
import { GameRegistry } from '../game/game-registry.js';
import type { HouseKind } from '../game/house.js';
import type { GameActor } from '../game/actor.js';
import type { ActorCore } from '../game/actor-core.js';
import type { EventFrame } from '../game/types.js';
import { isTurnPlayed, type PendingTree } from '../game/view.js';
import type { RulesPort } from '../pool/types.js';
import type { GameStore } from '../store/types.js';
import { ForwardingStore } from './forwarding-store.js';
import { headOf, treeJsonOfLine, type Command, type Reply, type TreeWire } from './protocol.js';
import { threadCpuSeconds, threadHeap } from './cpu.js';

export interface ShardHostDeps {
  /** The shard's store: LMDB opened in this thread, or a ForwardingStore with a memory server. */
  store: GameStore;
  rules: RulesPort;
  clock: Clock;
  config: GameConfig;
  log: Logger;
  housePlayers: Map<string, HouseKind>;
  random?: () => number;
  /** Sends one batch of replies to main. */
  post(batch: Reply[]): void;
  /** Runs `fn` after the current event-loop turn (setImmediate in a server). */
  later(fn: () => void): void;
  /** Period of the `stats` reply; 0: none. */
  statsEveryMs: number;
}

const treeWire = (t: PendingTree | null): TreeWire | null => (t ? { dfen: t.dfen, leaves: t.leaves, json: t.fullJson() } : null);

/** A new tree whose JSON the version's DiceRolled line already carries goes without it (main reads it there). */
function newTreeWire(t: PendingTree | null, frames: readonly EventFrame[]): TreeWire | null {
  if (t === null) return null;
  if (frames.some((f) => treeJsonOfLine(f.line) !== undefined)) return { dfen: t.dfen, leaves: t.leaves, inLine: true };
  return treeWire(t);
}

/** The shard's store, with the duration of each game's latest write kept for its next update. */
class TimedStore implements GameStore {
  readonly last = new Map<string, ['putGame' | 'finishGame', number]>();

  constructor(readonly inner: GameStore) {}

  getGame(id: string): GameRecord | undefined {
    return this.inner.getGame(id);
  }

  listLiveGames(): GameRecord[] {
    return this.inner.listLiveGames();
  }

  async putGame(game: GameRecord): Promise<void> {
    const t0 = performance.now();
    await this.inner.putGame(game);
    this.last.set(game.id, ['putGame', (performance.now() - t0) / 1000]);
  }

  async finishGame(game: GameRecord, results: Parameters<GameStore['finishGame']>[1]): Promise<void> {
    const t0 = performance.now();
    await this.inner.finishGame(game, results);
    this.last.set(game.id, ['finishGame', (performance.now() - t0) / 1000]);
  }
}

export class ShardHost {
  private readonly timed: TimedStore;
  private readonly registry: GameRegistry;
  private out: Reply[] = [];
  private flushing = false;
  /** History entries main holds, by announced game id; an unannounced game's versions are not sent. */
  private readonly known = new Map<string, number>();
  private readonly stats: NodeJS.Timeout | null;

  constructor(private readonly d: ShardHostDeps) {
    this.timed = new TimedStore(d.store);
    this.registry = new GameRegistry({
      store: this.timed,
      rules: d.rules,
      clock: d.clock,
      config: d.config,
      log: d.log,
      housePlayers: d.housePlayers,
      random: d.random,
      // Ids are chosen by main, which routes by them; a shard never makes one up.
      newId: () => {
        throw new Error('a shard is always given its game ids');
      },
      listeners: [
        {
          gameStarted: (g) => this.announce({ t: 'started', rec: g.record() }),
          gameResumed: (g) => {
            const actor = g as GameActor;
            this.announce({ t: 'resumed', rec: actor.record(), tree: treeWire(actor.pendingTree()) });
          },
          gameEnded: (g) => {
            this.known.delete(g.id);
            this.timed.last.delete(g.id);
          },
        },
      ],
      onShow: (game, rec, tree, treeChanged, frames) => this.shown(game, rec, tree, treeChanged, frames),
    });
    this.stats = d.statsEveryMs > 0 ? setInterval(() => this.emitStats(), d.statsEveryMs) : null;
    this.stats?.unref();
  }

  private emitStats(): void {
    const heap = threadHeap();
    this.emit({ t: 'stats', cpuSeconds: threadCpuSeconds(), live: this.registry.liveCount(), heapUsed: heap.used, heapTotal: heap.total });
  }

  /** One batch of commands from main, in order. */
  receive(batch: readonly Command[]): void {
    for (const c of batch) this.command(c);
  }

  private command(c: Command): void {
    switch (c.t) {
      case 'create':
        this.request(c.rid, () => this.registry.create(c.spec, c.id));
        return;
      case 'pair':
        this.request(c.rid, () => this.registry.createMirrorPair(c.spec, c.ids));
        return;
      case 'move': {
        const actor = this.registry.get(c.id);
        const verdict = actor ? actor.moveAt(c.seat, c.moves, c.at, c.seen) : Promise.resolve('busy' as const);
        verdict.then(
          (v) => this.emit({ t: 'verdict', rid: c.rid, verdict: v }),
          () => this.emit({ t: 'verdict', rid: c.rid, verdict: 'busy' }),
        );
        return;
      }
      case 'seed':
        this.registry.get(c.id)?.seed(c.seat, c.seed);
        return;
      case 'resign':
        this.registry.get(c.id)?.resign(c.seat);
        return;
      case 'resume':
        if (this.d.store instanceof ForwardingStore) this.d.store.adopt(c.recs);
        this.request(c.rid, () => this.registry.resumeRecords(c.recs));
        return;
      case 'idle':
        this.request(c.rid, () => this.registry.idle());
        return;
      case 'stop':
        this.request(c.rid, async () => {
          if (this.stats) clearInterval(this.stats);
          await this.registry.stop();
        });
        return;
      case 'crash':
        // Outside any promise chain: an uncaught error, as a bug would throw.
        setTimeout(() => {
          throw new Error('shard crash requested');
        }, 0);
        return;
    }
  }

  private request(rid: number, run: () => Promise<unknown>): void {
    run().then(
      () => this.emit({ t: 'done', rid }),
      (e: unknown) => this.emit({ t: 'failed', rid, error: e instanceof Error ? e.message : String(e) }),
    );
  }

  private announce(r: Extract<Reply, { t: 'started' | 'resumed' }>): void {
    this.known.set(r.rec.id, r.rec.history.length);
    this.emit(r);
  }

  private shown(game: ActorCore, rec: GameRecord, tree: PendingTree | null, treeChanged: boolean, frames: EventFrame[]): void {
    const from = this.known.get(game.id);
    // Not announced yet (a game settling during resume): main gets its whole record when it is.
    if (from === undefined) return;
    const store = this.d.store;
    const update: Extract<Reply, { t: 'update' }> = {
      t: 'update',
      id: game.id,
      head: headOf(rec),
      from,
      hist: rec.history.length > from ? rec.history.slice(from) : [],
      lines: frames.map((f) => [f.v, f.line]),
      turns: frames.reduce((n, f) => n + (isTurnPlayed(f) ? 1 : 0), 0),
    };
    if (treeChanged) update.tree = newTreeWire(tree, frames);
    const wrote = this.timed.last.get(game.id);
    if (wrote) {
      this.timed.last.delete(game.id);
      update.wrote = wrote;
    }
    if (store instanceof ForwardingStore) {
      const w = store.take(game.id);
      if (w) update.write = w;
    }
    this.known.set(game.id, rec.history.length);
    this.emit(update);
  }

  private emit(r: Reply): void {
    this.out.push(r);
    if (this.flushing) return;
    this.flushing = true;
    this.d.later(() => this.flush());
  }

  private flush(): void {
    this.flushing = false;
    const store = this.d.store;
    if (store instanceof ForwardingStore) for (const w of store.drain()) this.out.push({ t: 'write', ...w });
    const batch = this.out;
    this.out = [];
    if (batch.length > 0) this.d.post(batch);
  }
}
