// Preloaded into a cluster node by the `cluster` suite when BENCH_CLUSTER_PROF=DIR is set
// (`NODE_OPTIONS=--import …/node-prof.js`: `--cpu-prof` itself is not allowed in NODE_OPTIONS):
// samples the main thread's CPU with the inspector's profiler from start-up and writes
// DIR/<pid>.cpuprofile when the node is told to stop (SIGTERM), before its own shutdown runs.
// Read the files with bench/cpu-profile.js.
import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.env.BENCH_NODE_PROF_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable', () => session.post('Profiler.start'));
  process.once('SIGTERM', () => {
    session.post('Profiler.stop', (err, res) => {
      if (!err) writeFileSync(join(dir, `${process.pid}.cpuprofile`), JSON.stringify(res.profile));
      session.disconnect();
    });
  });
}
