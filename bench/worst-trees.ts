// A search for the largest legal-move trees the engine can produce: crafted positions with many
// queens, pawns about to promote, and the dice that move them most (QQQ, PPP, QQP, ...), starting from
// the positions reached in play that first showed the problem. Prints the worst found (leaves, tree
// bytes, JSON bytes, gzip bytes, build and JSON time). Results are recorded in docs/ENGINE.md.
// Usage: node dist/bench/worst-trees.js [random positions to try, default 200]
import { gzipSync } from 'node:zlib';
import { legalTree, parseDfen, treeToJson } from '../src/engine/index.js';
import { prng } from '../test/helpers/prng.js';

interface Found {
  dfen: string;
  leaves: number;
  bytes: number;
  json: number;
  gzip: number;
  buildMs: number;
  jsonMs: number;
}

const SEEDS = [
  '1k2RQ2/2P5/8/Q1N3Q1/3Q4/1Q6/4Q1BQ/K1B2R2 w - - 2 64 QQQ',
  '1k2RQ2/2P5/8/Q1N3Q1/3Q4/1Q6/4Q1BQ/K1B2R2 w - - 2 64 QQP',
  '7k/PPPPPPPP/8/8/8/8/8/K7 w - - 0 1 PPP',
  'k7/8/2Q2Q2/8/Q2Q2Q1/8/2Q2Q2/K7 w - - 0 1 QQQ',
];

function measure(dfen: string): Found | null {
  const pos = parseDfen(dfen);
  if (!pos.ok) return null;
  const t0 = performance.now();
  const tree = legalTree(pos.value);
  const t1 = performance.now();
  const json = treeToJson(tree.bytes);
  const t2 = performance.now();
  const utf8 = Buffer.from(json, 'utf8');
  return {
    dfen, leaves: tree.leaves, bytes: tree.bytes.length, json: utf8.length, gzip: gzipSync(utf8).length,
    buildMs: t1 - t0, jsonMs: t2 - t1,
  };
}

/** White: king, 5 to 9 queens, a few pawns on the seventh rank, maybe a rook and bishop; black: king. */
function crafted(rand: () => number): string {
  const board: string[] = new Array(64).fill('');
  const put = (piece: string, from: number, to: number): void => {
    for (let tries = 0; tries < 100; tries++) {
      const sq = from + Math.floor(rand() * (to - from));
      if (board[sq] === '') {
        board[sq] = piece;
        return;
      }
    }
  };
  board[0] = 'k'; // a8 (index 0 is a8, rank by rank)
  board[56] = 'K'; // a1
  const queens = 5 + Math.floor(rand() * 5);
  for (let i = 0; i < queens; i++) put('Q', 16, 64);
  const pawns = Math.floor(rand() * 4);
  for (let i = 0; i < pawns; i++) put('P', 9, 16);
  if (rand() < 0.5) put('R', 16, 64);
  if (rand() < 0.5) put('B', 16, 64);
  if (rand() < 0.5) put('N', 16, 64);
  const rows: string[] = [];
  for (let r = 0; r < 8; r++) {
    let row = '';
    let empty = 0;
    for (let f = 0; f < 8; f++) {
      const p = board[r * 8 + f];
      if (p === '') empty++;
      else {
        if (empty) row += String(empty);
        empty = 0;
        row += p;
      }
    }
    if (empty) row += String(empty);
    rows.push(row);
  }
  const dice = ['QQQ', 'QQP', 'QQR', 'QQB', 'QQN', 'PPP', 'QPP'][Math.floor(rand() * 7)];
  return `${rows.join('/')} w - - 0 40 ${dice}`;
}

const tries = Number(process.argv[2] ?? 200);
const rand = prng(18);
const found: Found[] = [];
for (const dfen of SEEDS) {
  const f = measure(dfen);
  if (f) found.push(f);
}
for (let i = 0; i < tries; i++) {
  const f = measure(crafted(rand));
  if (f) found.push(f);
}
found.sort((a, b) => b.json - a.json);
const mb = (n: number): string => (n / 1e6).toFixed(2);
console.log(`tried ${SEEDS.length} seed positions and ${tries} crafted ones; the largest trees:`);
console.log('| DFEN | leaves | tree bytes (MB) | JSON (MB) | gzip (MB) | build ms | JSON ms |');
console.log('|---|---|---|---|---|---|---|');
for (const f of found.slice(0, 6)) {
  console.log(`| \`${f.dfen}\` | ${f.leaves.toLocaleString('en-US')} | ${mb(f.bytes)} | ${mb(f.json)} | ${mb(f.gzip)} | ${f.buildMs.toFixed(0)} | ${f.jsonMs.toFixed(0)} |`);
}
