// Cluster mode: a node's replicas after a partition. While a node is cut off (its links down, or its
// nats-server alone without a quorum) the owners' per-game updates and their `ended` messages, core
// NATS sent at most once, do not reach it; and once its leases run out, the games of the shards it
// lost go on elsewhere. So after the partition its replicas may stand where they stood at the cut,
// live although their games ended, and nothing later names them (a game that ended under an owner
// since gone is in no owner's reports). Each time this node loses a shard lease, is fenced by the log,
// or gets its NATS connection back, every live replica here is asked of its owner again; one its owner
// does not answer for (no owner yet, or it has no such game) is looked up in the cluster's store, and
// ends here when the store holds its ending. What is neither answered nor ended is asked again later,
// the pause doubling up to a bound, until each live replica of the moment is settled.
import type { Clock } from '../../domain/clock.js';
import type { Logger } from '../../domain/log.js';
import type { GameRecord } from '../../domain/records.js';

export interface ReplicaRecheckDeps {
  clock: Clock;
  log: Pick<Logger, 'info' | 'warn'>;
  /** The ids of the games live on this node's replicas now. */
  live(): string[];
  /** Asks the game's owner for its whole state (ReplicaFeed.recheck): true once it answered. */
  ask(id: string): Promise<boolean>;
  /** The game's record in the cluster's store (its bucket read when needed). */
  stored(id: string): Promise<GameRecord | undefined>;
  /** The game ended as `rec` says (ReplicaFeed.endedElsewhere). */
  ended(rec: GameRecord): void;
  /** The first pause before a game is asked again; it doubles up to 16 times this. */
  retryMs: number;
  /** Games asked at once at most (default 32). */
  parallel?: number;
}

export class ReplicaRecheck {
  /** Games still to settle: only ever live replicas of this node, so bounded by its live games. */
  private readonly pending = new Set<string>();
  private running = false;
  private again: { cancel(): void } | undefined;
  private pause: number;
  private stopped = false;
  /** Rounds run, and replicas ended by a recheck, since the start (for the tests). */
  rounds = 0;
  endings = 0;

  constructor(private readonly deps: ReplicaRecheckDeps) {
    if (!(deps.retryMs > 0)) throw new Error(`replica recheck: retryMs must be positive, got ${deps.retryMs}`);
    this.pause = deps.retryMs;
  }

  /** Games still to settle (0 once every replica of the last start was answered or has ended). */
  get size(): number {
    return this.pending.size;
  }

  /** Every live replica here is checked again (`why` is logged). */
  start(why: string): void {
    if (this.stopped) return;
    const ids = this.deps.live();
    for (const id of ids) this.pending.add(id);
    this.pause = this.deps.retryMs;
    this.deps.log.info({ why, games: ids.length }, 'rechecking this node\'s live replicas with their owners');
    if (this.running) return; // the round under way is followed by another for what it did not cover
    this.again?.cancel();
    this.again = undefined;
    void this.round();
  }

  stop(): void {
    this.stopped = true;
    this.again?.cancel();
    this.again = undefined;
  }

  private async round(): Promise<void> {
    this.running = true;
    try {
      const live = new Set(this.deps.live());
      for (const id of this.pending) if (!live.has(id)) this.pending.delete(id); // ended meanwhile
      const ids = [...this.pending];
      let next = 0;
      const worker = async (): Promise<void> => {
        while (next < ids.length && !this.stopped) {
          const id = ids[next++];
          if (await this.settle(id)) this.pending.delete(id);
        }
      };
      await Promise.all(Array.from({ length: Math.min(this.deps.parallel ?? 32, ids.length) }, worker));
    } finally {
      this.running = false;
      this.rounds++;
    }
    if (this.stopped) return;
    if (this.pending.size === 0) {
      this.deps.log.info({ rounds: this.rounds }, 'replicas rechecked');
      return;
    }
    this.again = this.deps.clock.schedule(this.pause, () => {
      this.again = undefined;
      if (!this.running) void this.round();
    });
    this.pause = Math.min(this.pause * 2, this.deps.retryMs * 16);
  }

  /** True when the game's owner answered, or the store holds its ending (the replica then ends). */
  private async settle(id: string): Promise<boolean> {
    if (await this.deps.ask(id).catch(() => false)) return true;
    const rec = await this.deps.stored(id).catch(() => undefined);
    if (rec === undefined || !('Ended' in rec.status)) return false;
    this.deps.ended(rec);
    this.endings++;
    return true;
  }
}
