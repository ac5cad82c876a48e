// Run by test/runtime/newer-node.test.ts under two Node versions: exercises the engine, the fair
// dice, the domain, the pure services (Glicko-2, pairing) and the wire schemas and documents, and
// prints one JSON line of results. Nothing here may need uWebSockets.js or LMDB; the two runs must
// print the same line.
import { createHash } from 'node:crypto';
import { ManualClock } from '../../src/domain/clock.js';
import { DEFAULT_RATING, ladderKindOf } from '../../src/domain/records.js';
import { applyTurn, legalTree, parseDfen, perft, START_FEN, treePaths, treeToJson, withDice } from '../../src/engine/index.js';
import { commitOf, hexToSeed, rollDice } from '../../src/fair/index.js';
import { rateAll } from '../../src/services/glicko2.js';
import { choosePairs, planGame } from '../../src/services/ladder-pairing.js';
import { asyncApiJson, openApiJson } from '../../src/wire/openapi.js';
import { parseBody } from '../../src/wire/parse.js';
import { MoveRequest, RegisterRequest } from '../../src/wire/requests.js';

const sha = (s: string): string => createHash('sha256').update(s).digest('hex');
const pos = (fen: string) => {
  const p = parseDfen(fen);
  if (!p.ok) throw new Error(p.error.message);
  return p.value;
};

const out: Record<string, unknown> = {};
const start = pos(START_FEN);
out.perft = [1, 2, 3, 4, 5, 6].map((die) => perft(start, die, 2));
const seed = hexToSeed('000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f')!;
out.commit = commitOf(seed);
out.rolls = Array.from({ length: 40 }, (_, ply) => rollDice(seed, 'alice', 'bob', ply));
// A playout: each roll's tree, the first legal path applied, for as long as it lasts.
let fen = START_FEN;
const trees: string[] = [];
for (let ply = 0; ply < 30; ply++) {
  const rolled = withDice(fen, rollDice(seed, 'w', 'b', ply));
  if (!rolled.ok) throw new Error('withDice');
  const tree = legalTree(pos(rolled.value));
  trees.push(sha(treeToJson(tree.bytes)));
  const paths = treePaths(tree.bytes);
  const next = applyTurn(pos(rolled.value), paths.length > 0 ? paths[paths.length >> 1] : []);
  if (!next.ok) throw new Error(`applyTurn at ply ${ply}`);
  fen = next.value.fenAfter;
  if (next.value.kingCaptured) break;
}
out.trees = trees;
out.finalFen = fen;
out.dfenErrors = ['', 'x w - - 0 1', START_FEN + ' PPPP'].map((f) => {
  const r = parseDfen(f);
  return r.ok ? 'ok' : r.error.code;
});
const clock = new ManualClock(1_000, { runDueTimers: true });
const fired: number[] = [];
clock.schedule(50, () => fired.push(clock.now()));
clock.advance(100);
out.clock = fired;
out.ladderKind = [ladderKindOf({ rated: true, mirrorOf: 'g' }), ladderKindOf({ rated: true, mirrorOf: null }), ladderKindOf({ rated: false, mirrorOf: null })];
const ratings = new Map([['a', { ...DEFAULT_RATING }], ['b', { rating: 1700, rd: 80, volatility: 0.06 }]]);
out.glicko = [...rateAll(ratings, [{ white: 'a', black: 'b', whiteScore: 1 }, { white: 'b', black: 'a', whiteScore: 0.5 }], { tau: 0.5 }, DEFAULT_RATING)];
let r = 7;
const random = () => ((r = (r * 48271) % 2147483647) / 2147483647);
out.pairs = choosePairs(['p', 'q', 'r', 's', 't'].map((id, i) => ({ id, rating: 1500 + i * 10, rd: 350 - i, lastOpponent: null })), random).map(([a, b]) => [a.id, b.id]);
out.plan = planGame({ id: 'p', free: 1, colours: { white: 2, black: 1 } }, { id: 'q', free: 3, colours: { white: 0, black: 0 } }, random);
out.parsed = [
  parseBody(MoveRequest, { moves: ['e2e4'] }),
  parseBody(MoveRequest, { moves: 'e2e4' }),
  parseBody(RegisterRequest, { team: 'Bad Team', name: 'x' }),
];
out.openapi = sha(openApiJson('probe'));
out.asyncapi = sha(asyncApiJson('probe'));
process.stdout.write(`${JSON.stringify(out)}\n`);
