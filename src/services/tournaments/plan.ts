// What a running event does next before pairs start, from its record alone: fill its queue (the
// first start, the next Swiss round, more SPRT pairs) or end it. See docs/DECISIONS.md "Event pairing".
import { pairRunning, playsOn, type TournamentPairRecord, type TournamentRecord } from '../../domain/tournaments.js';
import { cannotStart, fixedEncounters, meetingKey, swissRound } from './pairing.js';
import { pairsRunning } from './reveal.js';
import { seedOrder } from './seeding.js';
import { tournamentTables } from './standings.js';

/** The event's next state before pairs start: a filled queue, or over. Null: unchanged. `now` dates an end. */
export function planNext(ev: TournamentRecord, now: number): TournamentRecord | null {
  // A withdrawn player is paired no more (its pairs still to start left the queue when it withdrew).
  const playing = ev.players.flatMap((p, i) => (playsOn(p) ? [i] : []));
  const busy = pairsRunning(ev) > 0;
  const finish = (note: string | null): TournamentRecord => ({ ...ev, state: 'finished', finishedAt: now, note });
  // Only a record started before starts were checked under the record's lock can get here (a
  // decline racing the host's start): it is cancelled rather than paired with a missing player.
  const unplayable = cannotStart(ev);
  if (unplayable !== null) {
    if (busy) return ev.queue.length > 0 ? { ...ev, queue: [] } : null;
    return { ...ev, state: 'cancelled', finishedAt: now, queue: [], note: unplayable };
  }
  // Withdrawals left nobody to meet (a match or an SPRT whose player withdrew): what ran counts.
  if (playing.length < 2) {
    if (busy) return ev.queue.length > 0 ? { ...ev, queue: [] } : null;
    return finish(`withdrawals left ${playing.length} player${playing.length === 1 ? '' : 's'}: the event ended early`);
  }
  if (ev.format === 'sprt') {
    const room = ev.maxPairs - ev.pairs.length - ev.queue.length;
    if (ev.verdict === null && room > 0 && ev.queue.length < ev.concurrency) {
      const add = Math.min(room, ev.concurrency - ev.queue.length);
      return { ...ev, queue: [...ev.queue, ...Array.from({ length: add }, () => [playing[0], playing[1], 0] as [number, number, number])] };
    }
    return ev.queue.length === 0 && !busy ? finish(null) : null;
  }
  if (ev.format === 'swiss') {
    if (ev.queue.length > 0 || busy) return null;
    const round = Math.max(0, ...ev.pairs.map((p) => p.round), ...ev.byes.map(([r]) => r));
    if (round >= ev.rounds) return finish(null);
    const tables = tournamentTables(ev);
    const points = new Map(tables.standings.map((s) => [s.player, s.points]));
    const met = new Set(ev.pairs.map((p) => meetingKey(p.a, p.b)));
    const r = swissRound({
      // In seed order, so that equal points keep it (seeding.ts).
      standings: seedOrder(ev).filter((p) => playing.includes(p)).map((p) => ({ player: p, points: points.get(p) ?? 0 })),
      met,
      hadBye: new Set(ev.byes.map(([, p]) => p)),
      roundsAfter: ev.rounds - round - 1,
    });
    if (!r) return finish(`no pairing without a repeat exists for round ${round + 1}`);
    const queue: [number, number, number][] = [];
    for (let k = 0; k < ev.pairsPerEncounter; k++) for (const [a, b] of r.pairs) queue.push([a, b, round + 1]);
    return { ...ev, queue, byes: r.bye === null ? ev.byes : [...ev.byes, [round + 1, r.bye]] };
  }
  if (ev.pairs.length === 0 && ev.queue.length === 0) {
    const encounters = fixedEncounters(ev.format, playing);
    const queue: [number, number, number][] = [];
    // With a dice book per round, each cycle over the encounters is a round (the k-th play of every
    // encounter shares its dice with the others'); otherwise these formats have no rounds.
    const perRound = ev.dice === 'perRound' && (ev.format === 'roundRobin' || ev.format === 'gauntlet');
    for (let k = 0; k < ev.pairsPerEncounter; k++) for (const [a, b] of encounters) queue.push([a, b, perRound ? k + 1 : 0]);
    return { ...ev, queue };
  }
  return ev.queue.length === 0 && !busy ? finish(null) : null;
}

/**
 * An event with pairs still running, as the scheduler finds it after a restart. A pair one of whose
 * unfinished games is gone from the store can never finish: it is void (neither game counts). An
 * event stored cancelled while pairs still ran (before a cancel waited for them) waits for them as
 * `cancelling`, so its seed comes once they are over. Null: unchanged.
 */
export function afterRestart(ev: TournamentRecord, exists: (gameId: string) => boolean): TournamentRecord | null {
  const gone = (p: TournamentPairRecord) => p.games !== null && p.games.some((g, k) => p.scores[k] === null && !exists(g));
  const pairs = ev.pairs.map((p) => (pairRunning(p) && gone(p) ? { ...p, void: true } : p));
  let next: TournamentRecord = pairs.some((p, i) => p !== ev.pairs[i]) ? { ...ev, pairs } : ev;
  if (next.state === 'cancelled' && next.pairs.some(pairRunning)) next = { ...next, state: 'cancelling', finishedAt: null };
  return next === ev ? null : next;
}
