// A shard's edge feeds (src/shard/owner/edge-feeds.ts) on their own, with stand-in ports: a game's
// lines go only to the edges that follow it, made into bytes once; a follow from an earlier update
// gets what is kept after it, or a GAP when that is no longer kept; what is kept is bounded.
import t from 'tap';
import { ASK, FEED, packFeed, unpackFeed, type FeedMessage, type FeedPort } from '../../src/domain/edge-feed.js';
import { EdgeFeedPublisher, FEED_ENDED_KEPT, FEED_KEPT } from '../../src/shard/owner/edge-feeds.js';
import type { ShardReply } from '../../src/shard/protocol/messages.js';

class FakePort implements FeedPort {
  readonly got: FeedMessage[] = [];
  private cb: ((v: unknown) => void) | undefined;
  postMessage(value: unknown): void {
    this.got.push(...unpackFeed<FeedMessage>(value));
  }
  on(_: 'message', cb: (v: unknown) => void): this {
    this.cb = cb;
    return this;
  }
  close(): void {}
  /** The edge asks. */
  ask(...msgs: unknown[]): void {
    this.cb?.(packFeed(msgs));
  }
}

function setUp() {
  const later: (() => void)[] = [];
  const pub = new EdgeFeedPublisher((fn) => void later.push(fn));
  const ports = [new FakePort(), new FakePort()];
  pub.attach(ports);
  const turn = () => later.splice(0).forEach((fn) => fn());
  return { pub, ports, turn };
}

const ACTIVE = { Active: {} } as never;
const ENDED = { Ended: { over: {} } } as never;

function update(id: string, seq: number, status = ACTIVE): ShardReply {
  return { t: 'update', id, seq, head: { status } as never, from: 0, hist: [], lines: [[seq, `{"L":${seq}}\n`]], turns: 0 };
}

const text = (m: FeedMessage) => (m[0] === FEED.UPDATE ? new TextDecoder().decode(m[3]) : `GAP ${m[2]}`);

t.test('only the edges that follow a game get its lines, each update once, as bytes', async (t) => {
  const { pub, ports, turn } = setUp();
  pub.saw([update('g', 1)]);
  turn();
  t.same(ports.map((p) => p.got.length), [0, 0], 'no edge follows: nothing sent');
  ports[0].ask([ASK.FOLLOW, 'g', 1]);
  pub.saw([update('g', 2), update('other', 1)]);
  turn();
  t.same(ports[0].got.map((m) => [m[1], m[2], text(m)]), [['g', 2, '{"L":2}\n']]);
  t.same(ports[1].got, [], 'the other edge gets nothing');
  ports[0].ask([ASK.UNFOLLOW, 'g']);
  pub.saw([update('g', 3)]);
  turn();
  t.equal(ports[0].got.length, 1, 'nothing after UNFOLLOW');
  t.equal(pub.followed, 0);
});

t.test('a follow from an earlier update gets what is kept after it, or a GAP', async (t) => {
  const { pub, ports, turn } = setUp();
  for (let seq = 1; seq <= FEED_KEPT + 3; seq++) pub.saw([update('g', seq)]);
  const last = FEED_KEPT + 3;
  ports[0].ask([ASK.FOLLOW, 'g', last - 2]);
  turn();
  t.same(ports[0].got.map((m) => m[2]), [last - 1, last], 'the two after the snapshot');
  ports[1].ask([ASK.FOLLOW, 'g', 1]);
  turn();
  t.same(ports[1].got, [[FEED.GAP, 'g', last - FEED_KEPT + 1]], 'older than what is kept: a GAP naming the oldest kept');
});

t.test('what is kept is bounded: FEED_KEPT updates a game, FEED_ENDED_KEPT ended games', async (t) => {
  const { pub, ports, turn } = setUp();
  for (let seq = 1; seq <= 3 * FEED_KEPT; seq++) pub.saw([update('g', seq)]);
  ports[0].ask([ASK.FOLLOW, 'g', 3 * FEED_KEPT - FEED_KEPT]);
  turn();
  t.equal(ports[0].got.length, FEED_KEPT, 'the last FEED_KEPT updates only');
  for (let i = 0; i <= FEED_ENDED_KEPT; i++) pub.saw([update(`e${i}`, 1, ENDED)]);
  ports[1].ask([ASK.FOLLOW, 'e0', 0], [ASK.FOLLOW, `e${FEED_ENDED_KEPT}`, 0]);
  turn();
  t.same(ports[1].got.map((m) => m[1]), [`e${FEED_ENDED_KEPT}`], 'the oldest ended game is forgotten');
});
