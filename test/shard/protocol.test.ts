// The shard protocol's pure parts: which shard owns a game (stable, spread, a mirror pair together),
// the moving fields of a record, the forwarding store of a memory server's shard, and batches
// bounded in bytes and count.
import t from 'tap';
import {
  BATCH_MAX_BYTES, BATCH_MAX_MESSAGES, MOVING_FIELDS, chunked, headOf, messageBytes, shardIndex, shardKey, type ShardReply,
} from '../../src/shard/protocol/messages.js';
import { ForwardingStore } from '../../src/shard/owner/forwarding-store.js';
import { SCHEMA_VERSION, type GameRecord } from '../../src/domain/records.js';

const rec = (id: string, over: Partial<GameRecord> = {}): GameRecord => ({
  schema: SCHEMA_VERSION, id, white: { id: 'w', face: { kind: 'Bot', name: 'a w' }, participant: { Bot: { team: 'a', name: 'w' } } },
  black: { id: 'b', face: { kind: 'Bot', name: 'a b' }, participant: { Bot: { team: 'a', name: 'b' } } },
  timeControl: { Unlimited: {} }, rated: false, createdAt: 1, serverSeed: '00'.repeat(32), commit: '11'.repeat(32),
  clientSeeds: { white: null, black: null }, ply: 0, fen: 'x', activeSeat: 'White', dice: null,
  clocks: { white: null, black: null } as unknown as GameRecord['clocks'], clockStartedAt: null, version: 0, history: [],
  status: { Active: {} }, revealedSeeds: null, finishedAt: null, mirrorOf: null, ...over,
});

t.test('a game id maps to one shard, always the same, and ids spread over every shard', async (t) => {
  const counts = [0, 0, 0, 0];
  for (let i = 0; i < 4000; i++) {
    const id = `game${i.toString(36)}x`;
    const s = shardIndex(shardKey(id, null), 4);
    t.equal(s, shardIndex(shardKey(id, null), 4));
    counts[s]++;
  }
  for (const c of counts) t.ok(c > 800 && c < 1200, `roughly a quarter each (${counts.join(', ')})`);
  t.equal(shardIndex('anything', 1), 0, 'one shard takes everything');
});

t.test('the two games of a mirror pair share a shard, whichever id is asked', async (t) => {
  for (let i = 0; i < 200; i++) {
    const a = `a${i}`;
    const b = `b${i * 7}`;
    t.equal(shardKey(a, b), shardKey(b, a));
    t.equal(shardIndex(shardKey(a, b), 5), shardIndex(shardKey(b, a), 5));
  }
});

t.test('a head carries the moving fields only, and no unset optional one', async (t) => {
  const r = rec('g1', { ply: 3, version: 7, dice: [1, 2, 3] });
  const head = headOf(r);
  t.same(Object.keys(head).sort(), MOVING_FIELDS.filter((k) => k !== 'revealHeld').sort());
  t.equal(head.version, 7);
  t.notOk('white' in head || 'serverSeed' in head || 'history' in head, 'fixed fields stay home');
  t.equal(headOf({ ...r, revealHeld: true }).revealHeld, true);
});

t.test('forwarding store: live writes stay in the shard; an ending travels once, with its results', async (t) => {
  const s = new ForwardingStore();
  await s.putGame(rec('g1'));
  await s.putGame(rec('g1', { version: 1 }));
  t.equal(s.take('g1'), undefined, 'a live version needs no write on main');
  t.same(s.drain(), [], 'nothing to send on its own');
  t.equal(s.getGame('g1')?.version, 1, 'the shard reads back its latest');
  t.same(s.listLiveGames().map((r) => r.id), ['g1']);
  const ended = rec('g1', { version: 2, status: { Ended: { over: { result: 'Draw', termination: 'Draw' } } } as unknown as GameRecord['status'] });
  await s.finishGame(ended, []);
  t.same(s.listLiveGames(), [], 'no longer live');
  t.same(s.take('g1'), { kind: 'finish', results: [] }, 'the ending goes with its version');
  t.equal(s.take('g1'), undefined, 'once');
  await s.putGame({ ...ended, revealHeld: false });
  const alone = s.drain();
  t.equal(alone.length, 1, 'an ended record written again is sent on its own');
  t.equal(alone[0].results, undefined, 'as a plain write');
  await s.finishGame(rec('g2', { status: ended.status }), []);
  t.same(s.drain().map((w) => [w.rec.id, w.results]), [['g2', []]], 'an ending no version took is sent with its results');
});

t.test('batches are bounded in bytes and in count, keep their order, and a message past the bound goes alone', async (t) => {
  const line = (n: number): string => `{"Rejected":{"v":1,"seat":"White","reason":"${'x'.repeat(n)}"}}\n`;
  const update = (i: number, size: number): ShardReply => ({
    t: 'update', id: `g${i}`, seq: 1, head: {} as never, from: 0, hist: [], lines: [[1, line(size)]], turns: 0,
  });
  const batch: ShardReply[] = [];
  for (let i = 0; i < 40; i++) batch.push(update(i, 100_000));
  batch.push(update(40, 3 * BATCH_MAX_BYTES));
  for (let i = 41; i < 41 + BATCH_MAX_MESSAGES + 10; i++) batch.push({ t: 'answer', rid: i, reply: 'busy' });
  const parts = chunked(batch);
  t.same(parts.flat(), batch, 'every message, in order');
  for (const p of parts) {
    const bytes = p.reduce((n, m) => n + messageBytes(m), 0);
    t.ok(p.length === 1 || bytes <= BATCH_MAX_BYTES, `a part of ${p.length} messages holds ${bytes} bytes`);
    t.ok(p.length <= BATCH_MAX_MESSAGES);
  }
  t.ok(parts.some((p) => p.length === 1 && p[0].t === 'update' && p[0].id === 'g40'), 'the oversized update crossed alone');
  t.ok(parts.length >= 6, `${parts.length} parts`);
});
