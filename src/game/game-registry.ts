// The set of game actors: creates games (GameFactory), finds them (GameDirectory), rebuilds the live
// ones after a restart, and keeps ended games readable. House players are attached here, so every
// way a game starts (lobby, challenge, ladder, resume) gets them the same way.
import { randomBytes } from 'node:crypto';
import { formatDfen, parseDfen, START_FEN } from '../engine/index.js';
import { commitOf, hexToSeed, newServerSeed, seedToHex } from '../fair/index.js';
import type { Clock } from '../domain/clock.js';
import { SCHEMA_VERSION, sameControl, type GameRecord } from '../domain/records.js';
import type { Seat } from '../domain/types.js';
import type { GameStore } from '../store/types.js';
import { GameActor, type ActorDeps } from './actor.js';
import { GameIndex, IndexedGames } from './game-index.js';
import { both, initialBanks } from './clocks.js';
import { withDefaults, type GameConfig, type GameLog } from './game-config.js';
import { HousePlayer, type HouseKind } from './house.js';
import { MirrorPair, reachedOf } from './mirror-pair.js';
import type { GameDirectory, GameFactory, GameHandle, GameLifecycleListener, NewGameSpec } from './types.js';
import { isEnded } from './view.js';

export interface RegistryDeps {
  store: GameStore;
  clock: Clock;
  config: GameConfig;
  listeners: GameLifecycleListener[];
  newId: () => string;
  log: GameLog;
  /** External ids of built-in house bots and how each plays. */
  housePlayers?: Map<string, HouseKind>;
  /** RNG of the house players (tests inject a seeded one). */
  random?: () => number;
  /** Where new games' server seeds come from (fresh random bytes unless a test injects its own, to replay a game). */
  serverSeed?: () => Uint8Array;
  /** Where a mirror pair's server-chosen client seeds come from (random hex unless a test injects its own). */
  clientSeed?: () => string;
  /** Sees every committed version of every game (a shard forwards them to the main thread). */
  onShow?: ActorDeps['onShow'];
  /** Hears how long each roll's tree took to build (the shard reports it with the version). */
  onTree?: ActorDeps['onTree'];
}

/** The six-field start position of a new game; a caller-supplied one must parse and carry no dice. */
function startPosition(startFen: string | undefined): { fen: string; seat: Seat } {
  const pos = parseDfen(startFen ?? START_FEN);
  // A bad start position is a caller bug (tests, ladder set-up), not an input a player can send.
  if (!pos.ok) throw new Error(`bad startFen: ${pos.error.message}`);
  if (pos.value.dice.length > 0) throw new Error('startFen must not carry dice');
  return { fen: formatDfen(pos.value), seat: pos.value.turn === 0 ? 'White' : 'Black' };
}

/**
 * The mirror game of a pair: the colours swapped, and with them each seat's time control, so a player
 * with time odds has its own control in both games.
 */
function mirrorSpec(spec: NewGameSpec): NewGameSpec {
  const swapped = spec.timeControls ? { timeControls: { white: spec.timeControls.black, black: spec.timeControls.white } } : {};
  return { ...spec, white: spec.black, black: spec.white, ...swapped };
}

export class GameRegistry extends IndexedGames<GameActor> implements GameFactory, GameDirectory {
  protected readonly gameIndex: GameIndex<GameActor>;
  private readonly cfg;
  private stopping = false;

  constructor(private readonly deps: RegistryDeps) {
    super();
    this.cfg = withDefaults(deps.config);
    this.gameIndex = new GameIndex(deps.store, { size: this.cfg.archiveSize, bytes: this.cfg.archiveBytes }, deps.listeners, deps.log);
  }

  async create(spec: NewGameSpec, id: string = this.deps.newId()): Promise<GameActor> {
    if (this.stopping) throw new Error('game registry is stopping');
    const rec = this.newRecord(spec, id, this.newSeed());
    await this.deps.store.putGame(rec);
    const actor = this.register(rec);
    this.attachHouse(actor);
    this.notify('gameStarted', actor);
    actor.start();
    return actor;
  }

