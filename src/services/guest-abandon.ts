// Guest games nobody plays any more are ended. A guest who closes the page leaves a game that would
// otherwise run for as long as its clock allows (an unlimited one, for ever), holding a place under
// the server's live-game cap and the guest's address's. A guest game whose version has not moved for
// `abandonAfterMs` while none of its guests has its game stream open is resigned for the guest to move
// (when a bot or house bot is to move, it is its turn to act, and nothing is done).
import type { Clock, TimerHandle } from '../domain/clock.js';
import type { GameDirectory } from '../game/types.js';

interface Watched {
  version: number;
  since: number;
  streams: number;
}

export class GuestAbandonment {
  private readonly games = new Map<string, Watched>();
  private timer: TimerHandle | null = null;
  /** Guest games ended for want of a player (tests, metrics). */
  ended = 0;

  constructor(
    private readonly deps: { games: Pick<GameDirectory, 'get'>; clock: Clock },
    private readonly abandonAfterMs: number,
  ) {}

  /** A guest game began: watched until it ends. */
  watch(gameId: string): void {
    if (!this.games.has(gameId)) this.games.set(gameId, { version: -1, since: this.deps.clock.now(), streams: 0 });
    this.arm();
  }

  gameEnded(gameId: string): void {
    this.games.delete(gameId);
  }

  /** A guest opened (or closed) its own game stream. */
  streamOpened(gameId: string): () => void {
    const w = this.games.get(gameId);
    if (w === undefined) return () => {};
    w.streams++;
    let open = true;
    return () => {
      if (!open) return;
      open = false;
      w.streams--;
      w.since = this.deps.clock.now(); // the time without a stream starts now
    };
  }

  stop(): void {
    this.timer?.cancel();
    this.timer = null;
  }

  /** One pass: resigns the guest to move in every game idle and unwatched for abandonAfterMs. */
  sweep(): void {
    const now = this.deps.clock.now();
    for (const [id, w] of this.games) {
      const game = this.deps.games.get(id);
      if (game === undefined) {
        this.games.delete(id);
        continue;
      }
      const state = game.state();
      if (state.version !== w.version || w.streams > 0) {
        if (state.version !== w.version) w.since = now;
        w.version = state.version;
        continue;
      }
      if (now - w.since < this.abandonAfterMs) continue;
      const seat = state.activeSeat;
      const player = seat === 'White' ? game.white : game.black;
      if (!player.id.startsWith('guest:')) continue;
      game.resign(seat);
      this.ended++;
      this.games.delete(id);
    }
  }

  private arm(): void {
    if (this.timer !== null) return;
    // A quarter of the limit between passes: a game is ended at most 25% late.
    this.timer = this.deps.clock.schedule(Math.max(1000, this.abandonAfterMs / 4), () => {
      this.timer = null;
      this.sweep();
      if (this.games.size > 0) this.arm();
    });
  }
}
