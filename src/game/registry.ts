// The set of game actors: creates games (GameFactory), finds them (GameDirectory), rebuilds the live
// ones after a restart, and keeps ended games readable. House players are attached here, so every
// way a game starts (lobby, challenge, ladder, resume) gets them the same way.
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
import { withDefaults, type GameConfig, type GameLog } from './config.js';
import { HousePlayer, type HouseKind } from './house.js';
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
    const { fen, seat } = startPosition(spec.startFen);
    const seed = newServerSeed();
    const rec: GameRecord = {
      schema: SCHEMA_VERSION,
      id: this.deps.newId(),
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
    await this.deps.store.putGame(rec);
    const actor = this.register(rec);
    this.attachHouse(actor);
    this.notify('gameStarted', actor);
    actor.start();
    return actor;
  }

  /**
   * Rebuilds every live game of the store after a restart and lets each continue exactly where it
   * was persisted (see GameActor.resume). Resolves once every game has settled into its wait.
   */
  async resume(): Promise<number> {
    const recs = this.deps.store.listLiveGames().filter((r) => !isEnded(r) && !this.games.has(r.id));
    await Promise.all(
      recs.map(async (rec) => {
        const actor = this.register(rec);
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
    if (stored && isEnded(stored)) return stored;
    return this.archive.get(id);
  }

  find(id: string): GameHandle | undefined {
    const live = this.games.get(id);
    if (live) return live;
    let handle = this.endedHandles.get(id);
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

  private register(rec: GameRecord): GameActor {
    const actor: GameActor = new GameActor(rec, {
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
    this.notify('gameEnded', actor, final);
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
