// The named codecs: each reads back what it wrote, and each still writes the bytes it wrote before
// it had a name (stored data and peers of another version must read them), pinned here.
import t from 'tap';
import { pack, unpack } from 'msgpackr';
import { codec } from '../../src/domain/codec.js';

const record = {
  schema: 1,
  id: 'g-ÉÀ-42',
  status: 'ended',
  clocks: { white: 59_000, black: 60_000.5 },
  history: [{ moves: ['e2e4', 'g1f3'], dice: [1, 5, 6] }, { moves: [], dice: [2, 2, 3] }],
  result: null,
  seeds: new Uint8Array([0, 1, 254, 255]),
  at: 1_732_531_200_123,
};
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

t.test('each named codec reads back what it wrote', async (t) => {
  for (const [name, c] of Object.entries(codec)) {
    const bytes = c.encode(record);
    t.same(c.decode(bytes), { ...record, seeds: Buffer.from(record.seeds) }, name);
    t.equal(bytes.byteOffset, 0, `${name}: the bytes own their buffer`);
    t.equal(bytes.buffer.byteLength, bytes.byteLength, `${name}: and nothing more of it`);
  }
});

t.test('stored records are plain msgpack: the bytes of a plain pack', async (t) => {
  t.equal(hex(codec.records.encode(record)), hex(pack(record)), 'a record');
  t.equal(hex(codec.records.encode([record, record])), hex(pack([record, record])), 'two records of one shape, no record extension');
  t.equal(hex(codec.records.encode({ a: 1, b: 'x' })), 'de0002a16101a162a178', 'pinned bytes');
  t.same(unpack(codec.records.encode(record)), codec.records.decode(codec.records.encode(record)), 'a plain unpack reads them');
});

t.test("the transport's wire bytes are plain msgpack too", async (t) => {
  t.equal(hex(codec.wire.encode([record, record])), hex(pack([record, record])));
});

t.test('batches use the record extension, defined inside each buffer', async (t) => {
  const batch = [{ x: 1, y: 2 }, { x: 3, y: 4 }];
  t.equal(hex(codec.batches.encode(batch)), '92d4724092a178a1790102400304', 'one record definition, used twice');
  codec.batches.encode([{ other: 'shape' }]);
  const later = codec.batches.encode(batch);
  t.same(unpack(later), batch, 'a buffer made after others reads alone, by a reader that saw none of them');
});
