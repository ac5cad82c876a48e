// Which engine process plays which game: one process per game, or a single process for every game
// when its hello says `"concurrent": true`. A failed process is killed and the next request starts a
// new one, after a wait that doubles (up to 10 s) while starts keep failing.
import { EngineFailure, EngineProcess, type EngineSpec } from './engine.js';
import type { Reporter } from './report.js';

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
  name = 'engine';

  constructor(
    private readonly spec: EngineSpec,
    private readonly restartDelayMs: number,
    private readonly report: Reporter,
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
      if (!this.shared?.alive) this.shared = await this.spawn();
      return this.shared;
    }
    const mine = this.perGame.get(gameId);
    if (mine?.alive) return mine;
    let engine = this.spare?.alive ? this.spare : undefined;
    this.spare = undefined;
    engine ??= await this.spawn();
    this.perGame.set(gameId, engine);
    return engine;
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

  /** The game is over: its own process is told and retired. */
  release(gameId: string, ended: object): void {
    if (this.concurrent) {
      this.shared?.tell(ended);
      return;
    }
    const engine = this.perGame.get(gameId);
    this.perGame.delete(gameId);
    if (!engine) return;
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
    this.shared = this.spare = undefined;
  }

  private async spawn(): Promise<EngineProcess> {
    const delay = this.nextStartAt - Date.now();
    if (delay > 0) await new Promise((r) => setTimeout(r, delay));
    try {
      const engine = await EngineProcess.start(this.spec, (line) => this.report.emit({ event: 'engineLog', message: line }));
      this.report.emit({ event: 'engineStarted', pid: engine.pid ?? null, name: engine.hello!.name });
      return engine;
    } catch (e) {
      this.nextStartAt = Date.now() + this.wait;
      this.wait = Math.min(Math.max(this.wait * 2, 100), MAX_RESTART_WAIT_MS);
      throw e instanceof EngineFailure ? e : new EngineFailure('hello', String(e));
    }
  }
}
