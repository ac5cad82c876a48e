// The server side of bench/big-trees.ts, run as a child process. It serves the largest legal-move
// tree found (docs/ENGINE.md) in several variants, each on a uWS app and port of its own but all on
// this one main thread, so that they are measured in the same run:
//
// - one per pacing setting given on the command line (`SLICE/TURN` in KiB, or `whole`: one tryEnd of
//   the whole body, the rest on onWritable, as before slices): our edge router with the same
//   EncodedBodies and SendBudget code as GET /games/{id}/moves, at /moves, with its own /health;
// - `bare`: the same bytes through a bare uWS app, at /bare (one res.end, which copies what the
//   socket does not take into uWS's buffer) and /bare-paced (tryEnd slices taking turns on a
//   SendPacer with the default limits, the same writing as ours without the router and budget).
//
// /cpu on any of them reports this process's main-thread CPU seconds, and the main thread's busy
// stretches since the last call: a 1 ms timer reads the CPU clock, and the CPU spent between
// two of its ticks is work that ran without a break in which a request could have been answered (at
// least ~1 ms when the loop is busy, since the ticks are 1 ms apart). On a shared machine wall-clock
// latency is mostly other processes' turns on the cores; this measure is not.
// The body budget is lifted: the bench measures cost, not the refusals.
import uWS from 'uWebSockets.js';
import { systemClock } from '../src/domain/clock.js';
import { EncodedBodies } from '../src/edge/encoded-bodies.js';
import { listen } from '../src/edge/listen.js';
import { json, jsonBytes, JSON_TYPE } from '../src/edge/reply.js';
import { createRouter } from '../src/edge/router.js';
import { DEFAULT_SEND_LIMITS, SendBudget } from '../src/edge/send-budget.js';
import { SendPacer, type StepResult } from '../src/edge/send-pacer.js';
import { pickEncoding } from '../src/edge/web.js';
import { legalTree, parseDfen, treeToJson } from '../src/engine/index.js';
import { threadCpuSeconds } from '../src/shard/owner/cpu.js';

export const WORST = 'k7/2P3P1/Q4RQ1/2Q5/5Q2/1Q5Q/3NQ3/KQQ5 w - - 0 40 QQQ';

const pos = parseDfen(WORST);
if (!pos.ok) throw new Error('bad DFEN');
const text = `{"version":1,"dfen":${JSON.stringify(WORST)},"dicePending":true,"legalMoves":${treeToJson(legalTree(pos.value).bytes)}}`;
const bare = Buffer.from(text, 'utf8');
const bodies = new EncodedBodies();
bodies.wantCompressed(bodies.keepBytes('worst', 1, bare)); // its copies are made at once, before any client asks

/** `whole`, or `SLICE/TURN` in KiB. */
function paceOf(variant: string): { sliceBytes: number; bytesPerTurn: number } {
  if (variant === 'whole') return { sliceBytes: Infinity, bytesPerTurn: Infinity };
  const [slice, turn] = variant.split('/').map((n) => Number(n) * 1024);
  if (!(slice > 0 && turn > 0)) throw new Error(`bad variant ${variant}`);
  return { sliceBytes: slice, bytesPerTurn: turn };
}

async function ours(variant: string): Promise<number> {
  const app = uWS.App();
  const router = createRouter(app, {
    logger: { error: (o: unknown, m?: string) => console.error(m, o) },
    sendBudget: new SendBudget(systemClock, { bodyBytesPerMinute: 1e15, unsentBytesPerAddress: 1e12, unsentBytesTotal: 1e12, ...paceOf(variant) }),
    maxOpenPerIp: 1_000_000,
  });
  router.get('/health', () => json(200, { status: 'ok' }), { cors: 'public' });
  router.get('/cpu', () => json(200, cpuReport()), { cors: 'public' });
  router.get(
    '/moves',
    (ctx) => {
      const body = bodies.find('worst', 1) ?? bodies.keepBytes('worst', 1, bare);
      const encoding = pickEncoding(ctx.headers.other.get('accept-encoding') ?? '', body);
      const zipped = encoding === 'br' ? body.br : encoding === 'gzip' ? body.gzip : undefined;
      if (zipped !== undefined) {
        return { status: 200, body: zipped, contentType: JSON_TYPE, headers: { vary: 'accept-encoding', 'content-encoding': encoding ?? '' } };
      }
      return jsonBytes(200, body.identity, { vary: 'accept-encoding' });
    },
    { cors: 'public', headers: ['accept-encoding'] },
  );
  return (await listen(router, '127.0.0.1', 0)).port;
}

