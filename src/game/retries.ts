// What a game remembers to answer a retried move: each seat's last applied turn (the versions that
// named its roll, its moves, its verdict). In memory only: a restart forgets it. The rules are
// described in docs/API.md ("Retrying a turn safely").
import type { MoveVerdict, Seat } from '../domain/types.js';
import { NOT_YOUR_TURN, plausibleMoves } from './verdicts.js';

/** A seat's last applied turn: the versions a retry of it may name, its moves and its verdict. */
interface Answered {
  from: number;
  to: number;
  moves: readonly string[];
  verdict: MoveVerdict;
}

function sameMoves(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((m, i) => m === b[i]);
}

export class AnsweredTurns {
  private readonly last = new Map<Seat, Answered>();

  /** `seat` played `moves` for the roll named by versions `from`..`to`, with `verdict`. */
  played(seat: Seat, from: number, to: number, moves: readonly string[], verdict: MoveVerdict): void {
    this.last.set(seat, { from, to, moves, verdict });
  }

  /** `seat` passed (no turn of its own): a repeat of its previous turn is no longer a retry. */
  passed(seat: Seat): void {
    this.last.delete(seat);
  }

  /**
   * The answer to `moves` when they are a retry (or a conflicting retry) of `seat`'s last turn; null
   * when they are to be judged as a new move. `deciding`: `seat` has a roll pending now.
   */
  retried(seat: Seat, moves: readonly string[], version: number | undefined, deciding: boolean): MoveVerdict | null {
    const last = this.last.get(seat);
    if (last === undefined) return null;
    const same = plausibleMoves(moves) && sameMoves(last.moves, moves);
    if (version !== undefined) {
      if (version < last.from || version > last.to) return null;
      return same ? last.verdict : NOT_YOUR_TURN;
    }
    // Without a version, only while this seat has no decision pending: otherwise the moves are new.
    if (deciding) return null;
    return same ? last.verdict : null;
  }
}
