// Scratch: runs the lossy scenario on many seeds, stops at the first failure and prints its trace.
import { lossyRun, problems, stopRun } from './lossy-games.js';

const from = Number(process.argv[2] ?? 1);
const count = Number(process.argv[3] ?? 500);
for (let seed = from; seed < from + count; seed++) {
  const trace: string[] = [];
  const run = await lossyRun(seed, { trace, randomDice: !!process.env.RANDOM_DICE });
  const p = problems(run);
  await stopRun(run);
  if (p.length > 0) {
    console.log(`seed ${seed} FAILED:\n  ${p.join('\n  ')}`);
    for (const h of run.handles) { const r = run.store.getGame(h.id)!; console.log(h.id, r.serverSeed, JSON.stringify(r.clientSeeds), r.mirrorOf); }
    if (process.env.TRACE) console.log(trace.join('\n'));
    process.exit(1);
  }
  if (seed % 25 === 0) console.log(`seed ${seed} ok`);
}
console.log('all ok');
