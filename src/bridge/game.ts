// One game, from its start to GameEnded: the bridge sends a client seed, holds the game stream
// (reopened after any drop; the Snapshot it starts with says where things stand), asks the engine for
// each of its turns with the whole legal-move tree, checks the answer against the tree, and sends it.
// A forced pass is the server's to play. When the engine fails, it is restarted and asked again while
// the clock allows; when the clock is about to fall with no legal answer, the bridge resigns.
// Before anything is asked of an engine, the first Snapshot is shown to `admit`: a game the bridge
// will not play ends the run there (`refused` says why) and the bridge decides what to do with it.
import { randomBytes } from 'node:crypto';
import { isTransient, type Client, type GameEvent } from '../client/index.js';
import type { Clocks, GameState, LegalMoveTree, Seat, TimeControl } from '../domain/types.js';
import type { AnnouncedGame } from './admit.js';
import { EngineFailure, type TurnMessage } from './engine.js';
import type { Engines } from './engines.js';
import type { Reporter } from './report.js';

/** A turn in an Unlimited game must come within this long (the server's rule for games without a clock). */
const UNLIMITED_TURN_MS = 120_000;
const DIE_LETTERS = 'PNBRQK';

export interface GameSettings {
  turnTimeoutMs: number;
  resignMarginMs: number;
  /** Taken off the time the engine is given, for the move's way to the server (config engine.moveOverheadMs). */
  moveOverheadMs?: number;
  /** Public face of this bridge's identity: team and name joined by a space. */
  face: string;
  /**
   * Called once, at the first Snapshot of a game not yet over, before any engine is asked: why the
   * game is not to be played, or null to play it.
   */
  admit?: (seat: Seat | null, game: AnnouncedGame) => string | null;
  /**
   * Called once, at the first Snapshot of an admitted game: the seat played, the opponent's public
   * name and the game's state. No turn is asked of the engine before what it returns has settled.
   */
  onStart?: (seat: Seat | null, opponent: string | null, state: GameState) => void | Promise<void>;
  /** Each turn played and the end, for the game's transcript. */
  record?: (entry: Record<string, unknown>) => void;
}

/** A side's Fischer increment in ms (0 for the other kinds). */
export function incrementMs(tc: TimeControl): number {
  return 'Fischer' in tc ? tc.Fischer.incrementSeconds * 1000 : 0;
}

export interface GameOutcome {
  seat: Seat | null;
  result: 'win' | 'loss' | 'draw';
  termination: string;
}

interface PendingTurn {
  version: number;
  dfen: string;
  dice: number[];
  tree: LegalMoveTree | null;
  clocks: Clocks | null;
  /** Local time the clocks were read. */
  at: number;
}

/** True when moves is a root-to-leaf path of the tree. */
export function isLegalTurn(tree: LegalMoveTree, moves: string[]): boolean {
  let node: LegalMoveTree | undefined = tree;
  for (const m of moves) {
    node = Object.hasOwn(node, m) ? node[m] : undefined;
    if (!node) return false;
  }
  return moves.length > 0 && Object.keys(node).length === 0;
}

/** The dice of a DFEN's 7th field (`NBK` = 2, 3, 6). */
export function diceOf(dfen: string): number[] {
  const field = dfen.split(' ')[6] ?? '';
  return [...field].map((c) => DIE_LETTERS.indexOf(c.toUpperCase()) + 1).filter((d) => d > 0);
}

export class GameRunner {
  private seatOf: Seat | null = null;
  private greeted = false;
  /** Set when `admit` refused the game: why. */
  refused: string | undefined;
  private ply = 0;
  private ended: GameOutcome | undefined;
  /** Versions of rolls already being played or answered, and the answer given. */
  private readonly handled = new Map<number, string[] | null>();
  private submitting: number | undefined;
  private stream: { close(): void } | undefined;
  /** Settles when the engine has been told of the game (onStart). */
  private started: Promise<void> = Promise.resolve();
  private increments = { white: 0, black: 0 };

  constructor(
    private readonly gameId: string,
    private readonly client: Client,
    private readonly engines: Engines,
    private readonly report: Reporter,
    private readonly settings: GameSettings,
  ) {}

  /** The seat this bridge holds, once the first Snapshot has shown it (null: not seated, or not yet known). */
  get seat(): Seat | null {
    return this.seatOf;
  }

