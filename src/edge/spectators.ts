// Anyone may watch a game without a token, so the public streams are counted: at most so many per
// game, per client address and in all. A stream holds its place from opening to closing, whatever
// the cause. The last `reservedForNewAddresses` places of the total are kept for addresses that
// watch nothing yet, so a few addresses holding many streams cannot shut everyone else out.

export interface SpectatorLimits {
  maxPerGame: number;
  maxTotal: number;
  /** Public streams one client address may hold at once. */
  maxPerAddress: number;
  /** Places at the top of maxTotal that only an address with no public stream open may take. */
  reservedForNewAddresses: number;
}

/** Why a place was refused (the caller words the 429). */
export type SpectatorRefusal = 'game' | 'address' | 'total';

export class SpectatorSeats {
  private readonly perGame = new Map<string, number>();
  private readonly perAddress = new Map<string, number>();
  private total = 0;

  constructor(private readonly limits: SpectatorLimits) {}

  /** Takes a place for one stream of this game from this address; the release function gives it back (once). */
  take(gameId: string, address: string): (() => void) | SpectatorRefusal {
    const here = this.perGame.get(gameId) ?? 0;
    const mine = this.perAddress.get(address) ?? 0;
    if (here >= this.limits.maxPerGame) return 'game';
    if (mine >= this.limits.maxPerAddress) return 'address';
    const ceiling = mine === 0 ? this.limits.maxTotal : this.limits.maxTotal - this.limits.reservedForNewAddresses;
    if (this.total >= ceiling) return 'total';
    this.perGame.set(gameId, here + 1);
    this.perAddress.set(address, mine + 1);
    this.total++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total--;
      drop(this.perGame, gameId);
      drop(this.perAddress, address);
    };
  }

  /** Open public streams (metrics and tests). */
  get open(): number {
    return this.total;
  }
}

function drop(counts: Map<string, number>, key: string): void {
  const left = (counts.get(key) ?? 1) - 1;
  if (left > 0) counts.set(key, left);
  else counts.delete(key);
}
