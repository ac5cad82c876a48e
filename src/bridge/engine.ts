// One engine process, spoken to with the bridge protocol (docs/BRIDGE.md): a JSON object a line on
// its stdin, a JSON object a line back on its stdout. The process is started, greeted, asked for
// turns with a deadline, and killed (by its own pid) when it fails or is no longer needed.
import { spawn, type ChildProcess } from 'node:child_process';

// Version 2 added fields to gameStarted and turn and the options message; an engine written for
// version 1 reads them as unknown fields and plays on unchanged.
export const PROTOCOL_VERSION = 2;

export interface EngineSpec {
  command: string[];
  cwd: string | null;
  helloTimeoutMs: number;
  /** Sent after the hello as `{"type":"options","options":…}` when given (the config's engine.options). */
  options?: Record<string, unknown> | null;
}

/** Who sees the traffic of a process: each message in either direction, and each line of its stderr. */
export interface EngineTaps {
  log: (line: string) => void;
  /** `gameId`: the game an answer without one is taken for (the only turn pending, or the game just ended). */
  traffic?: (engine: EngineProcess, direction: 'to' | 'from', message: Record<string, unknown>, gameId?: string) => void;
  /** An answer for a game that ended while the engine thought: dropped. */
  dropped?: (engine: EngineProcess, gameId: string, message: Record<string, unknown>) => void;
  stderr?: (engine: EngineProcess, line: string) => void;
}

export interface EngineHello {
  name: string;
  /** One process may play every game at once (answers then carry their gameId). */
  concurrent: boolean;
}

/** What went wrong with an engine, for the log and the restart. */
export class EngineFailure extends Error {
  constructor(
    // cancelled: the game ended while the engine was thinking; not the engine's fault.
    readonly kind: 'crash' | 'timeout' | 'illegal' | 'hello' | 'cancelled',
    message: string,
  ) {
    super(message);
    this.name = 'EngineFailure';
  }
}

/** The turn as the engine reads it. */
export interface TurnMessage {
  type: 'turn';
  gameId: string;
  seat: 'White' | 'Black';
  dfen: string;
  dice: number[];
  legalMoves: Record<string, unknown>;
  clocks: { white: number; black: number } | null;
  ply: number;
  version: number;
  /** Each side's Fischer increment in ms (0 without one). */
  increments: { white: number; black: number };
  /** When the bridge stops waiting for this answer (ms since the epoch), the move overhead taken off. */
  deadline: number;
  /** The same as milliseconds left when the turn was written. */
  timeLeftMs: number;
}

interface Waiter {
  resolve: (moves: string[]) => void;
  reject: (e: EngineFailure) => void;
  timer: NodeJS.Timeout;
}

const STDERR_KEPT = 2_000;
/** Games whose pending turn was cancelled, remembered so a late answer is dropped without a word. */
const DROPPED_KEPT = 256;

export class EngineProcess {
  private readonly child: ChildProcess;
  private buffered = '';
  private stderrTail = '';
  private stderrLine = '';
  private readonly dropped = new Set<string>();
  private readonly waiting = new Map<string, Waiter>();
  private helloWaiter: { resolve: (h: EngineHello) => void; reject: (e: EngineFailure) => void } | undefined;
  private exitedWith: string | undefined;
  hello: EngineHello | undefined;
  /** Resolves once the process has exited. */
  readonly exited: Promise<void>;

