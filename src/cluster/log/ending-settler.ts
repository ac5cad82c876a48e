// What happens to a game of one shard once its final version counts in the log: the ending is archived
// (the cluster store's finishGame, idempotent), then the game's subject is trimmed from the log, then
// its key leaves the live index. A crash anywhere in between leaves the game listed, and the next
// owner settles it again (a game it finds archived is only trimmed: LogGameStore.takeOver).
// Invariant: the log is trimmed only after the archive acknowledged the ending, and the index key goes
// only after the trim, so no finished game's entries outlive it unlisted.
// (docs/CLUSTER.md, "One shard's games over the log" and "Log trimming").
import type { Clock, TimerHandle } from '../../domain/clock.js';
import type { Logger } from '../../domain/log.js';
import type { GameRecord, ResultRecord } from '../../domain/records.js';
import type { GameStore } from '../../store/types.js';
import type { GameLog } from './game-log.js';
import type { LiveIndex } from './live-index.js';

/** Where ended games are archived and read back. */
export type Archive = Pick<GameStore, 'getGame' | 'putGame'> & {
  /** An archived game as the bucket holds it now (read on demand); without it, getGame is asked. */
  loadGame?(id: string): Promise<GameRecord | undefined>;
};

export interface EndingSettlerOptions {
  log: Pick<GameLog, 'trim'>;
  index: LiveIndex;
  shard: number;
  archive?: Archive;
  onFinished(game: GameRecord, results: ResultRecord[]): Promise<void>;
  /** How long the archive write and the trim are retried before they go on in the background. */
  retryForMs: number;
  /** True once the store stopped writing (closed or fenced): background retries end. */
  stopped(): boolean;
  clock: Clock;
  logger: Logger;
}

/** Period of the background retries of an archive write (or trim) that kept failing. */
const ARCHIVE_RETRY_MS = 5000;

export class EndingSettler {
  /** Background retries (one per ended game whose archive write or trim kept failing). */
  private readonly retries = new Set<TimerHandle>();

  constructor(private readonly o: EndingSettlerOptions) {}

  /**
   * The archive write, the trim, then the index key goes. The ending is durable once the log has it,
   * so this never fails the game: a step still refused after retryForMs is tried again in the
   * background (every ARCHIVE_RETRY_MS, until it lands or the store stops), and the index keeps the
   * game meanwhile, so a next owner would settle it too.
   */
  async settle(game: GameRecord, results: ResultRecord[] | undefined): Promise<void> {
    const deadline = this.o.clock.monotonic() + this.o.retryForMs; // local: on the monotonic clock
    for (let wait = 50; ; wait = Math.min(wait * 2, 1000)) {
      if (await this.retired(game, results)) break;
      if (this.o.clock.monotonic() >= deadline) {
        this.later(game, results);
        return;
      }
      await new Promise<void>((res) => this.o.clock.schedule(wait, res));
    }
    await this.unlist(game.id);
  }

  /** The game's record in the archive when it is there as ended (read from the bucket when the archive can). */
  async archivedEnding(id: string): Promise<GameRecord | undefined> {
    const a = this.o.archive;
    if (a === undefined) return undefined;
    const rec = a.loadGame ? await a.loadGame(id) : a.getGame(id);
    return rec !== undefined && !('Active' in rec.status) ? rec : undefined;
  }

  /** Stops the background retries. */
  close(): void {
    for (const t of this.retries) t.cancel();
    this.retries.clear();
  }

  /** The ending archived, then the game's log trimmed (both idempotent): false when either failed. */
  private async retired(game: GameRecord, results: ResultRecord[] | undefined): Promise<boolean> {
    return (await this.archived(game, results)) && (await this.trimmed(game.id));
  }

  private async archived(game: GameRecord, results: ResultRecord[] | undefined): Promise<boolean> {
    try {
      if (results !== undefined) await this.o.onFinished(game, results);
      else await this.o.archive?.putGame(game);
      return true;
    } catch (e) {
      this.o.logger.warn({ gameId: game.id, shard: this.o.shard, err: String(e) }, 'ended game not archived yet');
      return false;
    }
  }

  /**
   * Nothing reads an ended game's log once its ending is archived: other nodes sync from the owner's
   * memory, never from the log, and a takeover of a game still listed finds it archived.
   */
  private async trimmed(gameId: string): Promise<boolean> {
    try {
      await this.o.log.trim(gameId);
      return true;
    } catch (e) {
      this.o.logger.warn({ gameId, shard: this.o.shard, err: String(e) }, 'ended game log not trimmed yet');
      return false;
    }
  }

  private later(game: GameRecord, results: ResultRecord[] | undefined): void {
    const timer = this.o.clock.schedule(ARCHIVE_RETRY_MS, () => {
      this.retries.delete(timer);
      if (this.o.stopped()) return;
      void this.retired(game, results).then((ok) => (ok ? this.unlist(game.id) : this.later(game, results)));
    });
    this.retries.add(timer);
  }

  /** The game leaves the live index; a failure only leaves work for the next owner (idempotent). */
  private async unlist(gameId: string): Promise<void> {
    await this.o.index.remove(this.o.shard, gameId).catch((e: unknown) => {
      this.o.logger.warn({ gameId, shard: this.o.shard, err: String(e) }, 'ended game left in the live index');
    });
  }
}
