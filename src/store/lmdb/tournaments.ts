// Tournament records (matches, gauntlets, round-robins, Swiss, SPRT): the `events` database, one record
// per tournament.
import type { TournamentRecord } from '../../domain/tournaments.js';
import { assertReadable } from '../schema.js';
import { keyFits, type Dbs } from './env.js';

/** Inside a write: stores (or replaces) a tournament record. */
export function storeTournament(db: Dbs, event: TournamentRecord): void {
  db.events.putSync(event.id, event);
}

export function getTournament(db: Dbs, id: string): TournamentRecord | undefined {
  if (!keyFits(id)) return undefined;
  const rec = db.events.get(id) as TournamentRecord | undefined;
  return rec && assertReadable('event', id, rec);
}

export function listTournaments(db: Dbs): TournamentRecord[] {
  return [...db.events.getRange()]
    .map(({ value }) => assertReadable('event', (value as TournamentRecord).id, value as TournamentRecord))
    .sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
}