  /**
   * A mirror pair (docs/ENGINE.md: mirror pairs): `spec` as given and its mirror with the colours swapped, one server
   * seed and one pair of server-chosen client seeds for both, advancing in lockstep. Both records
   * are stored before either game starts.
   */
  async createMirrorPair(
    spec: NewGameSpec,
    ids: readonly [string, string] = [this.deps.newId(), this.deps.newId()],
  ): Promise<[GameActor, GameActor]> {
    if (this.stopping) throw new Error('game registry is stopping');
    const seed = (spec.fair && hexToSeed(spec.fair.serverSeed)) || this.newSeed();
    const clientSeeds = spec.fair?.clientSeeds ?? { white: this.newClientSeed(), black: this.newClientSeed() };
    const recs = [
      { ...this.newRecord(spec, ids[0], seed), clientSeeds, mirrorOf: ids[1] },
      { ...this.newRecord(mirrorSpec(spec), ids[1], seed), clientSeeds, mirrorOf: ids[0] },
    ];
    await Promise.all(recs.map((r) => this.deps.store.putGame(r)));
    const pair = new MirrorPair({ id: ids[0], reached: 0, ended: false }, { id: ids[1], reached: 0, ended: false });
    const actors = recs.map((r) => this.register(r, pair));
    for (const a of actors) this.attachHouse(a);
    for (const a of actors) this.notify('gameStarted', a);
    for (const a of actors) a.start();
    return [actors[0], actors[1]];
  }

  private newSeed(): Uint8Array {
    return this.deps.serverSeed?.() ?? newServerSeed();
  }

  private newClientSeed(): string {
    return this.deps.clientSeed?.() ?? randomBytes(16).toString('hex');
  }

  private newRecord(spec: NewGameSpec, id: string, seed: Uint8Array): GameRecord {
    const { fen, seat } = startPosition(spec.startFen);
    const tcs = spec.timeControls ?? both(spec.timeControl);
    // Odds only when the sides really differ: equal controls make a record as without them.
    const odds = !sameControl(tcs.white, tcs.black);
    return {
      schema: SCHEMA_VERSION,
      id,
      white: spec.white,
      black: spec.black,
      timeControl: tcs.white,
      ...(odds ? { timeControls: { white: tcs.white, black: tcs.black } } : {}),
      rated: spec.rated,
      createdAt: this.deps.clock.now(),
      serverSeed: seedToHex(seed),
      commit: commitOf(seed),
      clientSeeds: { white: null, black: null },
      ply: 0,
      fen,
      activeSeat: seat,
      dice: null,
      clocks: initialBanks(tcs),
      clockStartedAt: null,
      version: 0,
      history: [],
      status: { Active: {} },
      revealedSeeds: null,
      finishedAt: null,
      mirrorOf: null,
      ...(spec.tournament !== undefined ? { tournament: spec.tournament } : {}),
    };
  }

  /**
   * Rebuilds every live game of the store after a restart and lets each continue exactly where it
   * was persisted (see GameActor.resume). Resolves once every game has settled into its wait.
   */
  async resume(): Promise<number> {
    return (await this.resumeRecords(this.deps.store.listLiveGames())).length;
  }

  /** Rebuilds the given live records (a shard is handed its games); resolves with the ids taken. */
  async resumeRecords(all: GameRecord[]): Promise<string[]> {
    const recs = all.filter((r) => !isEnded(r) && !this.gameIndex.has(r.id));
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
    return recs.map((r) => r.id);
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
    await Promise.all(this.gameIndex.live().map((g) => g.stop()));
  }

  /** Resolves when every live actor's mailbox is empty (tests, shutdown). */
  async idle(): Promise<void> {
    await Promise.all(this.gameIndex.live().map((g) => g.idle()));
  }

  private register(rec: GameRecord, pair?: MirrorPair): GameActor {
    const actor: GameActor = new GameActor(rec, {
      pair,
      store: this.deps.store,
      clock: this.deps.clock,
      config: this.cfg,
      log: this.deps.log,
      onEnded: (_a, final) => this.onEnded(actor, final),
      onTurn: () => this.notify('turnApplied', actor),
      onRefused: (seat) => this.gameIndex.notify('moveRefused', actor, seat),
      onShow: this.deps.onShow,
      onTree: this.deps.onTree,
    });
    this.gameIndex.add(actor);
    return actor;
  }

  private onEnded(actor: GameHandle, final: GameRecord): void {
    this.gameIndex.retire(actor, final);
    if (final.mirrorOf !== null) this.partnerEnded(final.mirrorOf);
    this.notify('gameEnded', actor, final);
  }

  /**
   * Second game of a pair ended: the first one's reveal appears. Reads lift it already (see
   * `lifted`); the cached read handle is dropped and the stored record rewritten for other readers.
   */
  private partnerEnded(partnerId: string): void {
    this.gameIndex.forget(partnerId);
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
  private notify(hook: 'gameStarted' | 'gameResumed' | 'turnApplied' | 'gameEnded', game: GameHandle, rec?: GameRecord): void {
    if (hook === 'gameEnded') this.gameIndex.notify(hook, game, rec!);
    else this.gameIndex.notify(hook, game);
  }
}
