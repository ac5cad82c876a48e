// The lockstep of a mirror pair (two ladder games with identical dice, colours swapped): roll N of
// either game is published only once both games have reached roll N or the partner has ended, so
// the game that runs ahead never shows the other its future rolls. One small object per pair, owned
// by the registry that holds both games (they must live on the same thread).

/** What an actor of a paired game asks before each roll and tells when it ends. */
export interface PairLink {
  /**
   * This game wants to publish roll `ply`. True: go ahead now. False: wait; `wake` runs once, later,
   * when the partner has caught up or ended (it must only queue work, never run it inline).
   */
  mayRoll(gameId: string, ply: number, wake: () => void): boolean;
  /** This game is ending. True when the partner still runs: the reveal is then withheld. */
  ending(gameId: string): boolean;
}

export interface PairMember {
  id: string;
  /** The roll this game has reached: the pending roll's ply, or the ply of the roll it makes next. */
  reached: number;
  ended: boolean;
}

export class MirrorPair implements PairLink {
  private readonly reached = new Map<string, number>();
  private readonly ended = new Set<string>();
  private readonly waiting = new Map<string, { ply: number; wake: () => void }>();

  constructor(readonly a: PairMember, readonly b: PairMember) {
    for (const m of [a, b]) {
      this.reached.set(m.id, m.reached);
      if (m.ended) this.ended.add(m.id);
    }
  }

  partnerOf(gameId: string): string {
    return gameId === this.a.id ? this.b.id : this.a.id;
  }

  /** Both games have ended: the registry forgets the pair. */
  done(): boolean {
    return this.ended.size === 2;
  }

  mayRoll(gameId: string, ply: number, wake: () => void): boolean {
    const partner = this.partnerOf(gameId);
    this.reached.set(gameId, Math.max(this.reached.get(gameId) ?? 0, ply));
    this.waiting.delete(gameId);
    // This game reaching `ply` may be what the partner waits for.
    const theirs = this.waiting.get(partner);
    if (theirs && theirs.ply <= ply) {
      this.waiting.delete(partner);
      theirs.wake();
    }
    if (this.ended.has(partner) || (this.reached.get(partner) ?? 0) >= ply) return true;
    this.waiting.set(gameId, { ply, wake });
    return false;
  }

  ending(gameId: string): boolean {
    const partner = this.partnerOf(gameId);
    this.ended.add(gameId);
    this.waiting.delete(gameId);
    const theirs = this.waiting.get(partner);
    if (theirs) {
      this.waiting.delete(partner);
      theirs.wake();
    }
    return !this.ended.has(partner);
  }

  /** Whether the game waits for its partner before its next roll (tests, metrics). */
  isWaiting(gameId: string): boolean {
    return this.waiting.has(gameId);
  }
}

/** The roll a persisted game has reached (see PairMember.reached). */
export function reachedOf(rec: { ply: number; dice: number[] | null }): number {
  return rec.dice !== null ? rec.ply - 1 : rec.ply;
}
