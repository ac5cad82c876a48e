// A roll's tree is made once, by the shard that owns the game; main keeps the text the shard sent and
// serves it as it is, and never runs the engine for a tree (no tree bytes, no tree JSON): real shard
// hosts in this thread (LoopbackTransport), a game resumed with its roll pending, and main's reads.
import t, { type Test } from 'tap';
import { ManualClock } from '../../src/domain/clock.js';
import { silentLogger } from '../../src/domain/log.js';
import { SCHEMA_VERSION, type GameRecord } from '../../src/domain/records.js';
import { EncodedBodies } from '../../src/edge/encoded-bodies.js';
import { gameHandlers, type GameRouteDeps } from '../../src/edge/handlers/games.js';
import type { Reply } from '../../src/edge/reply.js';
import { START_FEN, legalTree, parseDfen, treeToJson } from '../../src/engine/index.js';
import { DEFAULT_GAME_CONFIG } from '../../src/game/game-config.js';
import { clearReadCaches, treeBytesCache, treeJsonCache } from '../../src/game/read-cache.js';
import { MemoryStore } from '../../src/store/memory.js';
import type { Command, ShardReply, TreeWire } from '../../src/shard/protocol/messages.js';
import { ShardedGames } from '../../src/shard/main/sharded-games.js';
import { TREE_TEXT_BUDGET, TreeTexts, treeTexts } from '../../src/shard/main/tree-texts.js';
import { LoopbackTransport } from '../../src/shard/loopback-transport.js';
import { type ShardEvents, type ShardTransport } from '../../src/shard/protocol/transport.js';
import { until } from '../helpers/poll.js';
import { announce } from '../helpers/shard-announce.js';

const bot = (id: string) => ({ id, face: { kind: 'Bot' as const, name: `t ${id}` }, participant: { Bot: { team: 't', name: id } } });

/** A live game at the opening with `dice` pending (1,1,2 is PPN: 2,540 leaves, over the inline cap; 2,2,2 is NNN: 174). */
const rec = (id: string, dice: number[]): GameRecord => ({
  schema: SCHEMA_VERSION, id, white: bot(`w-${id}`), black: bot(`b-${id}`), timeControl: { Unlimited: {} }, rated: false, createdAt: 1,
  serverSeed: '00'.repeat(32), commit: '11'.repeat(32), clientSeeds: { white: null, black: null }, ply: 1,
  fen: START_FEN, activeSeat: 'White', dice, clocks: { white: null, black: null } as unknown as GameRecord['clocks'],
  clockStartedAt: 1, version: 3, history: [], status: { Active: {} }, revealedSeeds: null, finishedAt: null, mirrorOf: null,
});

/** Records every reply and command that crosses, passing them on unchanged. */
class Recording implements ShardTransport {
  readonly replies: ShardReply[] = [];
  readonly commands: Command[] = [];
  constructor(private readonly inner: ShardTransport) {}
  open(index: number, events: ShardEvents) {
    const channel = this.inner.open(index, {
      replies: (b) => {
        this.replies.push(...b);
        events.replies(b);
      },
      died: (e) => events.died(e),
    });
    return {
      send: (b: Command[]) => {
        this.commands.push(...b);
        channel.send(b);
      },
      close: () => channel.close(),
    };
  }
}

async function setup(t: Test, recs: GameRecord[]) {
  const clock = new ManualClock();
  const store = new MemoryStore();
  for (const r of recs) await store.putGame(r);
  const config = DEFAULT_GAME_CONFIG;
  const transport = new Recording(
    new LoopbackTransport({ clock, config, log: silentLogger, housePlayers: new Map(), storeFor: () => ({ mode: 'shared', games: store }) }),
  );
  const games = new ShardedGames({ transport, shards: 1, store, forwarded: false, clock, config, listeners: [], newId: () => 'x', log: silentLogger });
  await games.resume();
  t.teardown(() => games.stop());
  const deps = { games, movesBodies: new EncodedBodies() } as unknown as GameRouteDeps;
  const get = gameHandlers(deps).getLegalMoves as (call: unknown) => Reply | Promise<Reply>;
  const read = async (id: string): Promise<Reply> => get({ params: { id }, ctx: { headers: { other: new Map() } } });
  /** The tree text the shard sent for `id` when it resumed it. */
  const sent = (id: string): TreeWire => {
    const r = transport.replies.find((m) => m.t === 'resumed' && m.rec.id === id) as Extract<ShardReply, { t: 'resumed' }>;
    return r.tree!;
  };
  return { games, read, sent, transport };
}

/** The tree's text as the owner makes it (this test stands for the shard here). */
const ownerText = (dfen: string): string => {
  const pos = parseDfen(dfen);
  if (!pos.ok) throw new Error(dfen);
  return treeToJson(legalTree(pos.value).bytes);
};

