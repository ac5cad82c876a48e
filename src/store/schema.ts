// Rules both store implementations share, so the memory store behaves exactly like the LMDB one:
// which records are readable, and in which order live games and a bot's result lines come back.
// (The cluster's store keeps the same rules.)
import { SCHEMA_VERSION } from '../domain/records.js';
import type { GameRecord, ResultRecord } from '../domain/records.js';

/**
 * A record written by a newer server may have fields this one does not know; reading it as if it
 * were ours would silently drop or misread them. That can only happen if the directory-level check
 * was bypassed, so it is a bug or corruption: fail loudly instead of returning a guess.
 */
export function assertReadable<T extends { schema: number }>(kind: string, key: string, rec: T): T {
  if (typeof rec.schema !== 'number' || rec.schema > SCHEMA_VERSION) {
    throw new Error(
      `${kind} ${key} was written by schema ${String(rec.schema)}; this server understands up to ${SCHEMA_VERSION}; upgrade the server`,
    );
  }
  return rec;
}

/** Message for a data directory whose schema is newer than this server's. */
export function newerDirectoryMessage(dir: string, schema: number): string {
  return `data directory ${dir} was written by schema ${schema}; this server understands up to ${SCHEMA_VERSION}; upgrade the server`;
}

/**
 * Order of a bot's result lines: newest first, ties broken by game id so the order is total and
 * both stores agree. The LMDB key layout ([botId, MAX - finishedAt, gameId]) sorts the same way.
 */
type Ordered = Pick<ResultRecord, 'finishedAt' | 'gameId'>;
export function newestFirst(a: Ordered, b: Ordered): number {
  if (a.finishedAt !== b.finishedAt) return b.finishedAt - a.finishedAt;
  return a.gameId < b.gameId ? -1 : a.gameId > b.gameId ? 1 : 0;
}

/** Where `item` goes in `list`, kept newestFirst: before the first line not ahead of it (a binary search). */
export function newestFirstIndex(list: readonly Ordered[], item: Ordered): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (newestFirst(list[mid], item) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The live games, in id order (the order of the LMDB live index's keys), read by each store its own
 * way; an id whose record is no longer there is skipped.
 */
export function liveGamesOf(ids: Iterable<string>, read: (id: string) => GameRecord | undefined): GameRecord[] {
  return [...ids].sort().flatMap((id) => {
    const game = read(id);
    return game ? [game] : [];
  });
}

/** Checks the arguments of finishGame; a mismatch is a caller bug, so it is thrown. */
export function assertFinishable(gameId: string, isActive: boolean, results: readonly ResultRecord[]): void {
  if (isActive) throw new Error(`finishGame(${gameId}): the game is still Active`);
  for (const r of results) {
    if (r.gameId !== gameId) throw new Error(`finishGame(${gameId}): result line for game ${r.gameId}`);
  }
}
