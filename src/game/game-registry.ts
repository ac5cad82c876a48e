// The set of game actors: creates games (GameFactory), finds them (GameDirectory), rebuilds the live
// ones after a restart, and keeps ended games readable. House players are attached here, so every
// way a game starts (lobby, challenge, ladder, resume) gets them the same way.
import { randomBytes } from 'node:crypto';
import { formatDfen, parseDfen, START_FEN } from '../engine/index.js';
import { commitOf, newServerSeed, seedToHex } from '../fair/index.js';
import type { Clock } from '../domain/clock.js';
import { SCHEMA_VERSION, type GameRecord } from '../domain/records.js';
import type { Seat } from '../domain/types.js';
import type { Store } from '../store/types.js';
import type { RulesPort } from '../pool/types.js';
import { GameActor } from './actor.js';
import { EndedGame } from './ended.js';
import { initialBanks } from './clocks.js';
import { withDefaults, type GameConfig, type GameLog } from './game-config.js';
import { HousePlayer, type HouseKind } from './house.js';
import { MirrorPair, reachedOf } from './mirror-pair.js';
import type { GameDirectory, GameFactory, GameHandle, GameLifecycleListener, NewGameSpec } from './types.js';
import { isEnded } from './view.js';

export interface RegistryDeps {
  store: Store;
  rules: RulesPort;
  clock: Clock;
  config: GameConfig;
  listeners: GameLifecycleListener[];
  newId: () => string;
  log: GameLog;
  /** External ids of built-in house bots and how each plays. */
  housePlayers?: Map<string, HouseKind>;
  /** RNG of the house players (tests inject a seeded one). */
  random?: () => number;
}

/** The six-field start position of a new game; a caller-supplied one must parse and carry no dice. */
function startPosition(startFen: string | undefined): { fen: string; seat: Seat } {
  const pos = parseDfen(startFen ?? START_FEN);
  // A bad start position is a caller bug (tests, ladder set-up), not an input a player can send.
  if (!pos.ok) throw new Error(`bad startFen: ${pos.error.message}`);
  if (pos.value.dice.length > 0) throw new Error('startFen must not carry dice');
  return { fen: formatDfen(pos.value), seat: pos.value.turn === 0 ? 'White' : 'Black' };
}

export class GameRegistry implements GameFactory, GameDirectory {
  private readonly games = new Map<string, GameActor>();
  /** Live game ids by seated player id: GET /bot/games must not scan every live game. */
  private readonly byPlayer = new Map<string, Set<string>>();
  private readonly archive = new Map<string, GameRecord>();
  /**
   * Read handles of recently read ended games, most recent last. An ended game never changes, so its
   * state JSON and stream frames are built once rather than on every public read.
   */
  private readonly endedHandles = new Map<string, EndedGame>();
  private readonly cfg;
  private stopping = false;

  constructor(private readonly deps: RegistryDeps) {
    this.cfg = withDefaults(deps.config);
  }

  async create(spec: NewGameSpec): Promise<GameHandle> {
    if (this.stopping) throw new Error('game registry is stopping');
    const rec = this.newRecord(spec, this.deps.newId(), newServerSeed());
    await this.deps.store.putGame(rec);
    const actor = this.register(rec);
    this.attachHouse(actor);
    this.notify('gameStarted', actor);
    actor.start();
    return actor;
  }

  /**
   * A mirror pair (RULES §8): `spec` as given and its mirror with the colours swapped, one server
   * seed and one pair of server-chosen client seeds for both, advancing in lockstep. Both records
   * are stored before either game starts.
   */
  async createMirrorPair(spec: NewGameSpec): Promise<[GameHandle, GameHandle]> {
    if (this.stopping) throw new Error('game registry is stopping');
    const seed = newServerSeed();
    const clientSeeds = { white: randomBytes(16).toString('hex'), black: randomBytes(16).toString('hex') };
    const ids = [this.deps.newId(), this.deps.newId()] as const;
    const recs = [
      { ...this.newRecord(spec, ids[0], seed), clientSeeds, mirrorOf: ids[1] },
      { ...this.newRecord({ ...spec, white: spec.black, black: spec.white }, ids[1], seed), clientSeeds, mirrorOf: ids[0] },
    ];
    await Promise.all(recs.map((r) => this.deps.store.putGame(r)));
    const pair = new MirrorPair({ id: ids[0], reached: 0, ended: false }, { id: ids[1], reached: 0, ended: false });
    const actors = recs.map((r) => this.register(r, pair));
    for (const a of actors) this.attachHouse(a);
    for (const a of actors) this.notify('gameStarted', a);
    for (const a of actors) a.start();
    return [actors[0], actors[1]];
  }

