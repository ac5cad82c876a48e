// Scratch: replays one run with given dice; prints problems and the trace.
import { lossyRun, problems, stopRun } from './lossy-games.js';

const seed = Number(process.argv[2]);
const single = process.argv[3].split(',');
const [pairSeed, w, b] = process.argv[4].split(',');
const trace: string[] = [];
const run = await lossyRun(seed, { trace, dice: { single, pair: { serverSeed: pairSeed, clientSeeds: { white: w, black: b } } } });
const p = problems(run);
await stopRun(run);
console.log(p.length ? `FAILED:\n  ${p.join('\n  ')}` : 'ok');
if (process.env.TRACE) console.log(trace.join('\n'));
