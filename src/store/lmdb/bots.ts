// Bot records and the index from token hash to bot. The write functions run inside the store's
// write transaction, so each check-then-write step is atomic.
import type { BotRecord } from '../../domain/records.js';
import { assertReadable } from '../schema.js';
import { keyFits, type Dbs } from './env.js';
import { reindex } from './leaderboard.js';

export function getBot(db: Dbs, id: string): BotRecord | undefined {
  if (!keyFits(id)) return undefined;
  const bot = db.bots.get(id) as BotRecord | undefined;
  return bot && assertReadable('bot', id, bot);
}

export function getBotByTokenHash(db: Dbs, tokenHash: string): BotRecord | undefined {
  if (!keyFits(tokenHash)) return undefined;
  const id = db.tokenIndex.get(tokenHash) as string | undefined;
  if (id === undefined) return undefined;
  const bot = getBot(db, id);
  // The index is kept exact; the comparison guards against ever authenticating with a stale hash.
  return bot && bot.tokenHash === tokenHash ? bot : undefined;
}

export function listBots(db: Dbs): BotRecord[] {
  return [...db.bots.getRange()].map(({ key, value }) => assertReadable('bot', String(key), value as BotRecord));
}

/** Inside a write: stores a new bot; false if the id is taken. */
export function insertBot(db: Dbs, bot: BotRecord): boolean {
  const { bots, tokenIndex } = db;
  if (bots.doesExist(bot.id)) return false;
  bots.putSync(bot.id, bot);
  tokenIndex.putSync(bot.tokenHash, bot.id);
  reindex(db, undefined, bot);
  return true;
}

/** Inside a write: replaces a stored bot; false if there is none. */
export function replaceBot(db: Dbs, bot: BotRecord): boolean {
  const { bots, tokenIndex } = db;
  const old = bots.get(bot.id) as BotRecord | undefined;
  if (!old) return false;
  // In one transaction the old hash stops resolving exactly when the new one starts.
  if (old.tokenHash !== bot.tokenHash && tokenIndex.get(old.tokenHash) === bot.id) {
    tokenIndex.removeSync(old.tokenHash);
  }
  tokenIndex.putSync(bot.tokenHash, bot.id);
  bots.putSync(bot.id, bot);
  reindex(db, old, bot);
  return true;
}

/** Inside a write: applies `change` to a stored bot (null: no change); undefined if there is none. */
export function changeBot(db: Dbs, id: string, change: (bot: BotRecord) => BotRecord | null): BotRecord | undefined {
  const { bots, tokenIndex } = db;
  const old = bots.get(id) as BotRecord | undefined;
  if (!old) return undefined;
  const next = change(assertReadable('bot', id, old));
  if (!next) return old;
  if (next.id !== id) throw new Error(`modifyBot(${id}): the change returned bot ${next.id}`);
  if (old.tokenHash !== next.tokenHash && tokenIndex.get(old.tokenHash) === id) tokenIndex.removeSync(old.tokenHash);
  tokenIndex.putSync(next.tokenHash, id);
  bots.putSync(id, next);
  reindex(db, old, next);
  return next;
}
