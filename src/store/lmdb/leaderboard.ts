// The two ordered indices of bots by rating: the leaderboard (listed bots) and the provisional list
// (bots on the ladder whose deviation is still high). Both are kept exact inside the write that
// changes a bot record.
import type { BotRecord } from '../../domain/records.js';
import { isListed, isProvisional } from '../../domain/ratings.js';
import { META_PROVISIONAL_KEY, type Db, type Dbs, type Root } from './env.js';

type LeaderKey = [negRating: number, rd: number, name: string, team: string];
const leaderKey = (b: BotRecord): LeaderKey => [-b.rating.rating, b.rating.rd, b.name, b.team];

/** Inside a write: keeps the leaderboard and provisional indexes exact as a bot record changes. */
export function reindex(db: Dbs, old: BotRecord | undefined, next: BotRecord): void {
  const { leaderboard, provisional } = db;
  if (old && isListed(old)) leaderboard.removeSync(leaderKey(old));
  if (old && isProvisional(old)) provisional.removeSync(leaderKey(old));
  if (isListed(next)) leaderboard.putSync(leaderKey(next), next.id);
  if (isProvisional(next)) provisional.putSync(leaderKey(next), next.id);
}

/** One page of an index whose values are bot ids (in index order), and the index's size. */
export function idPage(index: Db, offset: number, limit: number): { total: number; ids: string[] } {
  const total = index.getCount();
  if (limit <= 0) return { total, ids: [] };
  const ids = [...index.getRange({ offset: Math.max(0, offset), limit })].map(({ value }) => value as string);
  return { total, ids };
}

/**
 * Directories written before the provisional index existed hold bots but not the index: it is built
 * once, from every bot record, in one transaction, and marked done in `meta`.
 */
export async function buildProvisionalIndex(root: Root, db: Dbs): Promise<void> {
  if (db.meta.get(META_PROVISIONAL_KEY) !== undefined) return;
  await root.childTransaction(() => {
    for (const { value } of db.bots.getRange()) {
      const bot = value as BotRecord;
      if (isProvisional(bot)) db.provisional.putSync(leaderKey(bot), bot.id);
    }
    db.meta.putSync(META_PROVISIONAL_KEY, true);
  });
}
