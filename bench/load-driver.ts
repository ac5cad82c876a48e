// The load process of the game-throughput benchmarks (bench/throughput.ts, bench/persistence.ts,
// bench/scaling.ts), a separate process so that its CPU is not the server's: N bot pairs play
// complete games (bench/pair-play.ts) against a running server over HTTP, as fast as they can, for a
// fixed time.
//
//   node load-driver.js --url http://127.0.0.1:PORT --pairs N --duration-ms MS [--register PREFIX]
//
// `--url` may list several nodes of a cluster, comma-separated: the pairs are spread over them and
// registered (`--register`, a team prefix unique to the run) rather than anonymous (see pair-play.ts).
//
// When the time is up the games still running are resigned. The last stdout line is a JSON summary
// (see LoadSummary in procs.ts); when forked, 'start' and 'stop' messages mark the measurement
// window for the parent, and the driver exits if the parent goes away.
import { parseArgs } from 'node:util';
import { PairPlay } from './pair-play.js';

/** After the window: how long resigned games get to end and their streams to close. */
const WIND_DOWN_MS = 5_000;

const { values: opt } = parseArgs({
  options: {
    url: { type: 'string' },
    pairs: { type: 'string', default: '8' },
    'duration-ms': { type: 'string', default: '15000' },
    register: { type: 'string' },
  },
});
if (!opt.url) {
  console.error('usage: load-driver --url http://127.0.0.1:PORT[,http://…] [--pairs N] [--duration-ms MS] [--register PREFIX]');
  process.exit(2);
}
const PAIRS = Number(opt.pairs);
const DURATION_MS = Number(opt['duration-ms']);
process.once('disconnect', () => process.exit(1));

async function main(): Promise<void> {
  const urls = (opt.url ?? '').split(',').map((u) => new URL(u));
  const play = new PairPlay(urls, PAIRS, {}, { registerPrefix: opt.register });
  await play.prepare();
  const windowStart = performance.now();
  const cpu0 = process.cpuUsage();
  process.send?.({ event: 'start' });
  play.start();
  await new Promise((r) => setTimeout(r, DURATION_MS));
  const windowEnd = performance.now();
  const cpu = process.cpuUsage(cpu0);
  process.send?.({ event: 'stop' });
  await play.stop(WIND_DOWN_MS);
  const s = play.summary((windowEnd - windowStart) / 1000);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  const summary = {
    ...s,
    driverCpuPct: (cpuMs / (windowEnd - windowStart)) * 100,
    driverCpuMsPerTurn: s.turns ? cpuMs / s.turns : 0,
  };
  process.stdout.write(`${JSON.stringify(summary)}\n`, () => process.exit(0));
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
