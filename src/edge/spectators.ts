// Anyone may watch a game without a token, so the public streams are counted: at most so many per
// game and so many in all. A stream holds its place from opening to closing, whatever the cause.

export interface SpectatorLimits {
  maxPerGame: number;
  maxTotal: number;
}

export class SpectatorSeats {
  private readonly perGame = new Map<string, number>();
  private total = 0;

  constructor(private readonly limits: SpectatorLimits) {}

  /** Takes a place for one stream of this game; the release function gives it back (once). */
  take(gameId: string): (() => void) | null {
    const here = this.perGame.get(gameId) ?? 0;
    if (here >= this.limits.maxPerGame || this.total >= this.limits.maxTotal) return null;
    this.perGame.set(gameId, here + 1);
    this.total++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total--;
      const left = (this.perGame.get(gameId) ?? 1) - 1;
      if (left > 0) this.perGame.set(gameId, left);
      else this.perGame.delete(gameId);
    };
  }

  /** Open public streams (metrics and tests). */
  get open(): number {
    return this.total;
  }
}
