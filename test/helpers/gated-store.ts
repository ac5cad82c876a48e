// A store whose game writes a test can hold back, to look at the server between a change and its
// persistence (persist before publish).
import type { GameRecord, ResultRecord } from '../../src/domain/records.js';
import type { TournamentRecord } from '../../src/domain/tournaments.js';
import { MemoryStore } from '../../src/store/memory.js';
import { StoreProxy } from './store-proxy.js';

/** Wraps the memory store; while `hold()` is on, game writes wait until `release()`. */
export class GatedStore extends StoreProxy {
  private gate: Promise<void> | null = null;
  private open: (() => void) | null = null;
  private waiting: (() => void)[] = [];
  /** Number of game writes that reached a closed gate. */
  held = 0;

  constructor() {
    super(new MemoryStore());
  }

  hold(): void {
    this.gate = new Promise((r) => (this.open = r));
  }

  release(): void {
    const open = this.open;
    this.gate = null;
    this.open = null;
    open?.();
  }

  /** Resolves once a game write is waiting at the gate. */
  blocked(): Promise<void> {
    return this.held > 0 ? Promise.resolve() : new Promise((r) => this.waiting.push(r));
  }

  protected async pass(): Promise<void> {
    const gate = this.gate;
    if (!gate) return;
    this.held++;
    for (const w of this.waiting.splice(0)) w();
    await gate;
  }

  override async putGame(g: GameRecord): Promise<void> {
    await this.pass();
    return this.inner.putGame(g);
  }
  override async finishGame(g: GameRecord, r: ResultRecord[]): Promise<void> {
    await this.pass();
    return this.inner.finishGame(g, r);
  }
}

/**
 * The same gate on event (tournament) writes instead of game writes, and a way to see that a
 * registered bot's request has reached the server: its token is looked up as the request is
 * authenticated, just before its handler runs.
 */
export class GatedEventStore extends GatedStore {
  private lookups: (() => void)[] = [];

  override putGame(g: GameRecord): Promise<void> {
    return this.inner.putGame(g);
  }
  override finishGame(g: GameRecord, r: ResultRecord[]): Promise<void> {
    return this.inner.finishGame(g, r);
  }
  override async putTournament(e: TournamentRecord): Promise<void> {
    await this.pass();
    return this.inner.putTournament(e);
  }

  /** Resolves at the next token lookup of a registered bot. */
  nextLookup(): Promise<void> {
    return new Promise((r) => this.lookups.push(r));
  }

  override getBotByTokenHash(h: string) {
    for (const w of this.lookups.splice(0)) w();
    return this.inner.getBotByTokenHash(h);
  }
}
