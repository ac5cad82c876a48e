// The shard batch codec: every value a batch carries reads back as it was written, each buffer
// reads back on its own (no state shared with earlier buffers), and it survives a transfer.
import t from 'tap';
import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import { decodeBatch, encodeBatch } from '../../src/shard/protocol/codec.js';

const command = { gameId: 'g-ÉÀ-42', seat: 'white', moves: ['e2e4', 'g1f3', 'd2d4'], at: 1_732_531_200_123 };
const entry = {
  gameId: 'g-ÉÀ-42',
  lines: [
    '{"type":"TurnPlayed","moves":["e2e4","g1f3"],"note":"naïve café ♞ 🎲"}\n',
    '{"type":"DiceRolled","dice":[1,5,6]}\n',
  ],
  patch: { version: 7, status: 'started', clocks: { white: 59_000, black: 60_000.5 }, result: null, winner: undefined },
  verdict: { ok: true, nested: [[1, [2, [3, 'x']]], [], [null]] },
  payload: new Uint8Array([0, 1, 2, 253, 254, 255]),
};

t.test('a batch of representative messages reads back equal', async (t) => {
  const batch = [command, entry, null, 'plain ünïcödé string', -3, 2 ** 40, [[], [[]]]];
  const back = decodeBatch(encodeBatch(batch));
  t.equal(back.length, batch.length);
  t.same(back[0], command);
  const e = back[1] as typeof entry;
  t.same(e.lines, entry.lines, 'non-ASCII text, emoji included');
  t.same(e.verdict, entry.verdict, 'nested arrays, empty ones and nulls');
  t.equal(e.patch.result, null, 'null stays null');
  t.ok('winner' in e.patch, 'an undefined field stays present');
  t.equal(e.patch.winner, undefined, 'and undefined');
  t.equal(e.patch.clocks.black, 60_000.5, 'fractions survive');
  t.ok(e.payload instanceof Uint8Array, 'bytes come back as bytes');
  t.same(Array.from(e.payload), Array.from(entry.payload));
  t.same(back.slice(2), batch.slice(2));
});

t.test('an empty batch is an empty array', async (t) => {
  t.same(decodeBatch(encodeBatch([])), []);
});

t.test('each buffer stands alone: record shapes are not remembered between buffers', async (t) => {
  // Packed in order a, b; read in order b, a, as a restarted worker or a lost batch would see them.
  const a = encodeBatch([{ x: 1, y: 'a' }, { x: 2, y: 'b' }]);
  const b = encodeBatch([{ x: 3, y: 'c' }]);
  t.same(decodeBatch(b), [{ x: 3, y: 'c' }]);
  t.same(decodeBatch(a), [{ x: 1, y: 'a' }, { x: 2, y: 'b' }]);
});

t.test('the buffer owns its memory, so transferring it leaves later batches intact', async (t) => {
  const first = encodeBatch([command]);
  t.equal(first.byteOffset, 0);
  t.equal(first.buffer.byteLength, first.byteLength, 'exactly its own bytes, not a view on a scratch buffer');
  const { port1, port2 } = new MessageChannel();
  port1.postMessage(first, [first.buffer]);
  t.equal(first.byteLength, 0, 'the sender no longer holds it');
  const second = encodeBatch([entry]);
  const got = receiveMessageOnPort(port2)?.message as Uint8Array;
  t.same(decodeBatch(got), [command], 'the transferred buffer reads back');
  t.same((decodeBatch(second)[0] as typeof entry).lines, entry.lines, 'and the next batch is not damaged');
  port1.close();
});

t.test('a buffer that is not a batch is refused', async (t) => {
  t.throws(() => decodeBatch(new Uint8Array([0x2a])), TypeError, 'a single number is not a batch');
});
