// Time odds on stored game records: a record written before odds existed (no `timeControls`) still
// decodes to the same record and plays both sides on its one control; a record with odds keeps its
// per-side controls through every encoding a game record goes through (the store's records codec, the
// game log's version entries, a shard batch carrying a new pair's spec).
import t from 'tap';
import { pack } from 'msgpackr';
import { codec } from '../../src/domain/codec.js';
import { seatControlsOf, type GameRecord } from '../../src/domain/records.js';
import type { SeatControls } from '../../src/domain/types.js';
import { encodeVersion, foldVersion } from '../../src/cluster/log/record-codec.js';
import { decodeBatch, encodeBatch } from '../../src/shard/protocol/codec.js';
import { GameView } from '../../src/game/view.js';
import { game } from '../helpers/store-fixtures.js';

const ODDS: SeatControls = { white: { SuddenDeath: { initialSeconds: 60 } }, black: { SuddenDeath: { initialSeconds: 10 } } };

t.test('an old record (no timeControls) decodes as before: both sides on timeControl', async (t) => {
  const old = game('old-1');
  t.notOk('timeControls' in old, 'the fixture is shaped as before odds');
  const bytes = pack(old); // what the previous version wrote: a plain MessagePack map
  t.equal(Buffer.from(codec.records.encode(old)).toString('hex'), Buffer.from(bytes).toString('hex'), 'written the same today');
  const back = codec.records.decode<GameRecord>(bytes);
  t.strictSame(back, old, 'read back the same');
  t.same(seatControlsOf(back), { white: old.timeControl, black: old.timeControl });
  const state = GameView.ofRecord(back).state();
  t.notOk('timeControls' in state, 'its state keeps the shape it had');
  t.notOk('timeControls' in JSON.parse(GameView.ofRecord(back).stateJson()));
  t.strictSame(foldVersion(undefined, encodeVersion(undefined, old)).rec, old, 'through the game log too');
});

t.test('a record with odds keeps each side’s control in every encoding', async (t) => {
  const rec = game('odds-1', { timeControl: ODDS.white, timeControls: ODDS, clocks: { white: 60_000, black: 10_000 } });
  t.strictSame(codec.records.decode<GameRecord>(codec.records.encode(rec)), rec, 'records codec');
  t.strictSame(foldVersion(undefined, encodeVersion(undefined, rec)).rec, rec, 'game log version entry');
  const spec = { white: rec.white, black: rec.black, timeControl: ODDS.white, timeControls: ODDS, rated: false };
  const [msg] = decodeBatch(encodeBatch([{ t: 'pair', rid: 1, ids: ['a', 'b'], spec }])) as [{ spec: typeof spec }];
  t.strictSame(msg.spec.timeControls, ODDS, 'a shard batch carries the new pair’s controls');
  t.same(seatControlsOf(rec), ODDS);
  t.same(GameView.ofRecord(rec).state().timeControls, ODDS, 'the state shows them');
});
