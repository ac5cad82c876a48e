// When an event's seed may be seen. Pair i's server seed is HMAC(eventSeed, i) and its client seeds
// are public, so the event seed tells every roll of every game of the event, the running ones too.
// Like a mirror-pair game whose reveal waits until its twin has ended (src/game/mirror-pair.ts), the
// event seed waits until the event is over and none of its games runs any more; every place that
// shows it (GET /events/{id}, the export's first line, the stream's EventEnded) asks here.
import { pairRunning, type TournamentRecord } from '../../domain/tournaments.js';

/** How many pairs of the event are still being played. */
export const pairsRunning = (ev: TournamentRecord): number => ev.pairs.filter(pairRunning).length;

/** The event is over and none of its games runs: its seed can be published. */
export const seedRevealed = (ev: TournamentRecord): boolean =>
  (ev.state === 'finished' || ev.state === 'cancelled') && !ev.pairs.some(pairRunning);

/** The last line of an event stream; only for an event whose seed is revealed. */
export function endedLine(ev: TournamentRecord): unknown {
  return { EventEnded: { eventId: ev.id, state: ev.state, verdict: ev.verdict, seed: ev.seed } };
}
