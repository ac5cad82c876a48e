// The store of a shard whose server keeps its data in memory. A live game's versions need no copy on
// main beyond its replica (which holds every published version: it is what a restarted shard is
// given back), so only what the rest of the server reads from the store travels there: an ended
// game's final record with its result lines, sent with its last version and stored by main before
// it is published, and an ended record written again. The shard keeps what its own actors read
// back: live records, and a few recently ended ones.
import type { GameRecord, ResultRecord } from '../../domain/records.js';
import type { GameStore } from '../../store/types.js';

export type PendingWrite = { kind: 'finish'; results: ResultRecord[] };

/** Ended records kept for reads (a mirror pair's partner looks its twin up once, when it ends). */
const ENDED_KEPT = 256;

export class ForwardingStore implements GameStore {
  private readonly live = new Map<string, GameRecord>();
  private readonly ended = new Map<string, GameRecord>();
  /** Endings not yet handed to the channel, by game id. */
  private readonly pending = new Map<string, PendingWrite>();
  /** Ended records written again (not with a version), for main to store. */
  private readonly rewritten = new Set<string>();

  /** Records handed over by main (resume): already stored there. */
  hold(recs: readonly GameRecord[]): void {
    for (const r of recs) this.live.set(r.id, r);
  }

  async putGame(game: GameRecord): Promise<void> {
    this.keep(game);
    if (!('Active' in game.status) && !this.pending.has(game.id)) this.rewritten.add(game.id);
  }

  async finishGame(game: GameRecord, results: ResultRecord[]): Promise<void> {
    this.keep(game);
    this.pending.set(game.id, { kind: 'finish', results });
  }

  getGame(id: string): GameRecord | undefined {
    return this.live.get(id) ?? this.ended.get(id);
  }

  listLiveGames(): GameRecord[] {
    return [...this.live.values()].filter((r) => 'Active' in r.status);
  }

  /** The write of this game waiting for the channel, taken (it travels with the version shown). */
  take(id: string): PendingWrite | undefined {
    const w = this.pending.get(id);
    if (w !== undefined) this.pending.delete(id);
    return w;
  }

  /**
   * Records to send on their own: ended records written again, and endings no version took with
   * them (a game that ended while it was being resumed, before main was told of it).
   */
  drain(): { rec: GameRecord; results?: ResultRecord[] }[] {
    const ids = new Set([...this.rewritten, ...this.pending.keys()]);
    this.rewritten.clear();
    const out: { rec: GameRecord; results?: ResultRecord[] }[] = [];
    for (const id of ids) {
      const rec = this.getGame(id);
      if (rec) out.push({ rec, results: this.pending.get(id)?.results });
    }
    this.pending.clear();
    return out;
  }

  private keep(game: GameRecord): void {
    if ('Active' in game.status) {
      this.live.set(game.id, game);
      return;
    }
    this.live.delete(game.id);
    this.ended.delete(game.id);
    this.ended.set(game.id, game);
    while (this.ended.size > ENDED_KEPT) this.ended.delete(this.ended.keys().next().value as string);
  }
}
