// Which engine process plays which game: one process per game, or a single process for every game
// when its hello says `"concurrent": true`. A failed process is killed and the next request starts a
// new one, after a wait that doubles (up to 10 s) while starts keep failing.
// Each game's engine hears of the game (gameStarted) before its first turn, a restarted process
// included; every message to and from a process goes to the journal of the game it concerns.
import { EngineFailure, EngineProcess, type EngineSpec } from './engine.js';
import type { Reporter } from './report.js';

/** Where the traffic goes: each game's transcript, and the log file for stderr (journal.ts). */
export interface EngineJournal {
  traffic(gameId: string, direction: 'to' | 'from', message: Record<string, unknown>): void;
  game(gameId: string, event: Record<string, unknown>): void;
  stderr(pid: number | null, line: string): void;
}

const MAX_RESTART_WAIT_MS = 10_000;

export class Engines {
  private shared: EngineProcess | undefined;
  private spare: EngineProcess | undefined;
  private readonly perGame = new Map<string, EngineProcess>();
  /** Processes told their game is over and given a grace to exit. */
  private readonly retiring = new Set<EngineProcess>();
  private concurrent = false;
  private wait: number;
  private nextStartAt = 0;
  /** The gameStarted message of each running game, told again to a process that takes the game over. */
  private readonly greetings = new Map<string, object>();
  /** What a process said and was told before it had a game (hello, options), for its game's transcript. */
  private readonly preambles = new Map<EngineProcess, { direction: 'to' | 'from'; message: Record<string, unknown> }[]>();
  name = 'engine';

  constructor(
    private readonly spec: EngineSpec,
    private readonly restartDelayMs: number,
    private readonly report: Reporter,
    private readonly journal?: EngineJournal,
  ) {
    this.wait = restartDelayMs;
  }

  /** Starts a first process to read its hello; it then plays the first game (or all of them). */
  async probe(): Promise<{ name: string; concurrent: boolean }> {
    const engine = await this.spawn();
    this.concurrent = engine.hello!.concurrent;
    this.name = engine.hello!.name;
    if (this.concurrent) this.shared = engine;
    else this.spare = engine;
    return { name: this.name, concurrent: this.concurrent };
  }

  /** The process that plays this game, started if needed. Throws an EngineFailure if it cannot start. */
  async forGame(gameId: string): Promise<EngineProcess> {
    if (this.concurrent) {
      if (!this.shared?.alive) {
        const engine = await this.spawn();
        this.shared = engine;
        for (const [id, greeting] of this.greetings) this.greet(engine, id, greeting);
      }
      return this.shared;
    }
    const mine = this.perGame.get(gameId);
    if (mine?.alive) return mine;
    let engine = this.spare?.alive ? this.spare : undefined;
    this.spare = undefined;
    engine ??= await this.spawn();
    this.perGame.set(gameId, engine);
    const greeting = this.greetings.get(gameId);
    if (greeting) this.greet(engine, gameId, greeting);
    return engine;
  }

  /**
   * A game is admitted: its engine is told `started` now when it has one (a concurrent engine), or
   * else before its first turn; so is every process that takes it over after a failure.
   */
  begin(gameId: string, started: object): void {
    this.greetings.set(gameId, started);
    const engine = this.concurrent ? this.shared : this.perGame.get(gameId);
    if (engine?.alive) this.greet(engine, gameId, started);
  }

  private greet(engine: EngineProcess, gameId: string, started: object): void {
    for (const p of this.preambles.get(engine) ?? []) this.journal?.traffic(gameId, p.direction, p.message);
    if (!this.concurrent) this.preambles.delete(engine);
    engine.tell(started);
  }

  /** The engine failed in this game: kill it; the next forGame starts another. */
  failed(engine: EngineProcess): void {
    engine.kill();
    for (const [id, e] of this.perGame) if (e === engine) this.perGame.delete(id);
    if (this.shared === engine) this.shared = undefined;
    this.nextStartAt = Date.now() + this.wait;
    this.wait = Math.min(Math.max(this.wait * 2, 100), MAX_RESTART_WAIT_MS);
  }

  /** The engine answered well: the restart wait starts over. */
  succeeded(): void {
    this.wait = this.restartDelayMs;
  }

  /** Tells the game's engine a message that needs no answer. */
  tell(gameId: string, message: object): void {
    (this.concurrent ? this.shared : this.perGame.get(gameId))?.tell(message);
  }

  /**
   * The game is over: its process is told at once (a turn it is thinking about is given up, its
   * answer dropped), and a per-game process is retired.
   */
  release(gameId: string, ended: object): void {
    this.greetings.delete(gameId);
    if (this.concurrent) {
      this.shared?.cancel(gameId);
      this.shared?.tell(ended);
      return;
    }
    const engine = this.perGame.get(gameId);
    this.perGame.delete(gameId);
    if (!engine) return;
    engine.cancel(gameId);
    engine.tell(ended);
    engine.retire();
    this.retiring.add(engine);
    engine.exited.then(() => this.retiring.delete(engine));
  }

  /** Every game is over: every process still running is killed (by its own pid). */
  closeAll(): void {
    for (const e of [this.shared, this.spare, ...this.perGame.values(), ...this.retiring]) e?.kill();
    this.perGame.clear();
    this.retiring.clear();
    this.preambles.clear();
    this.shared = this.spare = undefined;
  }

  private async spawn(): Promise<EngineProcess> {
    const delay = this.nextStartAt - Date.now();
    if (delay > 0) await new Promise((r) => setTimeout(r, delay));
    try {
      const engine = await EngineProcess.start(this.spec, {
        log: (line) => this.report.emit({ event: 'engineLog', message: line }),
        traffic: (e, direction, message, gameId) => this.traffic(e, direction, message, gameId),
        dropped: (_e, gameId, message) => this.journal?.game(gameId, { event: 'lateAnswerDropped', message }),
        stderr: (e, line) => this.journal?.stderr(e.pid ?? null, line),
      });
      engine.exited.then(() => this.preambles.delete(engine));
      this.report.emit({ event: 'engineStarted', pid: engine.pid ?? null, name: engine.hello!.name });
      return engine;
    } catch (e) {
      this.nextStartAt = Date.now() + this.wait;
      this.wait = Math.min(Math.max(this.wait * 2, 100), MAX_RESTART_WAIT_MS);
      throw e instanceof EngineFailure ? e : new EngineFailure('hello', String(e));
    }
  }

  /** A message goes to its game's transcript: named in it, or the game its process plays. */
  private traffic(engine: EngineProcess, direction: 'to' | 'from', message: Record<string, unknown>, taken?: string): void {
    if (!this.journal) return;
    let gameId = typeof message.gameId === 'string' ? message.gameId : taken;
    if (gameId === undefined && !this.concurrent) {
      for (const [id, e] of this.perGame) if (e === engine) gameId = id;
    }
    if (gameId !== undefined) return this.journal.traffic(gameId, direction, message);
    const kept = this.preambles.get(engine) ?? [];
    if (kept.length < 16) kept.push({ direction, message });
    this.preambles.set(engine, kept);
  }
}
