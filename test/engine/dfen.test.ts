// DFEN parsing and serialising (docs/ENGINE.md: DFEN).
import t from 'tap';
import { START_FEN, formatDfen, parseDfen, withDice } from '../../src/engine/index.js';
import { mustParse } from '../helpers/engine.js';

t.test('start position parses and serialises back unchanged (DFEN)', async (t) => {
  const p = mustParse(START_FEN);
  t.equal(p.turn, 0);
  t.equal(p.castling, 15);
  t.same(p.ep, []);
  t.same(p.dice, []);
  t.equal(p.board[4], 6, 'white king on e1');
  t.equal(p.board[60], -6, 'black king on e8');
  t.equal(p.board[8], 1, 'white pawn on a2');
  t.equal(formatDfen(p), START_FEN);
});

t.test('four and five fields default the counters (DFEN)', async (t) => {
  const four = mustParse('rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -');
  t.equal(four.halfmove, 0);
  t.equal(four.fullmove, 1);
  const five = mustParse('rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 7');
  t.equal(five.halfmove, 7);
  t.equal(five.fullmove, 1);
  t.equal(formatDfen(five), 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 7 1');
});

t.test('dice field: "-", either case, any order; written sorted and cased by side (DFEN)', async (t) => {
  t.same(mustParse(`${START_FEN} -`).dice, []);
  t.equal(formatDfen(mustParse(`${START_FEN} -`)), START_FEN, 'no dice: six fields');
  t.same(mustParse(`${START_FEN} kNb`).dice, [2, 3, 6]);
  t.equal(formatDfen(mustParse(`${START_FEN} kbn`)), `${START_FEN} NBK`, 'White to move: upper case, P<N<B<R<Q<K');
  const black = 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1';
  t.equal(formatDfen(mustParse(`${black} QPR`)), `${black} prq`, 'Black to move: lower case');
  t.equal(formatDfen(mustParse(`${START_FEN} PPP`)), `${START_FEN} PPP`, 'repeated faces kept');
});

t.test('serialise ordering: castling KQkq, targets by square index (DFEN)', async (t) => {
  const p = mustParse('4k3/8/8/pPpPp3/8/8/8/4K3 w qkQK e6a6c6 0 1');
  t.equal(formatDfen(p), '4k3/8/8/pPpPp3/8/8/8/4K3 w KQkq a6c6e6 0 1');
  t.same(p.ep, [40, 42, 44]);
  const mixed = mustParse('4k3/8/8/8/8/8/8/4K3 w - h6a3 0 1');
  t.equal(formatDfen(mixed), '4k3/8/8/8/8/8/8/4K3 w - a3h6 0 1', 'rank 3 (lower index) before rank 6');
  t.equal(formatDfen(mustParse('4k3/8/8/8/8/8/8/4K3 w kQ - 0 1')), '4k3/8/8/8/8/8/8/4K3 w Qk - 0 1');
});

t.test('withDice writes the roll sorted and cased (DFEN: a White roll [6,2,3] is NBK)', async (t) => {
  t.same(withDice(START_FEN, [6, 2, 3]), { ok: true, value: `${START_FEN} NBK` });
  t.same(withDice(`${START_FEN} PPP`, [5]), { ok: true, value: `${START_FEN} Q` }, 'replaces pending dice');
  t.same(withDice(START_FEN, []), { ok: true, value: START_FEN });
  const w = withDice(START_FEN, [1, 2, 3, 4]);
  t.equal(!w.ok && w.error.code, 'too_many_dice');
  const b = withDice(START_FEN, [0]);
  t.equal(!b.ok && b.error.code, 'bad_dice');
  const b7 = withDice(START_FEN, [7]);
  t.equal(!b7.ok && b7.error.code, 'bad_dice');
  const f = withDice(START_FEN, [1.5]);
  t.equal(!f.ok && f.error.code, 'bad_dice');
  const bad = withDice('nonsense', [1]);
  t.equal(!bad.ok && bad.error.code, 'bad_field_count');
});

t.test('every malformed case has its own stable code and a message (DFEN)', async (t) => {
  const cases: [string, string][] = [
    ['rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1', 'bad_rank_count'],
    ['rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR/8 w KQkq - 0 1', 'bad_rank_count'],
    ['rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1', 'bad_rank_width'],
    ['rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1', 'bad_piece'],
    ['rnbqkbnr/ppppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1', 'bad_rank_width'],
    ['rnbqkbnr/pppppppp/44/8/8/7/PPPPPPPP/RNBQKBNR w KQkq - 0 1', 'bad_rank_width'],
    ['rnbqkbnr/pppxpppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1', 'bad_piece'],
    ['rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1', 'bad_side'],
    ['rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR W KQkq - 0 1', 'bad_side'],
    ['rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkx - 0 1', 'bad_castling'],
    ['rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KKq - 0 1', 'bad_castling'],
    ['rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e9 0 1', 'bad_square'],
    ['rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq i3 0 1', 'bad_square'],
    ['rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e4 0 1', 'bad_square'],
    ['rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e3c 0 1', 'bad_square'],
    ['rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq E3 0 1', 'bad_square'],
    ['rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e3c3e3 0 1', 'duplicate_target'],
    ['rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - -1 1', 'bad_counter'],
    ['rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1', 'bad_counter'],
    ['rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 -3', 'bad_counter'],
    ['rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1.5', 'bad_counter'],
    ['rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 0', 'bad_counter'],
    ['rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 PNBR', 'too_many_dice'],
    ['rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 PX', 'bad_dice'],
    ['rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 1', 'bad_dice'],
    ['rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq', 'bad_field_count'],
    ['rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 P extra', 'bad_field_count'],
    ['rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq  - 0 1', 'bad_field_count'],
    [' rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1', 'bad_field_count'],
    ['', 'bad_field_count'],
  ];
  for (const [text, code] of cases) {
    const r = parseDfen(text);
    t.equal(r.ok, false, `rejects ${JSON.stringify(text)}`);
    if (!r.ok) {
      t.equal(r.error.code, code, `${JSON.stringify(text)} → ${code}`);
      t.ok(r.error.message.length > 10, 'has a message');
    }
  }
});

t.test('unusual but well-formed positions parse: no kings, pawns on the last rank (DFEN)', async (t) => {
  // A pawn that captured a king on the last rank stays a pawn in fenAfter (piece moves, counters and draws).
  const fen = '3P4/8/8/8/8/8/8/4K3 w - - 0 1';
  t.equal(formatDfen(mustParse(fen)), fen);
});
