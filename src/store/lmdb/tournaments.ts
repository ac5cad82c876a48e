// Event records (matches, gauntlets, tournaments) and the per-game marks of finished webhook
// deliveries.
import type { EventRecord } from '../../domain/tournaments.js';
import { assertReadable } from '../schema.js';
import { keyFits, type Dbs } from './env.js';

/** Inside a write: stores (or replaces) an event record. */
export function storeEvent(db: Dbs, event: EventRecord): void {
  db.events.putSync(event.id, event);
}

export function getEvent(db: Dbs, id: string): EventRecord | undefined {
  if (!keyFits(id)) return undefined;
  const rec = db.events.get(id) as EventRecord | undefined;
  return rec && assertReadable('event', id, rec);
}

export function listEvents(db: Dbs): EventRecord[] {
  return [...db.events.getRange()]
    .map(({ value }) => assertReadable('event', (value as EventRecord).id, value as EventRecord))
    .sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
}

export function webhookDelivered(db: Dbs, gameId: string): number | undefined {
  if (!keyFits(gameId)) return undefined;
  return db.webhookDeliveries.get(gameId) as number | undefined;
}

/** Inside a write: marks the roll at `ply` delivered; a game that finished meanwhile keeps no marker. */
export function markDelivered(db: Dbs, gameId: string, ply: number): void {
  if (db.liveIndex.doesExist(gameId)) db.webhookDeliveries.putSync(gameId, ply);
}
