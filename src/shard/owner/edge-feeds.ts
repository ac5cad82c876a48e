// A shard's side of the edge feeds (docs/ARCHITECTURE.md, "Edge threads"): with several HTTP
// threads, each game's event lines also go straight to the edge threads whose streams follow the
// game, as UTF-8 bytes made once per version here, never through main and never to an edge that did
// not ask. What it sends is what the host posts main as `update`s, in the same order, so an edge's
// stream writes the same lines, byte for byte, that main's would have.
import { ASK, FEED, postFeed, unpackFeed, type FeedAsk, type FeedMessage, type FeedPort } from '../../domain/edge-feed.js';
import type { ShardReply } from '../protocol/messages.js';

/**
 * Updates kept per game for a follow that names an earlier one: a stream's snapshot is main's
 * replica, which runs behind the shard by the updates on their way to main (one or two).
 */
export const FEED_KEPT = 8;
/** Ended games whose last updates are kept (a stream may open on main just before it hears the end). */
export const FEED_ENDED_KEPT = 256;

interface Kept {
  readonly seq: number;
  readonly bytes: Uint8Array;
}

const encoder = new TextEncoder();

export class EdgeFeedPublisher {
  private ports: FeedPort[] = [];
  /** Game id → the edges that follow it. */
  private readonly interest = new Map<string, Set<number>>();
  /** Game id → its last updates (FEED_KEPT at most), oldest first. */
  private readonly recent = new Map<string, Kept[]>();
  /** Ended games whose `recent` is still kept, oldest first. */
  private readonly ended = new Set<string>();
  private out = new Map<number, FeedMessage[]>();
  private flushing = false;

  constructor(private readonly later: (fn: () => void) => void) {}

  /** The ports to the edge threads, by edge index (a new set replaces the old: interest starts over). */
  attach(ports: readonly FeedPort[]): void {
    for (const p of this.ports) p.close();
    this.ports = [...ports];
    this.interest.clear();
    this.ports.forEach((p, edge) =>
      p.on('message', (data) => {
        for (const m of unpackFeed<FeedAsk>(data)) this.ask(edge, m);
      }),
    );
  }

  /** The shard stops: its ports go. */
  close(): void {
    for (const p of this.ports) p.close();
    this.ports = [];
  }

  /** Games followed by at least one edge (tests). */
  get followed(): number {
    return this.interest.size;
  }

  /** A batch the host posts main: each update's lines go to the edges that follow its game. */
  saw(batch: readonly ShardReply[]): void {
    if (this.ports.length === 0) return;
    for (const r of batch) if (r.t === 'update') this.published(r);
  }

  private published(u: Extract<ShardReply, { t: 'update' }>): void {
    let text = '';
    for (const [, line] of u.lines) text += line.endsWith('\n') ? line : line + '\n';
    const kept: Kept = { seq: u.seq, bytes: encoder.encode(text) };
    let list = this.recent.get(u.id);
    if (list === undefined) this.recent.set(u.id, (list = []));
    list.push(kept);
    if (list.length > FEED_KEPT) list.shift();
    if ('Ended' in u.head.status) this.retire(u.id);
    const edges = this.interest.get(u.id);
    if (edges !== undefined) for (const edge of edges) this.queue(edge, [FEED.UPDATE, u.id, kept.seq, kept.bytes]);
  }

  /** Bounded: the oldest ended game's updates go first. */
  private retire(id: string): void {
    this.ended.delete(id);
    this.ended.add(id);
    if (this.ended.size <= FEED_ENDED_KEPT) return;
    const oldest = this.ended.values().next().value!;
    this.ended.delete(oldest);
    this.recent.delete(oldest);
  }

  private ask(edge: number, m: FeedAsk): void {
    const id = m[1];
    if (m[0] === ASK.UNFOLLOW) {
      const edges = this.interest.get(id);
      edges?.delete(edge);
      if (edges?.size === 0) this.interest.delete(id);
      return;
    }
    const from = m[2];
    let edges = this.interest.get(id);
    if (edges === undefined) this.interest.set(id, (edges = new Set()));
    edges.add(edge);
    // With nothing kept, the game has not moved since this shard started (or since it was kept):
    // the edge has missed nothing.
    const list = this.recent.get(id) ?? [];
    if (list.length > 0 && list[0].seq > from + 1) this.queue(edge, [FEED.GAP, id, list[0].seq]);
    else for (const k of list) if (k.seq > from) this.queue(edge, [FEED.UPDATE, id, k.seq, k.bytes]);
  }

  private queue(edge: number, m: FeedMessage): void {
    let q = this.out.get(edge);
    if (q === undefined) this.out.set(edge, (q = []));
    q.push(m);
    if (this.flushing) return;
    this.flushing = true;
    this.later(() => this.flush());
  }

  private flush(): void {
    this.flushing = false;
    const out = this.out;
    this.out = new Map();
    for (const [edge, msgs] of out) {
      const port = this.ports[edge];
      if (port !== undefined) postFeed(port, msgs);
    }
  }
}