t.test('a large tree: the moves body is the shard\'s bytes; main builds no tree', async (t) => {
  const { games, read, sent } = await setup(t, [rec('big', [1, 1, 2])]);
  const wire = sent('big');
  t.ok(wire.leaves > DEFAULT_GAME_CONFIG.inlineLeafCap, `over the inline cap: ${wire.leaves} leaves`);
  t.ok(wire.text instanceof Uint8Array, 'the shard sent the text as bytes');
  const text = ownerText(wire.dfen);
  t.equal(Buffer.from(wire.text!).toString('utf8'), text, 'the bytes are the engine\'s JSON of the tree, made by the shard');

  // Whatever the shard (in this thread) left in the engine caches goes: from here on only main runs.
  clearReadCaches();
  const reply = await read('big');
  t.equal(reply.status, 200);
  const body = Buffer.from(reply.body as Uint8Array).toString('utf8');
  t.equal(body, `{"version":3,"dfen":${JSON.stringify(wire.dfen)},"dicePending":true,"legalMoves":${text}}`, 'the body wraps the shard\'s text');
  const g = games.get('big')!;
  t.equal(g.state().legalMoves, null, 'the state has no inline tree over the cap');
  g.stateJson();
  g.subscribe({ deliver: () => {}, close: () => {} }).unsubscribe();
  t.equal(treeBytesCache.size, 0, 'main built no tree bytes');
  t.equal(treeJsonCache.size, 0, 'main made no tree JSON');
});

t.test('a small tree: the state\'s inline tree is the shard\'s text; main builds no tree', async (t) => {
  const { games, read, sent } = await setup(t, [rec('small', [2, 2, 2])]);
  const wire = sent('small');
  const text = ownerText(wire.dfen);
  t.ok(wire.leaves <= DEFAULT_GAME_CONFIG.inlineLeafCap);
  clearReadCaches();
  const g = games.get('small')!;
  t.same(g.state().legalMoves, JSON.parse(text), 'the inline tree');
  t.ok(g.stateJson().includes(`"legalMoves":${text}`), 'the state JSON carries the text as sent');
  const reply = await read('small');
  t.equal(reply.status, 200);
  t.ok(String(reply.body).endsWith(`"legalMoves":${text}}`), 'the moves body carries the text as sent');
  t.equal(treeBytesCache.size, 0, 'main built no tree bytes');
  t.equal(treeJsonCache.size, 0, 'main made no tree JSON');
});

t.test('a large tree main let go is asked of its shard again, not rebuilt; streams stay open', async (t) => {
  const { games, read, sent, transport } = await setup(t, [rec('again', [1, 1, 1])]);
  const text = ownerText(sent('again').dfen);
  let closed = 0;
  games.get('again')!.subscribe({ deliver: () => {}, close: () => closed++ });
  treeTexts.clear(); // as when the store's budget pushed it out
  clearReadCaches();
  const syncs = () => transport.commands.filter((c) => c.t === 'sync').length;
  const [a, b] = await Promise.all([read('again'), read('again')]);
  t.equal(syncs(), 1, 'one request to the owner for two waiting reads');
  for (const r of [a, b]) {
    t.equal(r.status, 200);
    t.ok(Buffer.from(r.body as Uint8Array).toString('utf8').endsWith(`"legalMoves":${text}}`));
  }
  t.equal(closed, 0, 'the game\'s subscribers were not closed');
  // (The shard, in this thread here, rebuilt the tree to answer: that is the owner's work. Main
  // could not have: its pending trees throw if asked for the engine's bytes.)
  await read('again');
  t.equal(syncs(), 1, 'kept again: the next read asks nothing');
});

t.test('the large-tree store holds to its byte budget, which covers the largest tree found', async (t) => {
  const store = new TreeTexts(100);
  const keys = [{}, {}, {}];
  for (const k of keys) store.set(k, new Uint8Array(40));
  t.ok(store.size <= 100, `held ${store.size} bytes`);
  t.equal(store.get(keys[0]), undefined, 'the least recently used went first');
  t.ok(store.get(keys[2]) !== undefined);
  // docs/ENGINE.md, "Largest trees": the worst found is 24.7 MB of JSON.
  t.ok(TREE_TEXT_BUDGET >= 4 * 24.7e6, 'several of the worst trees fit');
});

t.test('a large tree its shard does not send again: 503 tree_unavailable after three rounds, nothing rebuilt', async (t) => {
  const sent: Command[] = [];
  let events!: ShardEvents;
  const transport: ShardTransport = {
    open: (_i, e) => {
      events = e;
      return { send: (b: Command[]) => void sent.push(...b), close: async () => {} };
    },
  };
  const store = new MemoryStore();
  const games = new ShardedGames({
    transport, shards: 1, store, forwarded: true, clock: new ManualClock(), config: DEFAULT_GAME_CONFIG,
    listeners: [], newId: () => 'x', log: silentLogger,
  });
  clearReadCaches();
  const text = '{"a1a2":{}}'; // opaque to main: only its bytes matter
  await announce(games, store, () => sent, (r) => events.replies(r), { rec: rec('gone', [1, 1, 2]), tree: { dfen: 'd', leaves: 5000, text: Buffer.from(text) } });
  treeTexts.clear();
  const deps = { games, movesBodies: new EncodedBodies() } as unknown as GameRouteDeps;
  const get = gameHandlers(deps).getLegalMoves as (call: unknown) => Reply | Promise<Reply>;
  const reply = get({ params: { id: 'gone' }, ctx: { headers: { other: new Map() } } });
  for (let round = 1; round <= 3; round++) {
    const syncs = await until(() => {
      const s = sent.filter((c): c is Extract<Command, { t: 'sync' }> => c.t === 'sync');
      return s.length >= round ? s : undefined;
    }, `round ${round}'s request`);
    t.equal(syncs.length, round, `round ${round}: the tree was asked of the shard (once)`);
    events.replies([{ t: 'failed', rid: syncs[round - 1].rid, error: 'no' }]);
  }
  const r = await reply;
  t.equal(r.status, 503);
  t.match(String(r.body), /tree_unavailable/);
  t.equal(treeBytesCache.size, 0, 'main built no tree bytes');
});
