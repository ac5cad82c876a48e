// Checks shared by the whole-service game tests: a game's event log audited against its revealed
// seeds, version continuity, and the DFEN details the events carry.
import { hexToSeed, rollDice } from '../../src/fair/index.js';
import type { Json } from './bot.js';
import { sameMultiset } from './dice.js';
import { kindOf, vOf, type Ev } from './event-stream.js';

/** The halfmove clock (field 5) of a FEN/DFEN. */
export const halfmoveOf = (fen: string): number => Number(fen.split(' ')[4]);

/**
 * Checks one game's whole event log against its reveal: versions strictly +1, every DiceRolled
 * and history entry recomputed from the seeds, commit = SHA-256(seed). Returns a list of problems.
 */
export function auditLog(events: Ev[], history: Json[], commit: string, commitOf: (b: Uint8Array) => string): string[] {
  const bad: string[] = [];
  const ended = events.find((e) => e.GameEnded)?.GameEnded;
  if (!ended) return ['no GameEnded'];
  const seed = hexToSeed(ended.seed);
  if (!seed) return [`no revealed seed: ${ended.seed}`];
  if (commitOf(seed) !== commit) bad.push('commit differs from SHA-256 of the revealed seed');
  const { white, black } = ended.clientSeeds;
  let ply = 0;
  // A stream joined late: the rolls before it are in the Snapshot (history, and a pending roll
  // whose dice are the 7th DFEN field, sorted).
  const snap = events[0]?.Snapshot;
  if (snap) {
    ply = snap.history.length;
    if (snap.state.dicePending) {
      const want = rollDice(seed, white, black, ply);
      const field = snap.state.dfen.split(' ')[6] as string;
      const got = [...field.toUpperCase()].map((c) => 'PNBRQK'.indexOf(c) + 1);
      if (!sameMultiset(want, got)) bad.push(`Snapshot pending roll ply ${ply}: ${field} != ${want}`);
      ply++;
    }
  }
  for (const e of events) {
    if (!e.DiceRolled) continue;
    const want = rollDice(seed, white, black, ply);
    if (JSON.stringify(want) !== JSON.stringify(e.DiceRolled.dice)) bad.push(`DiceRolled ply ${ply}: ${e.DiceRolled.dice} != ${want}`);
    ply++;
  }
  history.forEach((h, i) => {
    const want = rollDice(seed, white, black, i);
    if (JSON.stringify(want) !== JSON.stringify(h.dice)) bad.push(`history[${i}]: ${h.dice} != ${want}`);
  });
  if (history.length !== ply && history.length !== ply - 1) bad.push(`history has ${history.length} turns for ${ply} rolls`);
  bad.push(...wireShapes(events));
  return bad;
}

/** Versions of consecutive events after the Snapshot must go up by exactly one. */
export function versionGaps(events: Ev[]): string[] {
  const bad: string[] = [];
  for (let i = 1; i < events.length; i++) {
    const a = vOf(events[i - 1]);
    const b = vOf(events[i]);
    // A stream opened on a game already over: its Snapshot and GameEnded carry the final version both.
    if (b === a && events[i].GameEnded && 'Ended' in (events[i - 1].Snapshot?.state?.status ?? {})) continue;
    if (b !== a + 1) bad.push(`${kindOf(events[i - 1])} v${a} -> ${kindOf(events[i])} v${b}`);
  }
  return bad;
}

/**
 * DFEN details of the events (docs/ENGINE.md: DFEN): a roll's dfen carries its dice as a 7th field, sorted
 * P<N<B<R<Q<K, upper case for White and lower case for Black; positions after a turn have six fields.
 */
export function wireShapes(events: Ev[]): string[] {
  const bad: string[] = [];
  for (const e of events) {
    if (e.DiceRolled?.dfen !== undefined) {
      const { dice, dfen, seat } = e.DiceRolled;
      const letters = [...dice].sort((a: number, b: number) => a - b).map((d: number) => 'PNBRQK'[d - 1]).join('');
      const want = seat === 'White' ? letters : letters.toLowerCase();
      const fields = dfen.split(' ');
      if (fields.length !== 7 || fields[6] !== want) bad.push(`DiceRolled v${e.DiceRolled.v}: dfen ${dfen}, dice ${dice}`);
      if ((fields[1] === 'w') !== (seat === 'White')) bad.push(`DiceRolled v${e.DiceRolled.v}: side ${fields[1]} for ${seat}`);
    }
    if (e.TurnPlayed && e.TurnPlayed.fenAfter.split(' ').length !== 6) bad.push(`TurnPlayed v${e.TurnPlayed.v}: ${e.TurnPlayed.fenAfter}`);
  }
  return bad;
}
