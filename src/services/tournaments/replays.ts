// A pair whose game the server aborted (its own failure: the game ends as a draw marked Aborted) is
// not a result of the players. Counting it as a draw would hand the weaker bot half a point and move
// the SPRT on something nobody played, so the attempt is voided and the pair is played again at the
// same index: the same server seed and client seeds, hence the same dice, with new game ids. A
// failure that keeps coming back must not hold the event (and the players' seats) for ever, so a
// pair is replayed at most MAX_REPLAYS times and is then void for good, with the reason on the pair.
import { pairRunning, type TournamentPairRecord, type TournamentRecord } from '../../domain/tournaments.js';
import { face } from './pair-records.js';

/** Replays of one pair at most; the next aborted attempt makes it void for good. */
export const MAX_REPLAYS = 3;

/** A voided pair waiting to be started again (it holds its place among the running pairs meanwhile). */
export const awaitingReplay = (p: TournamentPairRecord): boolean => p.games === null && pairRunning(p);

/** The stream line of a voided attempt: `replayed`, played again at the same index; else void for good. */
function voidedLine(ev: TournamentRecord, p: TournamentPairRecord, games: [string, string], reason: string, replayed: boolean) {
  return { PairVoided: { eventId: ev.id, index: p.index, round: p.round, players: [face(ev, p.a), face(ev, p.b)], games, reason, replayed } };
}

/** The pair's record without the marks of the attempt just voided. */
function cleared(p: TournamentPairRecord): TournamentPairRecord {
  const { aborted: _aborted, ...rest } = p;
  return { ...rest, scores: [null, null], timeLosses: [], finishedSeq: 0 };
}

/**
 * Voids the attempt of the pair at `at` (both of its games over, one aborted). It is played again
 * while the event still starts pairs (running, no SPRT verdict) and the pair has had fewer than
 * MAX_REPLAYS replays; otherwise it is void for good. Returns the record, the stream line and the voided games.
 */
export function voidAttempt(ev: TournamentRecord, at: number): { next: TournamentRecord; value: { line: unknown; games: string[] } } {
  const p = ev.pairs[at];
  const games = p.games!;
  const reason = 'a game of the pair was aborted by the server';
  const earlier = p.replays ?? [];
  const startsPairs = ev.state === 'running' && ev.verdict === null;
  let pair: TournamentPairRecord;
  if (startsPairs && earlier.length < MAX_REPLAYS) {
    pair = { ...cleared(p), games: null, replays: [...earlier, { games, reason }] };
  } else {
    const why = startsPairs ? `replayed ${MAX_REPLAYS} times already` : 'the event starts no more pairs';
    pair = { ...cleared(p), void: true, voidReason: `${reason}; not replayed: ${why}` };
  }
  const next = { ...ev, pairs: ev.pairs.map((q, i) => (i === at ? pair : q)) };
  return { next, value: { line: voidedLine(ev, pair, games, pair.void ? pair.voidReason! : reason, !pair.void), games } };
}

/**
 * Makes every pair still waiting for its replay void for good (the event stopped starting pairs: a
 * cancel, an SPRT verdict). Null when none waits.
 */
export function dropReplays(ev: TournamentRecord, why: string): { next: TournamentRecord; lines: unknown[] } | null {
  if (!ev.pairs.some(awaitingReplay)) return null;
  const lines: unknown[] = [];
  const pairs = ev.pairs.map((p) => {
    if (!awaitingReplay(p)) return p;
    const last = p.replays?.[p.replays.length - 1];
    const q: TournamentPairRecord = { ...p, games: last?.games ?? null, replays: p.replays?.slice(0, -1), void: true, voidReason: `${last?.reason ?? 'voided'}; not replayed: ${why}` };
    if (q.replays?.length === 0) delete q.replays;
    if (last) lines.push(voidedLine(ev, q, last.games, q.voidReason!, false));
    return q;
  });
  return { next: { ...ev, pairs }, lines };
}

/** What a pass may start, in order: the pairs waiting for a replay (`replay`: their index), then the queue (`at`: its entry). */
export function startable(ev: TournamentRecord): { at: number; a: number; b: number; round: number; replay?: number }[] {
  const replays = ev.pairs.filter(awaitingReplay).map((p) => ({ at: -1, a: p.a, b: p.b, round: p.round, replay: p.index }));
  return [...replays, ...ev.queue.map(([a, b, round], at) => ({ at, a, b, round }))];
}

/**
 * A cancelling event once its running pairs are over: a pair waiting for its replay is not started
 * (void for good), and the event is `cancelled`. Null for the record: unchanged.
 */
export function closeCancelled(ev: TournamentRecord, now: number): { next: TournamentRecord | null; lines: unknown[]; closed: boolean } {
  if (ev.state !== 'cancelling') return { next: null, lines: [], closed: false };
  const dropped = dropReplays(ev, 'the event was cancelled');
  const cur = dropped?.next ?? ev;
  const closed = !cur.pairs.some(pairRunning);
  return { next: closed ? { ...cur, state: 'cancelled', finishedAt: now } : (dropped?.next ?? null), lines: dropped?.lines ?? [], closed };
}
