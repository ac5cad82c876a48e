// The lookups every set of games answers, whoever runs the actors: live games by id and by seated
// player, the bounded archive of recently ended records, read handles over ended games, and the
// lifecycle listeners. The in-thread GameRegistry and the main thread's ShardedGames both keep their
// games on one.
import { codec } from '../domain/codec.js';
import type { GameRecord } from '../domain/records.js';
import type { Seat } from '../domain/types.js';
import type { GameStore } from '../store/types.js';
import type { Logger } from '../domain/log.js';
import { EndedGame } from './ended.js';
import type { GameHandle, GameLifecycleListener } from './types.js';
import { isEnded } from './view.js';
import { forgetGame } from './read-cache.js';

/** An ended record as compact bytes of its own: the archive keeps them as the store does. */
export const packRecord = (rec: GameRecord): Uint8Array => codec.records.encode(rec);
export const unpackRecord = (bytes: Uint8Array): GameRecord => codec.records.decode<GameRecord>(bytes);

/** Bounds of the in-memory archive of ended records: both hold, the oldest record goes first. */
export interface ArchiveBounds {
  /** Records at most. */
  size: number;
  /** Encoded bytes at most, over all records kept. */
  bytes: number;
}

export class GameIndex<G extends GameHandle> {
  private readonly games = new Map<string, G>();
  /** Live game ids by seated player id: GET /bot/games must not scan every live game. */
  private readonly byPlayer = new Map<string, Set<string>>();
  /**
   * Ended records, encoded (a third to a quarter of the objects' heap, and one buffer per game for
   * the collector instead of an object per turn), oldest first; `archiveBytes` is their total.
   */
  private readonly archive = new Map<string, Uint8Array>();
  private archiveBytes = 0;
  /**
   * Read handles of recently read ended games, most recent last. An ended game never changes, so its
   * state JSON and stream frames are built once rather than on every public read.
   */
  private readonly endedHandles = new Map<string, EndedGame>();
  /**
   * Finished games a read's gate has just loaded from the store (a cluster node's): held until this
   * turn of the event loop ends, so that the read finds its game whatever the store's cache or the
   * handles above evicted meanwhile for other reads.
   */
  private readonly loaded = new Map<string, GameRecord>();

  constructor(
    private readonly store: Pick<GameStore, 'getGame'>,
    private readonly bounds: ArchiveBounds,
    private readonly listeners: readonly GameLifecycleListener[],
    private readonly log: Logger,
  ) {}

  add(game: G): void {
    this.games.set(game.id, game);
    for (const p of new Set([game.white.id, game.black.id])) {
      let ids = this.byPlayer.get(p);
      if (!ids) this.byPlayer.set(p, (ids = new Set()));
      ids.add(game.id);
    }
  }

  has(id: string): boolean {
    return this.games.has(id);
  }

  /** The game ended with `final`: off the live tables, into the archive (oldest out first). */
  retire(game: GameHandle, final: GameRecord): void {
    this.games.delete(game.id);
    forgetGame(game.id); // what its versions' reads left in this thread's caches

    for (const p of [game.white.id, game.black.id]) {
      const ids = this.byPlayer.get(p);
      ids?.delete(game.id);
      if (ids?.size === 0) this.byPlayer.delete(p);
    }
    this.unarchive(game.id);
    // pack() returns a view into msgpackr's shared buffer: the copy is what lets that buffer go.
    const bytes = packRecord(final);
    if (bytes.length > this.bounds.bytes) return; // larger than the whole archive: the store has it
    this.archive.set(game.id, bytes);
    this.archiveBytes += bytes.length;
    while (this.archive.size > this.bounds.size || this.archiveBytes > this.bounds.bytes) {
      this.unarchive(this.archive.keys().next().value as string);
    }
  }

  private unarchive(id: string): void {
    const bytes = this.archive.get(id);
    if (!bytes) return;
    this.archive.delete(id);
    this.archiveBytes -= bytes.length;
  }

  /** Records and encoded bytes the archive holds now. */
  archiveUse(): { records: number; bytes: number } {
    return { records: this.archive.size, bytes: this.archiveBytes };
  }

  private archived(id: string): GameRecord | undefined {
    const bytes = this.archive.get(id);
    return bytes ? unpackRecord(bytes) : undefined;
  }

