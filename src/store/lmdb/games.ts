// Game records with their turns, the index of live games, and the result lines a finished game
// leaves for each of its bots (plus its pending rating, written in the same transaction).
import { SCHEMA_VERSION } from '../../domain/records.js';
import type { GameRecord, ResultRecord } from '../../domain/records.js';
import { pendingRatingOf } from '../../domain/ratings.js';
import type { HistoryEntry } from '../../domain/types.js';
import { assertReadable, liveGamesOf } from '../schema.js';
import { TIME_CEILING, keyFits, type Dbs } from './env.js';

/** Result keys hold MAX - finishedAt so ascending key order is newest first. */
type ResultKey = [botId: string, invertedTime: number, gameId: string];
const resultKey = (r: ResultRecord): ResultKey => [r.botId, TIME_CEILING - r.finishedAt, r.gameId];

/** Result lines have no `schema` of their own in the domain type; on disk they carry one. */
type StoredResult = ResultRecord & { schema: number };
const fromStored = (s: StoredResult): ResultRecord => {
  assertReadable('result line', `${s.botId}/${s.gameId}`, s);
  const { schema: _schema, ...line } = s;
  return line;
};

/**
 * On disk a game record holds the length of its history instead of the history itself; the turns
 * live in `turns`. History only ever grows, so each write of a live game (several per turn) adds the
 * new entries instead of re-encoding every turn so far: a long game costs O(turns) bytes, not O(turns²).
 */
type StoredGame = Omit<GameRecord, 'history'> & { historyLength: number };

export function getGame(db: Dbs, id: string): GameRecord | undefined {
  if (!keyFits(id)) return undefined;
  const stored = db.games.get(id) as StoredGame | undefined;
  if (!stored) return undefined;
  assertReadable('game', id, stored);
  const { historyLength, ...rest } = stored;
  const history = [...db.turns.getRange({ start: [id, 0], end: [id, historyLength] })].map(
    ({ value }) => value as HistoryEntry,
  );
  if (history.length !== historyLength) throw new Error(`game ${id}: ${history.length} of ${historyLength} turns stored`);
  return { ...rest, history };
}

/** Inside a write transaction: the record without its history, plus the turns not yet stored. */
function writeGame(db: Dbs, game: GameRecord): void {
  const { games, turns } = db;
  const before = games.get(game.id) as StoredGame | undefined;
  let from = before ? before.historyLength : 0;
  // History is append-only; a shorter one (never written by the actors) is rewritten whole.
  if (from > game.history.length) {
    for (let i = game.history.length; i < from; i++) turns.removeSync([game.id, i]);
    from = 0;
  }
  for (let i = from; i < game.history.length; i++) turns.putSync([game.id, i], game.history[i]);
  const { history, ...rest } = game;
  const stored: StoredGame = { ...rest, historyLength: history.length };
  games.putSync(game.id, stored);
}

/** Inside a write: stores a game and keeps the live index in step with its status. */
export function storeGame(db: Dbs, game: GameRecord): void {
  writeGame(db, game);
  if ('Active' in game.status) db.liveIndex.putSync(game.id, true);
  else db.liveIndex.removeSync(game.id);
}

export function listLiveGames(db: Dbs): GameRecord[] {
  return liveGamesOf([...db.liveIndex.getKeys()].map(String), (id) => getGame(db, id));
}

/**
 * Inside a write: stores a finished game, its result lines and (for a rated game not rated yet)
 * its pending rating; the game leaves the live index and drops its webhook mark.
 */
export function storeFinishedGame(db: Dbs, game: GameRecord, results: readonly ResultRecord[]): void {
  const { liveIndex, results: lines, pendingRatings, ratedGames } = db;
  const pending = pendingRatingOf(game);
  writeGame(db, game);
  liveIndex.removeSync(game.id);
  db.webhookDeliveries.removeSync(game.id);
  for (const line of results) {
    const stored: StoredResult = { ...line, schema: SCHEMA_VERSION };
    lines.putSync(resultKey(line), stored);
  }
  if (pending && !ratedGames.doesExist(game.id)) pendingRatings.putSync(game.id, pending);
}

export function resultsOf(db: Dbs, botId: string, limit: number): ResultRecord[] {
  if (limit <= 0) return [];
  const range = db.results.getRange({ start: [botId, 0], end: [botId, TIME_CEILING + 1], limit });
  return [...range].map(({ value }) => fromStored(value as StoredResult));
}

export function allResults(db: Dbs): ResultRecord[] {
  return [...db.results.getRange()].map(({ value }) => fromStored(value as StoredResult));
}
