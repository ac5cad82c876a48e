// Replays a game's public history with the engine, from the start position, and says where (if
// anywhere) it departs from what the server recorded. A resumed game is "not corrupt" when every
// turn of its history was legal for its roll, every fenAfter is what the engine computes, and the
// game's current position is the last fenAfter. With the reveal (an ended game), the dice of every
// roll are also recomputed from the server seed and the two client seeds.
import {
  START_FEN, applyTurn, formatDfen, legalTree, parseDfen, passTurn, treeHasPath, withDice,
} from '../../src/engine/index.js';
import { commitOf, hexToSeed, rollDice } from '../../src/fair/index.js';

export interface HistoryEntry {
  seat: 'White' | 'Black';
  dice: number[];
  moves: string[];
  fenAfter: string;
}

/** The first six fields of a (d)fen: the position without the pending dice. */
export const sixFields = (dfen: string): string => dfen.split(' ').slice(0, 6).join(' ');

/** The six-field position the history leads to (START_FEN for an empty history). */
export function positionAfter(history: readonly HistoryEntry[]): string {
  return history.length === 0 ? START_FEN : history[history.length - 1].fenAfter;
}

/** Problems found replaying `history` (empty when the history is sound). */
export function replayProblems(history: readonly HistoryEntry[]): string[] {
  const problems: string[] = [];
  let fen = START_FEN;
  for (let i = 0; i < history.length; i++) {
    const e = history[i];
    const at = `turn ${i} (${e.seat} ${JSON.stringify(e.dice)} ${JSON.stringify(e.moves)})`;
    const before = parseDfen(fen);
    if (!before.ok) return [...problems, `${at}: position before does not parse: ${fen}`];
    const mover = before.value.turn === 0 ? 'White' : 'Black';
    if (e.seat !== mover) problems.push(`${at}: seat ${e.seat}, but ${mover} is to move in ${fen}`);
    const dfen = withDice(fen, e.dice);
    if (!dfen.ok) return [...problems, `${at}: dice ${JSON.stringify(e.dice)} do not make a roll: ${dfen.error.message}`];
    const pos = parseDfen(dfen.value);
    if (!pos.ok) return [...problems, `${at}: ${dfen.value} does not parse`];
    const tree = legalTree(pos.value);
    let after: string;
    if (e.moves.length === 0) {
      if (tree.leaves !== 0) problems.push(`${at}: an empty turn, but the roll had ${tree.leaves} legal turns`);
      after = passTurn(pos.value).fenAfter;
    } else {
      if (!treeHasPath(tree.bytes, e.moves)) problems.push(`${at}: not a legal turn of ${dfen.value}`);
      const out = applyTurn(pos.value, e.moves);
      if (!out.ok) return [...problems, `${at}: the engine cannot apply it: ${out.error.message}`];
      after = out.value.fenAfter;
      if (out.value.kingCaptured && i !== history.length - 1) problems.push(`${at}: the king was captured, yet play went on`);
    }
    if (after !== e.fenAfter) problems.push(`${at}: fenAfter ${e.fenAfter}, the engine says ${after}`);
    fen = e.fenAfter;
  }
  return problems;
}

/** The dfen a game should show now: the history's last position, with the pending dice if any. */
export function consistentDfen(history: readonly HistoryEntry[], dfen: string): string | null {
  const expected = positionAfter(history);
  if (sixFields(dfen) !== sixFields(formatDfen(must(parseDfen(expected))))) {
    return `current dfen ${dfen} is not the last fenAfter ${expected}`;
  }
  return null;
}

/** Problems of an ended game's reveal: commit, and every roll recomputed from the seeds. */
export function revealProblems(
  history: readonly HistoryEntry[],
  commit: string,
  seed: string | null,
  clientSeeds: { white: string; black: string } | null,
): string[] {
  if (seed === null || clientSeeds === null) return ['no reveal'];
  const bytes = hexToSeed(seed);
  if (!bytes) return [`seed ${seed} is not hex`];
  const problems: string[] = [];
  if (commitOf(bytes) !== commit) problems.push(`commit ${commit} is not the hash of the revealed seed`);
  history.forEach((e, ply) => {
    const dice = rollDice(bytes, clientSeeds.white, clientSeeds.black, ply);
    if (JSON.stringify([...dice].sort()) !== JSON.stringify([...e.dice].sort())) {
      problems.push(`roll ${ply}: history has ${JSON.stringify(e.dice)}, the reveal gives ${JSON.stringify(dice)}`);
    }
  });
  return problems;
}

function must<T>(r: { ok: true; value: T } | { ok: false; error: { message: string } }): T {
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}