  private newRecord(spec: NewGameSpec, id: string, seed: Uint8Array): GameRecord {
    const { fen, seat } = startPosition(spec.startFen);
    return {
      schema: SCHEMA_VERSION,
      id,
      white: spec.white,
      black: spec.black,
      timeControl: spec.timeControl,
      rated: spec.rated,
      createdAt: this.deps.clock.now(),
      serverSeed: seedToHex(seed),
      commit: commitOf(seed),
      clientSeeds: { white: null, black: null },
      ply: 0,
      fen,
      activeSeat: seat,
      dice: null,
      clocks: initialBanks(spec.timeControl),
      clockStartedAt: null,
      version: 0,
      history: [],
      status: { Active: {} },
      revealedSeeds: null,
      finishedAt: null,
      mirrorOf: null,
    };
  }

  /**
   * Rebuilds every live game of the store after a restart and lets each continue exactly where it
   * was persisted (see GameActor.resume). Resolves once every game has settled into its wait.
   */
  async resume(): Promise<number> {
    const recs = this.deps.store.listLiveGames().filter((r) => !isEnded(r) && !this.games.has(r.id));
    const pairs = this.resumePairs(recs);
    await Promise.all(
      recs.map(async (rec) => {
        const actor = this.register(rec, pairs.get(rec.id));
        actor.resume();
        await actor.idle();
        // Attached and announced once the actor has settled, so the house and the listeners (the
        // webhook deliverer) see the pending roll, with its tree, in their Snapshot.
        if (actor.isActive()) this.attachHouse(actor);
        this.notify('gameResumed', actor);
      }),
    );
    if (recs.length > 0) this.deps.log.info({ games: recs.length }, 'live games resumed');
    return recs.length;
  }

  /**
   * The lockstep of every resumed mirror-pair game. A partner that ended (or was never stored: a
   * crash between the two writes of createMirrorPair) no longer holds the game back.
   */
  private resumePairs(recs: GameRecord[]): Map<string, MirrorPair> {
    const byId = new Map(recs.map((r) => [r.id, r]));
    const pairs = new Map<string, MirrorPair>();
    for (const rec of recs) {
      if (rec.mirrorOf === null || pairs.has(rec.id)) continue;
      const other = byId.get(rec.mirrorOf);
      const pair = new MirrorPair(
        { id: rec.id, reached: reachedOf(rec), ended: false },
        other ? { id: other.id, reached: reachedOf(other), ended: false } : { id: rec.mirrorOf, reached: 0, ended: true },
      );
      pairs.set(rec.id, pair);
      if (other) pairs.set(other.id, pair);
    }
    return pairs;
  }

