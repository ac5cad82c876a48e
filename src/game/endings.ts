// How a game ends: the draw rule, the GameOver values, the final record and the result lines it
// leaves for the ratings. Pure, kept out of the actor so it stays about flow.
import { isDraw } from '../engine/index.js';
import { ladderKindOf, type GameRecord, type ResultRecord } from '../domain/records.js';
import type { GameOver, Seat, Termination } from '../domain/types.js';
import { otherSeat } from '../domain/types.js';
import { banksAtEnd } from './clocks.js';
import { effectiveSeeds } from './view.js';

export const winFor = (side: Seat, termination: Termination): GameOver => ({ result: { Win: { side } }, termination });
export const drawBy = (termination: Termination): GameOver => ({ result: { Draw: {} }, termination });
export const lossFor = (seat: Seat, termination: Termination): GameOver => winFor(otherSeat(seat), termination);

/**
 * Whether the game is drawn after `rollsMade` rolls with this halfmove counter. The rule itself is the
 * engine's; the configurable roll limit (`maxRolls`) only ever shortens it (tests).
 */
export function drawnAt(halfmove: number, rollsMade: number, maxRolls: number): boolean {
  return isDraw(halfmove, rollsMade) || rollsMade >= maxRolls;
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
  const ladder = ladderKindOf(rec);
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
      ...(ladder ? { ladder } : {}),
      termination: over.termination,
      finishedAt: rec.finishedAt ?? 0,
    });
  }
  return out;
}
