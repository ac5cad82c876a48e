// Small pure helpers for verdicts and game endings, kept out of the actor so it stays about flow.
import type { GameRecord, ResultRecord } from '../domain/records.js';
import type { GameOver, MoveVerdict, Seat, Termination } from '../domain/types.js';
import { otherSeat } from '../domain/types.js';
import { banksAtEnd } from './clocks.js';
import { effectiveSeeds } from './view.js';

export const GAME_OVER: MoveVerdict = { applied: false, version: null, reason: 'game is over' };
export const NOT_YOUR_TURN: MoveVerdict = { applied: false, version: null, reason: 'not your turn' };
export const ILLEGAL_TURN: MoveVerdict = { applied: false, version: null, reason: 'illegal turn' };
export const SEED_REASON = 'seed must be 16..256 characters';
export const SEED_MIN = 16;
export const SEED_MAX = 256;

export const winFor = (side: Seat, termination: Termination): GameOver => ({ result: { Win: { side } }, termination });
export const drawBy = (termination: Termination): GameOver => ({ result: { Draw: {} }, termination });
export const lossFor = (seat: Seat, termination: Termination): GameOver => winFor(otherSeat(seat), termination);

/**
 * The free-text part of an `illegal turn` Rejected reason: the submitted moves, space separated, cut
 * short so a hostile body cannot blow up an event every watcher receives.
 */
export function describeMoves(moves: readonly unknown[]): string {
  if (moves.length === 0) return '(no moves)';
  const text = moves.map((m) => (typeof m === 'string' ? m : JSON.stringify(m) ?? String(m))).join(' ');
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}

/** A syntactically sane move list: a turn spends at most three dice, so at most three micro-moves. */
export function plausibleMoves(moves: readonly unknown[]): moves is readonly string[] {
  return Array.isArray(moves) && moves.length >= 1 && moves.length <= 3 && moves.every((m) => typeof m === 'string' && m.length <= 5);
}

/** The final record: status Ended, seeds revealed, the running clock charged and stopped. */
export function finalRecord(base: GameRecord, over: GameOver, now: number): GameRecord {
  return {
    ...base,
    status: { Ended: { over } },
    dice: null,
    clocks: banksAtEnd(base.clocks, base.activeSeat, base.clockStartedAt, now),
    clockStartedAt: null,
    revealedSeeds: effectiveSeeds(base),
    finishedAt: now,
    version: base.version + 1,
  };
}

/** One result line per seated bot (external id `bot:…`); humans and guests get none. */
export function resultsOf(rec: GameRecord): ResultRecord[] {
  if (!('Ended' in rec.status)) return [];
  const over = rec.status.Ended.over;
  // Aborted games are the server's failure, never the players': unrated whatever the game was.
  const rated = rec.rated && over.termination !== 'Aborted';
  const out: ResultRecord[] = [];
  for (const seat of ['White', 'Black'] as const) {
    const me = seat === 'White' ? rec.white : rec.black;
    const them = seat === 'White' ? rec.black : rec.white;
    if (!me.id.startsWith('bot:')) continue;
    const result = 'Draw' in over.result ? 'draw' : over.result.Win.side === seat ? 'win' : 'loss';
    out.push({
      gameId: rec.id,
      botId: me.id,
      seat,
      opponentId: them.id,
      result,
      rated,
      termination: over.termination,
      finishedAt: rec.finishedAt ?? 0,
    });
  }
  return out;
}