  /** Cancels every timer, lets running commands finish, closes every subscriber. */
  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all([...this.games.values()].map((g) => g.stop()));
  }

  get(id: string): GameHandle | undefined {
    return this.games.get(id);
  }

  live(): GameHandle[] {
    return [...this.games.values()];
  }

  /** Number of live games (the server-wide cap reads it on every game creation). */
  liveCount(): number {
    return this.games.size;
  }

  /** Number of live games this external id is seated in, without building the list. */
  liveCountFor(playerId: string): number {
    return this.byPlayer.get(playerId)?.size ?? 0;
  }

  liveFor(playerId: string): GameHandle[] {
    const ids = this.byPlayer.get(playerId);
    if (!ids) return [];
    return [...ids].flatMap((id) => {
      const g = this.games.get(id);
      return g ? [g] : [];
    });
  }

  ended(id: string): GameRecord | undefined {
    const stored = this.deps.store.getGame(id);
    return this.lifted(stored && isEnded(stored) ? stored : this.archive.get(id));
  }

  /** A withheld reveal is lifted as soon as the mirror-pair partner is no longer live. */
  private lifted(rec: GameRecord | undefined): GameRecord | undefined {
    if (!rec?.revealHeld || (rec.mirrorOf !== null && this.games.has(rec.mirrorOf))) return rec;
    return { ...rec, revealHeld: false };
  }

  find(id: string): GameHandle | undefined {
    const live = this.games.get(id);
    if (live) return live;
    let handle = this.endedHandles.get(id);
    if (handle?.record().revealHeld && this.lifted(handle.record()) !== handle.record()) handle = undefined;
    if (handle) {
      this.endedHandles.delete(id); // re-inserted below: least recently read first
    } else {
      const rec = this.ended(id);
      if (!rec) return undefined;
      handle = new EndedGame(rec);
    }
    this.endedHandles.set(id, handle);
    while (this.endedHandles.size > this.cfg.archiveSize) {
      this.endedHandles.delete(this.endedHandles.keys().next().value as string);
    }
    return handle;
  }

  /** Resolves when every live actor's mailbox is empty (tests, shutdown). */
  async idle(): Promise<void> {
    await Promise.all([...this.games.values()].map((g) => g.idle()));
  }

  private register(rec: GameRecord, pair?: MirrorPair): GameActor {
    const actor: GameActor = new GameActor(rec, {
      pair,
      store: this.deps.store,
      rules: this.deps.rules,
      clock: this.deps.clock,
      config: this.cfg,
      log: this.deps.log,
      onEnded: (a, final) => this.onEnded(a, final),
      onTurn: () => this.notify('turnApplied', actor),
    });
    this.games.set(rec.id, actor);
    for (const p of new Set([rec.white.id, rec.black.id])) {
      let ids = this.byPlayer.get(p);
      if (!ids) this.byPlayer.set(p, (ids = new Set()));
      ids.add(rec.id);
    }
    return actor;
  }

  private unindex(actor: GameHandle): void {
    for (const p of [actor.white.id, actor.black.id]) {
      const ids = this.byPlayer.get(p);
      ids?.delete(actor.id);
      if (ids?.size === 0) this.byPlayer.delete(p);
    }
  }

  private onEnded(actor: GameHandle, final: GameRecord): void {
    this.games.delete(actor.id);
    this.unindex(actor);
    this.archive.delete(actor.id);
    this.archive.set(actor.id, final);
    // Oldest first out: Map iteration follows insertion order.
    while (this.archive.size > this.cfg.archiveSize) {
      const oldest = this.archive.keys().next().value as string;
      this.archive.delete(oldest);
    }
    if (final.mirrorOf !== null) this.partnerEnded(final.mirrorOf);
    this.notify('gameEnded', actor, final);
  }

  /**
   * Second game of a pair ended: the first one's reveal appears. Reads lift it already (see
   * `lifted`); the cached read handle is dropped and the stored record rewritten for other readers.
   */
  private partnerEnded(partnerId: string): void {
    this.endedHandles.delete(partnerId);
    const rec = this.deps.store.getGame(partnerId);
    if (!rec?.revealHeld || !isEnded(rec)) return;
    this.deps.store.putGame({ ...rec, revealHeld: false }).catch((e: unknown) => {
      this.deps.log.warn({ gameId: partnerId, err: String(e) }, 'could not store the lifted reveal');
    });
  }

  private attachHouse(actor: GameActor): void {
    const kinds = this.deps.housePlayers;
    if (!kinds) return;
    for (const seat of ['White', 'Black'] as const) {
      const kind = kinds.get(seat === 'White' ? actor.white.id : actor.black.id);
      if (!kind) continue;
      HousePlayer.attach({
        handle: actor,
        seat,
        kind,
        clock: this.deps.clock,
        delayMs: this.cfg.houseMoveDelayMs,
        random: this.deps.random ?? Math.random,
        log: this.deps.log,
      });
    }
  }

  private notify(hook: 'gameStarted' | 'gameResumed' | 'turnApplied', game: GameHandle): void;
  private notify(hook: 'gameEnded', game: GameHandle, rec: GameRecord): void;
  private notify(hook: keyof GameLifecycleListener, game: GameHandle, rec?: GameRecord): void {
    for (const l of this.deps.listeners) {
      try {
        if (hook === 'gameEnded') l.gameEnded?.(game, rec!);
        else l[hook]?.(game);
      } catch (e) {
        this.deps.log.error({ gameId: game.id, hook, err: String(e) }, 'lifecycle listener threw');
      }
    }
  }
}
