// What ShardedGames (sharded-games.ts) is built from: the transport to its shards, the server's store,
// the listeners, and the timing and cluster-mode knobs.
import type { Clock } from '../../domain/clock.js';
import type { Logger } from '../../domain/log.js';
import type { GameConfig } from '../../game/game-config.js';
import type { GameLifecycleListener } from '../../game/types.js';
import type { Store } from '../../store/types.js';
import type { ShardTransport } from '../protocol/transport.js';

export interface ShardedGamesDeps {
  transport: ShardTransport;
  shards: number;
  /** The server's store: main reads games from it, and writes them there when `forwarded`. */
  store: Store;
  /** The shards' writes arrive with their versions (a memory store lives on this thread only). */
  forwarded: boolean;
  clock: Clock;
  config: GameConfig;
  listeners: GameLifecycleListener[];
  newId: () => string;
  log: Logger;
  /** A shard was restarted after dying. */
  onRestart?: (index: number, err: Error) => void;
  /** A shard built a roll's legal-move tree in this many seconds (reported with its version). */
  onTree?: (seconds: number) => void;
  /** A shard's store write (reported with the version it persisted). */
  onStoreWrite?: (op: 'putGame' | 'finishGame', seconds: number) => void;
  /** Wraps the handling of each batch of replies (the edge gathers the stream writes it makes). */
  aroundBatch?: (fn: () => void) => void;
  /** A game command (a move…) not answered in this long gets its `lost` answer, 'busy' for a move (default 30 s); a sync too. */
  verdictTimeoutMs?: number;
  /** Control requests (create, pair, resume, idle, stop) fail after this long (default 5 min). */
  requestTimeoutMs?: number;
  /** Requests waiting for an answer, across shards (default PENDING_MAX). */
  pendingMax?: number;
  /** A command not answered in this long is sent again, the pause doubling each time (default 1 s). */
  resendMs?: number;
  /** Sends of one command at most, the first included (default 8). */
  maxSends?: number;
  /**
   * Cluster mode (the cluster package provides it): shards run on other nodes too. Every node hears of
   * every game's start and end, and follows a game's updates only while asked about it or owning its
   * shard. A `heads` naming a game this node has no replica of makes it ask the owner for the game
   * (`sync`).
   */
  cluster?: ClusterGames;
}

/** What a node of a cluster adds to ShardedGames: which games it follows, and creates that survive a shard move. */
export interface ClusterGames {
  /** The node's followed games, kept over what ShardedGames tells it of each game. */
  follow(source: FollowSource): FollowedGames;
  /** Runs `create`, again when the game's shard moved to another node meanwhile. */
  createAgainIfMoved(create: () => Promise<void>, o: { log: Pick<Logger, 'warn'>; stopping(): boolean }): Promise<void>;
}

/** What the followed games read of ShardedGames. */
export interface FollowSource {
  clock: Clock;
  /** True while this node owns the game's shard. */
  owned(id: string): boolean;
  /** Subscribers (streams, a webhook delivery) on the game's replica now. */
  subscribers(id: string): number;
  /** Starts or stops receiving the game's updates; resolves once in effect. */
  subscribe(id: string, on: boolean): Promise<void>;
  /** Starts receiving the game's updates, then brings its replica up to date from its owner. */
  catchUp(id: string): Promise<void>;
}

/** The games a node follows (their updates reach it). */
export interface FollowedGames {
  readonly size: number;
  readonly follows: number;
  readonly drops: number;
  has(id: string): boolean;
  /** Someone asks about the game: undefined when its replica is current, else a promise that it will be. */
  touch(id: string): Promise<void> | undefined;
  keep(id: string): void;
  retire(id: string): void;
  stop(): void;
}