  private constructor(
    spec: EngineSpec,
    private readonly taps: EngineTaps,
  ) {
    const [program, ...args] = spec.command;
    this.child = spawn(program!, args, {
      cwd: spec.cwd ?? undefined,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stdin!.on('error', () => {}); // a dead engine's closed pipe: the exit handler reports it
    this.child.stdout!.setEncoding('utf8').on('data', (s: string) => this.read(s));
    this.child.stderr!.setEncoding('utf8').on('data', (s: string) => {
      this.stderrTail = (this.stderrTail + s).slice(-STDERR_KEPT);
      this.stderrLines(s);
    });
    this.child.on('error', (e) => this.gone(`could not start: ${e.message}`));
    this.exited = new Promise((resolve) => {
      this.child.on('exit', (code, signal) => {
        this.gone(signal ? `killed by ${signal}` : `exited with code ${code}`);
        resolve();
      });
      this.child.on('error', () => resolve());
    });
  }

  /** Starts the program and waits for its hello. */
  static async start(spec: EngineSpec, taps: EngineTaps): Promise<EngineProcess> {
    if (!spec.command.length) throw new EngineFailure('hello', 'no engine command (give it after --)');
    const engine = new EngineProcess(spec, taps);
    const hello = new Promise<EngineHello>((resolve, reject) => (engine.helloWaiter = { resolve, reject }));
    const timer = setTimeout(
      () => engine.helloWaiter?.reject(new EngineFailure('hello', `no hello within ${spec.helloTimeoutMs} ms`)),
      spec.helloTimeoutMs,
    );
    engine.write({ type: 'hello', protocol: PROTOCOL_VERSION });
    try {
      engine.hello = await hello;
      if (spec.options && Object.keys(spec.options).length) engine.write({ type: 'options', options: spec.options });
      return engine;
    } catch (e) {
      engine.kill();
      throw e;
    } finally {
      clearTimeout(timer);
      engine.helloWaiter = undefined;
    }
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get alive(): boolean {
    return this.exitedWith === undefined;
  }

  /** Asks for a turn; rejects with an EngineFailure on exit, timeout or a malformed answer. */
  ask(turn: TurnMessage, timeoutMs: number): Promise<string[]> {
    if (this.exitedWith !== undefined) return Promise.reject(new EngineFailure('crash', this.exitedWith));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(turn.gameId);
        reject(new EngineFailure('timeout', `no answer within ${Math.round(timeoutMs)} ms`));
      }, Math.max(0, timeoutMs));
      this.waiting.set(turn.gameId, { resolve, reject, timer });
      this.write(turn);
    });
  }

  /** A message that needs no answer (gameStarted, gameEnded). */
  tell(message: object): void {
    if (this.exitedWith === undefined) this.write(message);
  }

  /**
   * The game ended: a turn of it still being thought about is given up (its ask rejects as
   * `cancelled`), and an answer that comes later is dropped quietly.
   */
  cancel(gameId: string): void {
    const waiter = this.waiting.get(gameId);
    if (!waiter) return;
    this.waiting.delete(gameId);
    clearTimeout(waiter.timer);
    this.dropped.add(gameId);
    if (this.dropped.size > DROPPED_KEPT) this.dropped.delete(this.dropped.values().next().value!);
    waiter.reject(new EngineFailure('cancelled', `game ${gameId} ended`));
  }

  /** Closes stdin (a well-behaved engine exits), then kills what is still running after a grace. */
  retire(graceMs = 2_000): void {
    if (this.exitedWith !== undefined) return;
    this.child.stdin!.end();
    const timer = setTimeout(() => this.kill(), graceMs);
    timer.unref();
    this.child.once('exit', () => clearTimeout(timer));
  }

  kill(): void {
    if (this.exitedWith === undefined && this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill('SIGKILL');
    }
  }

  private write(message: object): void {
    this.taps.traffic?.(this, 'to', message as Record<string, unknown>);
    this.child.stdin!.write(`${JSON.stringify(message)}\n`);
  }

  private stderrLines(chunk: string): void {
    this.stderrLine += chunk;
    let nl: number;
    while ((nl = this.stderrLine.indexOf('\n')) >= 0) {
      this.taps.stderr?.(this, this.stderrLine.slice(0, nl));
      this.stderrLine = this.stderrLine.slice(nl + 1);
    }
    // A line without an end is passed on in pieces rather than held without bound.
    if (this.stderrLine.length > STDERR_KEPT) {
      this.taps.stderr?.(this, this.stderrLine);
      this.stderrLine = '';
    }
  }

  private read(chunk: string): void {
    this.buffered += chunk;
    let nl: number;
    while ((nl = this.buffered.indexOf('\n')) >= 0) {
      const line = this.buffered.slice(0, nl).trim();
      this.buffered = this.buffered.slice(nl + 1);
      if (line) this.line(line);
    }
    if (this.buffered.length > 1_000_000) this.fail(new EngineFailure('illegal', 'a line longer than 1 MB'));
  }

  private line(line: string): void {
    let msg: Record<string, unknown>;
    try {
      const v = JSON.parse(line) as unknown;
      if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error('not an object');
      msg = v as Record<string, unknown>;
    } catch {
      this.taps.log(`engine says: ${line.slice(0, 200)}`);
      return;
    }
    // The game a line without a gameId is about: the only turn pending, or for an answer with none
    // pending, the game that ended last (a per-game engine's late answer).
    const sole = this.waiting.size === 1 ? [...this.waiting.keys()][0] : this.waiting.size === 0 && 'moves' in msg ? [...this.dropped].at(-1) : undefined;
    this.taps.traffic?.(this, 'from', msg, typeof msg.gameId === 'string' ? msg.gameId : sole);
    if (msg.type === 'hello' && this.helloWaiter) {
      this.helloWaiter.resolve({
        name: typeof msg.name === 'string' ? msg.name : 'engine',
        concurrent: msg.concurrent === true,
      });
      return;
    }
    if (msg.type === 'log') {
      this.taps.log(`engine: ${String(msg.message ?? '').slice(0, 200)}`);
      return;
    }
    if (!('moves' in msg)) {
      this.taps.log(`engine sent an unknown message: ${line.slice(0, 200)}`);
      return;
    }
    const key = typeof msg.gameId === 'string' ? msg.gameId : this.waiting.size === 1 ? [...this.waiting.keys()][0]! : undefined;
    const waiter = key === undefined ? undefined : this.waiting.get(key);
    if (!waiter) {
      // The answer to a turn of a game that ended meanwhile: expected, and nothing to report.
      const late = typeof msg.gameId === 'string' ? (this.dropped.has(msg.gameId) ? msg.gameId : undefined) : this.waiting.size === 0 ? [...this.dropped].at(-1) : undefined;
      if (late === undefined) this.taps.log(`engine answered no pending turn: ${line.slice(0, 200)}`);
      else this.taps.dropped?.(this, late, msg);
      return;
    }
    this.waiting.delete(key!);
    clearTimeout(waiter.timer);
    const moves = msg.moves;
    if (!Array.isArray(moves) || !moves.every((m) => typeof m === 'string')) {
      waiter.reject(new EngineFailure('illegal', `moves is not a list of strings: ${line.slice(0, 200)}`));
    } else waiter.resolve(moves as string[]);
  }

  private fail(e: EngineFailure): void {
    for (const w of this.waiting.values()) {
      clearTimeout(w.timer);
      w.reject(e);
    }
    this.waiting.clear();
    this.helloWaiter?.reject(e);
  }

  private gone(how: string): void {
    if (this.exitedWith !== undefined) return;
    const tail = this.stderrTail.trim().split('\n').slice(-3).join(' | ');
    this.exitedWith = tail ? `${how}: ${tail}` : how;
    this.fail(new EngineFailure(this.helloWaiter ? 'hello' : 'crash', this.exitedWith));
  }
}
