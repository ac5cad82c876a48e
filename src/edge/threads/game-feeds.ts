// An edge thread's side of the edge feeds (docs/ARCHITECTURE.md, "Edge threads"). Main opens a game
// stream (its checks, caps and snapshot) and then tells the edge thread that the stream follows the
// game from the snapshot's update on (`FOLLOW`); from there the game's lines come straight from its
// shard, as bytes, and are written here. The edge asks the shard for a game while one of its streams
// follows it, and for no other: a game's updates reach only the threads that hold its streams.
import { ASK, FEED, postFeed, unpackFeed, type FeedAsk, type FeedMessage, type FeedPort } from '../../domain/edge-feed.js';

/** What the feeds do to a followed response (the EdgeServer). */
export interface FeedTarget {
  /** Writes the bytes of one update; false when the response is gone (or was cut for it). */
  write(id: number, bytes: Uint8Array): boolean;
  /** Main ended the stream after an update the stream has now written: the end goes out. */
  finish(id: number): void;
  /** The stream missed an update (a gap, a shard that started again): the connection is cut. */
  cut(id: number): void;
}

interface Follower {
  readonly game: string;
  /** The last update written (the snapshot's, at first). */
  at: number;
  /** Main ended the stream once the stream has written this update. */
  until: number | undefined;
  /** Cuts the stream if that update never comes (see END_WAIT_MS). */
  timer?: NodeJS.Timeout;
}

/**
 * How long an ended stream waits for the updates main had before it ended it. They are on their way
 * from the shard, which is ahead of main; one the shard no longer keeps would never come, and the
 * stream is then cut (the client reconnects for a fresh Snapshot) rather than held open.
 */
export const END_WAIT_MS = 5000;

interface Followed {
  readonly shard: number;
  readonly streams: Set<number>;
}

export class GameFeeds {
  private readonly ports: (FeedPort | undefined)[] = [];
  private readonly games = new Map<string, Followed>();
  private readonly followers = new Map<number, Follower>();
  private out = new Map<number, FeedAsk[]>();
  private flushing = false;

  constructor(
    private readonly target: FeedTarget,
    /** Counts one update received (tests: a thread with no stream of a game receives none of it). */
    private readonly counted: () => void,
  ) {}

  /** The port to shard `shard` (again, after the shard started again: its followers are cut). */
  connect(shard: number, port: FeedPort): void {
    const old = this.ports[shard];
    this.ports[shard] = port;
    port.on('message', (data) => this.receive(data));
    if (old === undefined) return;
    old.close();
    for (const [id, f] of [...this.followers]) {
      if (this.games.get(f.game)?.shard !== shard) continue;
      this.drop(id);
      this.target.cut(id);
    }
  }

  /** The thread stops: its ports go (an open one would keep the thread alive). */
  close(): void {
    for (const p of this.ports) p?.close();
  }

  /** Streams followed here (tests). */
  get size(): number {
    return this.followers.size;
  }

  has(id: number): boolean {
    return this.followers.has(id);
  }

  /** Response `id` follows `game` (owned by `shard`) from the update after `from`. */
  follow(id: number, game: string, shard: number, from: number): void {
    if (this.ports[shard] === undefined) return this.target.cut(id);
    this.followers.set(id, { game, at: from, until: undefined });
    let g = this.games.get(game);
    if (g === undefined) this.games.set(game, (g = { shard, streams: new Set() }));
    g.streams.add(id);
    // Every new stream asks from its own snapshot: the shard sends what it keeps after it, and a
    // stream that has an update already skips it.
    this.ask(shard, [ASK.FOLLOW, game, from]);
  }

  /** Main ended response `id` after update `until`: true when it may end now. */
  endAfter(id: number, until: number): boolean {
    const f = this.followers.get(id);
    if (f === undefined || f.at >= until) {
      this.drop(id);
      return true;
    }
    f.until = until;
    f.timer = setTimeout(() => {
      if (this.followers.get(id) === f) this.cut(id);
    }, END_WAIT_MS);
    f.timer.unref();
    return false;
  }

  /** Response `id` is over: its game is let go when no other stream here follows it. */
  drop(id: number): void {
    const f = this.followers.get(id);
    if (f === undefined) return;
    clearTimeout(f.timer);
    this.followers.delete(id);
    const g = this.games.get(f.game);
    if (g === undefined) return;
    g.streams.delete(id);
    if (g.streams.size > 0) return;
    this.games.delete(f.game);
    this.ask(g.shard, [ASK.UNFOLLOW, f.game]);
  }

  private receive(data: unknown): void {
    for (const m of unpackFeed<FeedMessage>(data)) {
      if (m[0] === FEED.UPDATE) this.counted();
      const g = this.games.get(m[1]);
      if (g === undefined) continue;
      for (const id of [...g.streams]) {
        const f = this.followers.get(id)!;
        if (m[0] === FEED.GAP) {
          if (f.at < m[2] - 1) this.cut(id);
          continue;
        }
        const seq = m[2];
        if (seq <= f.at) continue;
        if (seq > f.at + 1) {
          this.cut(id);
          continue;
        }
        f.at = seq;
        if (m[3].byteLength > 0 && !this.target.write(id, m[3])) {
          this.drop(id);
          continue;
        }
        if (f.until !== undefined && f.at >= f.until) {
          this.drop(id);
          this.target.finish(id);
        }
      }
    }
  }

  private cut(id: number): void {
    this.drop(id);
    this.target.cut(id);
  }

  private ask(shard: number, m: FeedAsk): void {
    let q = this.out.get(shard);
    if (q === undefined) this.out.set(shard, (q = []));
    q.push(m);
    if (this.flushing) return;
    this.flushing = true;
    setImmediate(() => this.flush());
  }

  private flush(): void {
    this.flushing = false;
    const out = this.out;
    this.out = new Map();
    for (const [shard, msgs] of out) {
      const port = this.ports[shard];
      if (port !== undefined) postFeed(port, msgs);
    }
  }
}