  /** Plays the game to its end; resolves with the outcome (or null if the game vanished or was refused). */
  async run(): Promise<GameOutcome | null> {
    const seeded = await this.client.submitSeed(this.gameId, { seed: randomBytes(24).toString('base64url') });
    if (!seeded.ok && !isTransient(seeded)) {
      this.report.emit({ event: 'error', message: `game ${this.gameId}: seed refused: ${seeded.problem.detail}` });
    }
    const stream = this.client.streamGameEvents(this.gameId, {
      onRetry: (f, waitMs) =>
        this.report.emit({ event: 'reconnecting', stream: `game ${this.gameId}`, status: f.status, detail: f.problem.detail, waitMs }),
    });
    this.stream = stream;
    try {
      for await (const event of stream) {
        this.on(event);
        if (this.ended || this.refused !== undefined) break;
      }
    } catch (e) {
      this.report.emit({ event: 'error', message: `game ${this.gameId}: ${(e as Error).message}` });
    } finally {
      stream.close();
    }
    return this.ended ?? null;
  }

  stop(): void {
    this.stream?.close();
  }

  private on(event: GameEvent): void {
    if ('Snapshot' in event) {
      const { state, history } = event.Snapshot;
      this.ply = history.length;
      if (!this.greeted) {
        this.greeted = true;
        if (state.players.white.name === this.settings.face) this.seatOf = 'White';
        else if (state.players.black.name === this.settings.face) this.seatOf = 'Black';
        if (!('Ended' in state.status)) {
          const why = this.settings.admit?.(this.seatOf, state) ?? null;
          if (why !== null) {
            this.refused = why;
            return;
          }
        }
        const other = this.seatOf === 'White' ? state.players.black : state.players.white;
        const controls = state.timeControls ?? { white: state.timeControl, black: state.timeControl };
        this.increments = { white: incrementMs(controls.white), black: incrementMs(controls.black) };
        this.started = Promise.resolve(this.settings.onStart?.(this.seatOf, other.name ?? other.kind, state)).catch(() => {});
      }
      if ('Ended' in state.status) {
        this.finish(state.status.Ended.over);
        return;
      }
      if (state.dicePending && state.activeSeat === this.seatOf) void this.fromSnapshot(state.clocks);
    } else if ('DiceRolled' in event) {
      const r = event.DiceRolled;
      if (r.seat !== this.seatOf) return;
      void this.play({ version: r.v, dfen: r.dfen, dice: r.dice, tree: r.legalMoves, clocks: r.clocks, at: Date.now() });
    } else if ('TurnPlayed' in event) {
      this.ply++;
      const p = event.TurnPlayed;
      this.settings.record?.({ event: 'TurnPlayed', v: p.v, seat: p.seat, moves: p.moves, fenAfter: p.fenAfter });
    } else if ('Rejected' in event) {
      const r = event.Rejected;
      if (r.seat === this.seatOf) this.report.emit({ event: 'error', message: `game ${this.gameId}: rejected: ${r.reason}` });
    } else if ('GameEnded' in event) {
      this.finish(event.GameEnded.over);
    }
  }

  private finish(over: { result: { Win: { side: Seat } } | { Draw: Record<string, never> }; termination: string }): void {
    const result = 'Draw' in over.result ? 'draw' : over.result.Win.side === this.seatOf ? 'win' : 'loss';
    this.ended = { seat: this.seatOf, result, termination: over.termination };
    this.settings.record?.({ event: 'GameEnded', result, termination: over.termination });
  }

  /** After a (re)connect with our roll pending: the roll's own version and tree come from /moves. */
  private async fromSnapshot(clocks: Clocks | null): Promise<void> {
    const at = Date.now();
    const r = await this.client.getLegalMoves(this.gameId);
    if (!r.ok || !r.value.dicePending) return;
    const { version, dfen, legalMoves } = r.value;
    const answered = this.handled.get(version);
    if (answered && this.submitting !== version) {
      void this.submit(version, answered, Number.POSITIVE_INFINITY); // sent before the drop; send again
      return;
    }
    await this.play({ version, dfen, dice: diceOf(dfen), tree: legalMoves, clocks, at });
  }