/** The bare baselines: one res.end, and tryEnd slices taking turns on a pacer (no router, no budget). */
function bareApp(): Promise<number> {
  const app = uWS.App();
  const pacer = new SendPacer({ sliceBytes: DEFAULT_SEND_LIMITS.sliceBytes, bytesPerTurn: DEFAULT_SEND_LIMITS.bytesPerTurn });
  const total = bare.byteLength;
  app.get('/health', (res) => void res.writeHeader('content-type', JSON_TYPE).end('{"status":"ok"}'));
  app.get('/cpu', (res) => void res.end(cpuReport()));
  app.get('/bare', (res) => {
    res.writeStatus('200 OK');
    res.writeHeader('content-type', JSON_TYPE);
    res.end(bare);
  });
  app.get('/bare-paced', (res) => {
    let live = true;
    let start = -1;
    let sent = 0;
    res.onAborted(() => (live = false));
    const step = (max: number): StepResult => {
      if (!live) return 'over';
      let ok = false;
      let done = false;
      res.cork(() => {
        if (start < 0) {
          res.writeStatus('200 OK').writeHeader('content-type', JSON_TYPE);
          start = res.getWriteOffset();
        }
        [ok, done] = res.tryEnd(bare.subarray(sent, Math.min(total, sent + max)), total);
        if (!done) sent = res.getWriteOffset() - start;
      });
      if (done) live = false;
      return done ? 'over' : ok ? 'more' : 'wait';
    };
    const sender = { step };
    res.onWritable(() => {
      if (live) pacer.ready(sender);
      return true;
    });
    if (step(pacer.limits.sliceBytes) === 'more') pacer.ready(sender);
  });
  return new Promise((resolve, reject) =>
    app.listen('127.0.0.1', 0, (socket) => (socket ? resolve(uWS.us_socket_local_port(socket as unknown as uWS.us_socket)) : reject(new Error('cannot listen')))),
  );
}

// The process's CPU clock (getrusage: exact to the microsecond; /proc/thread-self/schedstat, the
// thread's own clock used for CPU per answer, only moves at scheduler ticks, 4 ms apart). Besides the
// main thread only V8's helper threads run here, and little.
const cpuNs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) * 1000;
};
/** Per 1 ms tick: the CPU ms since the previous tick and the wall ms it took. */
let cpuMs: number[] = [];
let wallMs: number[] = [];
let lastNs = cpuNs();
let lastWall = performance.now();
setInterval(() => {
  const ns = cpuNs();
  const wall = performance.now();
  if (cpuMs.length < 1_000_000) {
    cpuMs.push((ns - lastNs) / 1e6);
    wallMs.push(wall - lastWall);
  }
  lastNs = ns;
  lastWall = wall;
}, 1);

/**
 * CPU seconds so far, and the busy stretches since the last call: the p99 over wall time (what a
 * request arriving at a random moment would find the thread in the middle of) and the longest.
 */
function cpuReport(): string {
  const order = cpuMs.map((_, i) => i).sort((a, b) => cpuMs[a] - cpuMs[b]);
  const wallTotal = wallMs.reduce((a, b) => a + b, 0);
  let acc = 0;
  let p99 = 0;
  for (const i of order) {
    acc += wallMs[i];
    p99 = cpuMs[i];
    if (acc >= 0.99 * wallTotal) break;
  }
  const max = order.length ? cpuMs[order[order.length - 1]] : 0;
  cpuMs = [];
  wallMs = [];
  return JSON.stringify({ seconds: threadCpuSeconds(), stretchP99: p99, stretchMax: max });
}

const variants = process.argv.slice(2);
const ports: Record<string, number> = { bare: await bareApp() };
for (const v of variants) ports[v] = await ours(v);
// Let the compressed copies finish before the clients start.
while (bodies.find('worst', 1)?.gzip === undefined || bodies.find('worst', 1)?.br === undefined) await new Promise((r) => setTimeout(r, 50));
const kept = bodies.find('worst', 1);
process.send?.({ ports, bytes: bare.length, gzipBytes: kept?.gzip?.byteLength ?? 0, brBytes: kept?.br?.byteLength ?? 0 });
process.once('disconnect', () => process.exit(0));