  /** An ended game's cached read handle is stale (a mirror pair's reveal was lifted). */
  forget(id: string): void {
    this.endedHandles.delete(id);
  }

  get(id: string): G | undefined {
    return this.games.get(id);
  }

  live(): G[] {
    return [...this.games.values()];
  }

  liveCount(): number {
    return this.games.size;
  }

  liveCountFor(playerId: string): number {
    return this.byPlayer.get(playerId)?.size ?? 0;
  }

  liveFor(playerId: string): G[] {
    const ids = this.byPlayer.get(playerId);
    if (!ids) return [];
    return [...ids].flatMap((id) => {
      const g = this.games.get(id);
      return g ? [g] : [];
    });
  }

  finalRecord(id: string): GameRecord | undefined {
    const stored = this.store.getGame(id);
    return this.lifted(stored && isEnded(stored) ? stored : (this.archived(id) ?? this.loaded.get(id)));
  }

  /** See `loaded`: the record stays findable until the current turn of the event loop is over. */
  holdLoaded(rec: GameRecord): void {
    if (!isEnded(rec)) return;
    if (this.loaded.size === 0) setImmediate(() => this.loaded.clear());
    this.loaded.set(rec.id, rec);
  }

  /** A withheld reveal is lifted as soon as the mirror-pair partner is no longer live. */
  private lifted(rec: GameRecord | undefined): GameRecord | undefined {
    if (!rec?.revealHeld || (rec.mirrorOf !== null && this.games.has(rec.mirrorOf))) return rec;
    return { ...rec, revealHeld: false };
  }

  find(id: string): GameHandle | undefined {
    const live = this.games.get(id);
    if (live) return live;
    let handle = this.endedHandles.get(id);
    if (handle?.record().revealHeld && this.lifted(handle.record()) !== handle.record()) handle = undefined;
    if (handle) {
      this.endedHandles.delete(id); // re-inserted below: least recently read first
    } else {
      const rec = this.finalRecord(id);
      if (!rec) return undefined;
      handle = new EndedGame(rec);
    }
    this.endedHandles.set(id, handle);
    while (this.endedHandles.size > this.bounds.size) {
      this.endedHandles.delete(this.endedHandles.keys().next().value as string);
    }
    return handle;
  }

  notify(hook: 'gameStarted' | 'gameResumed' | 'turnApplied', game: GameHandle): void;
  notify(hook: 'gameEnded', game: GameHandle, rec: GameRecord): void;
  notify(hook: 'moveRefused', game: GameHandle, seat: Seat): void;
  notify(hook: keyof GameLifecycleListener, game: GameHandle, arg?: GameRecord | Seat): void {
    for (const l of this.listeners) {
      try {
        if (hook === 'gameEnded') l.gameEnded?.(game, arg as GameRecord);
        else if (hook === 'moveRefused') l.moveRefused?.(game, arg as Seat);
        else l[hook]?.(game);
      } catch (e) {
        this.log.error({ gameId: game.id, hook, err: String(e) }, 'lifecycle listener threw');
      }
    }
  }
}

/** The GameDirectory answers of a set of games kept in a GameIndex (the in-thread registry, main's ShardedGames). */
export abstract class IndexedGames<G extends GameHandle> {
  protected abstract readonly gameIndex: GameIndex<G>;

  get(id: string): G | undefined {
    return this.gameIndex.get(id);
  }

  live(): G[] {
    return this.gameIndex.live();
  }

  /** Number of live games (the server-wide cap reads it on every game creation). */
  liveCount(): number {
    return this.gameIndex.liveCount();
  }

  /** Number of live games this external id is seated in, without building the list. */
  liveCountFor(playerId: string): number {
    return this.gameIndex.liveCountFor(playerId);
  }

  liveFor(playerId: string): G[] {
    return this.gameIndex.liveFor(playerId);
  }

  finalRecord(id: string): GameRecord | undefined {
    return this.gameIndex.finalRecord(id);
  }

  find(id: string): GameHandle | undefined {
    return this.gameIndex.find(id);
  }

  holdLoaded(rec: GameRecord): void {
    this.gameIndex.holdLoaded(rec);
  }

  /** What the in-memory archive of ended records holds now. */
  archiveUse(): { records: number; bytes: number } {
    return this.gameIndex.archiveUse();
  }
}