  private deadline(turn: PendingTurn): number {
    const bank = turn.clocks && this.seatOf ? turn.clocks[this.seatOf === 'White' ? 'white' : 'black'] : UNLIMITED_TURN_MS;
    return turn.at + bank;
  }

  private async play(turn: PendingTurn): Promise<void> {
    if (this.handled.has(turn.version) || this.ended) return;
    this.handled.set(turn.version, null);
    let tree = turn.tree;
    if (tree === null) {
      const r = await this.client.getLegalMoves(this.gameId);
      if (!r.ok || r.value.version !== turn.version) return; // the stream will say what happened
      tree = r.value.legalMoves;
    }
    if (Object.keys(tree).length === 0) {
      this.report.emit({ event: 'forcedPass', gameId: this.gameId, version: turn.version });
      return; // the server plays a forced pass itself
    }
    await this.started;
    const deadline = this.deadline(turn);
    const message = (timeLeftMs: number): TurnMessage => ({
      type: 'turn',
      gameId: this.gameId,
      seat: this.seatOf!,
      dfen: turn.dfen,
      dice: turn.dice,
      legalMoves: tree,
      clocks: turn.clocks,
      ply: this.ply,
      version: turn.version,
      increments: this.increments,
      deadline: Date.now() + timeLeftMs,
      timeLeftMs,
    });
    // The move overhead is the move's way to the server: the engine must answer that much earlier.
    const margin = this.settings.resignMarginMs + (this.settings.moveOverheadMs ?? 0);
    for (;;) {
      if (this.ended) return;
      const budget = deadline - Date.now() - margin;
      if (budget <= 0) {
        this.report.emit({ event: 'resigned', gameId: this.gameId, why: 'the clock is about to fall and the engine gave no legal turn' });
        await this.client.resign(this.gameId);
        return;
      }
      let engine;
      try {
        engine = await this.engines.forGame(this.gameId);
      } catch (e) {
        this.report.emit({ event: 'engineFailed', gameId: this.gameId, kind: 'hello', message: (e as Error).message });
        continue;
      }
      const left = deadline - Date.now() - margin; // starting the engine took time
      if (left <= 0) continue;
      const timeLeftMs = Math.floor(Math.min(this.settings.turnTimeoutMs, left));
      try {
        const moves = await engine.ask(message(timeLeftMs), timeLeftMs);
        if (!isLegalTurn(tree, moves)) throw new EngineFailure('illegal', `illegal turn ${JSON.stringify(moves)} for ${turn.dfen}`);
        this.engines.succeeded();
        this.handled.set(turn.version, moves);
        await this.submit(turn.version, moves, deadline);
        return;
      } catch (e) {
        if (!(e instanceof EngineFailure)) throw e;
        if (e.kind === 'cancelled' || this.ended) return; // the game ended while the engine thought
        this.report.emit({ event: 'engineFailed', gameId: this.gameId, kind: e.kind, message: e.message });
        this.engines.failed(engine);
      }
    }
  }

  /**
   * Sends a turn, and again after a failure that waiting can mend (no answer, 429, 5xx) until the
   * game moves on. The roll's version rides along, so a server that already applied the first copy
   * answers the second with the original verdict, and never applies it to a later roll.
   */
  private async submit(version: number, moves: string[], deadline: number): Promise<void> {
    this.submitting = version;
    let wait = 100;
    try {
      for (;;) {
        const r = await this.client.submitMove(this.gameId, { moves, version });
        // Applied, or no verdict in time (the stream tells which): either way this turn is sent.
        if (r.ok || r.pending) return;
        if (r.status === 409 && r.problem.code === 'refused') {
          // 'not your turn' is what a copy of a turn already played (or overtaken) gets: nothing to say.
          if (r.problem.detail !== 'not your turn') this.report.emit({ event: 'error', message: `game ${this.gameId}: move refused: ${r.problem.detail}` });
          return;
        }
        if (!isTransient(r) || this.ended || Date.now() > deadline) {
          this.report.emit({ event: 'error', message: `game ${this.gameId}: move not sent: ${r.status} ${r.problem.detail}` });
          return;
        }
        await new Promise((res) => setTimeout(res, Math.max(wait, (r.retryAfter ?? 0) * 1000)));
        wait = Math.min(wait * 2, 2_000);
      }
    } finally {
      if (this.submitting === version) this.submitting = undefined;
    }
  }
}
