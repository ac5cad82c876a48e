// A shard's store as its host uses it: each game's latest write timed, the duration reported with the
// game's next update (split from host.ts).
import type { GameRecord } from '../../domain/records.js';
import type { GameStore } from '../../store/types.js';

/** The shard's store, with the duration of each game's latest write kept for its next update. */
export class TimedStore implements GameStore {
  readonly last = new Map<string, ['putGame' | 'finishGame', number]>();

  constructor(readonly inner: GameStore) {}

  getGame(id: string): GameRecord | undefined {
    return this.inner.getGame(id);
  }

  listLiveGames(): GameRecord[] {
    return this.inner.listLiveGames();
  }

  async putGame(game: GameRecord): Promise<void> {
    const t0 = performance.now();
    await this.inner.putGame(game);
    this.last.set(game.id, ['putGame', (performance.now() - t0) / 1000]);
  }

  async finishGame(game: GameRecord, results: Parameters<GameStore['finishGame']>[1]): Promise<void> {
    const t0 = performance.now();
    await this.inner.finishGame(game, results);
    this.last.set(game.id, ['finishGame', (performance.now() - t0) / 1000]);
  }
}
