// The per-game marks of finished webhook deliveries (the roll last delivered to a live game's webhook).
import { keyFits, type Dbs } from './env.js';

export function webhookDelivered(db: Dbs, gameId: string): number | undefined {
  if (!keyFits(gameId)) return undefined;
  return db.webhookDeliveries.get(gameId) as number | undefined;
}

/** Inside a write: marks the roll at `ply` delivered; a game that finished meanwhile keeps no marker. */
export function markDelivered(db: Dbs, gameId: string, ply: number): void {
  if (db.liveIndex.doesExist(gameId)) db.webhookDeliveries.putSync(gameId, ply);
}
