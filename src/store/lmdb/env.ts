// The LMDB environment of a data directory: its named sub-databases, how they are opened, and the
// schema stamp that decides whether this server may read the directory at all.
import { open } from 'lmdb';
import { SCHEMA_VERSION } from '../../domain/records.js';
import { err, ok } from '../../domain/result.js';
import type { Result } from '../../domain/result.js';
import { newerDirectoryMessage } from '../schema.js';

/** Sub-database names; exported so tests and tools can inspect a directory without the store. */
export const DB_NAMES = {
  bots: 'bots',
  tokenIndex: 'tokenIndex',
  games: 'games',
  liveIndex: 'liveIndex',
  /** A game's history, one entry per key [gameId, index]: a write appends only the new turns. */
  turns: 'turns',
  results: 'results',
  meta: 'meta',
  /** Rated games ended and not yet rated: gameId → PendingRating. */
  pendingRatings: 'pendingRatings',
  /** Games a batch has rated: gameId → batch time (so a game is never rated twice). */
  ratedGames: 'ratedGames',
  /** botId → counts of rated games and how many history points the bot has. */
  ladderStats: 'ladderStats',
  /** [botId, at] → {rating, rd}: the bot's rating after each batch. */
  ratingHistory: 'ratingHistory',
  /** [-rating, rd, name, team] → botId for listed bots: the leaderboard, in order. */
  leaderboard: 'leaderboard',
  /** The same key → botId for provisional bots on the ladder (deviation above 110). */
  provisional: 'provisional',
  /** gameId → ply of the latest roll whose webhook delivery finished (live games only). */
  webhookDeliveries: 'webhookDeliveries',
  /** eventId → the event's head (TournamentHead), or its whole TournamentRecord if stored by an earlier version. */
  events: 'events',
  /** [eventId, 0, position] → a pair of the event; [eventId, 1, k] → chunk k of its queue (store/tournament-parts.ts). */
  eventParts: 'eventParts',
} as const;
/** Key in `meta` holding the schema version the directory was written with. */
export const META_SCHEMA_KEY = 'schema';
/** Key in `meta` set once the provisional index has been built from the bot records. */
export const META_PROVISIONAL_KEY = 'provisionalIndex';

export type Root = ReturnType<typeof open>;
export type Db = ReturnType<Root['openDB']>;
export type Dbs = Record<keyof typeof DB_NAMES, Db>;

/** Time keys hold MAX - time so ascending key order is newest first; also the end of a time range. */
export const TIME_CEILING = Number.MAX_SAFE_INTEGER;

/**
 * LMDB keys are limited in size (lmdb-js refuses strings past about 4 KB). No stored key comes
 * near it, so an oversized lookup key simply names nothing rather than throwing.
 */
const MAX_KEY_BYTES = 1024;
export const keyFits = (key: string): boolean => key.length <= MAX_KEY_BYTES && Buffer.byteLength(key) <= MAX_KEY_BYTES;

export const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** Opens the environment of `dir` (which must exist); throws what lmdb-js throws. */
export function openRoot(dir: string): Root {
  // noSubdir false: a directory named like "data.v1" must not be taken for a single file.
  return open({ path: dir, maxDbs: 32, noSubdir: false });
}

/** Every named sub-database of the environment, opened (created if missing). */
export function openDbs(root: Root): Dbs {
  return Object.fromEntries(Object.entries(DB_NAMES).map(([k, n]) => [k, root.openDB({ name: n })])) as unknown as Dbs;
}

/** Stamps a fresh directory with our schema; refuses one from a newer (or unknown older) server. */
export async function checkSchema(dir: string, root: Root, db: Dbs): Promise<Result<void, string>> {
  let found: unknown;
  try {
    found = db.meta.get(META_SCHEMA_KEY);
  } catch (e) {
    return err(`data directory ${dir}: cannot read its schema version: ${messageOf(e)}`);
  }
  if (found === undefined) {
    const empty = [db.bots, db.games, db.results].every((d) => d.getKeysCount({ limit: 1 }) === 0);
    // Records without a version stamp come from something we do not know; do not guess.
    if (!empty) return err(`data directory ${dir} holds records but no schema version; refusing to read it`);
    await root.childTransaction(() => db.meta.putSync(META_SCHEMA_KEY, SCHEMA_VERSION));
    return ok(undefined);
  }
  if (typeof found !== 'number' || !Number.isInteger(found)) {
    return err(`data directory ${dir} has an unreadable schema version (${JSON.stringify(found)})`);
  }
  if (found > SCHEMA_VERSION) return err(newerDirectoryMessage(dir, found));
  // No older schema has ever shipped; when one is retired, its migration goes here.
  if (found < SCHEMA_VERSION) return err(`data directory ${dir} was written by schema ${found}, which this server cannot migrate`);
  return ok(undefined);
}
