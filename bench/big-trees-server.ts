// The server side of bench/big-trees.ts, run as a child process: our edge router (the same
// EncodedBodies and SendBudget code as GET /games/{id}/moves) serving the largest legal-move tree
// found (docs/ENGINE.md) at /moves, /health, and /bare (the same bytes through a bare uWS
// res.end, the baseline); /cpu reports this process's main-thread CPU seconds. The body budget is
// lifted: the bench measures cost, not the refusals.
import uWS from 'uWebSockets.js';
import { systemClock } from '../src/domain/clock.js';
import { EncodedBodies } from '../src/edge/encoded-bodies.js';
import { listen } from '../src/edge/listen.js';
import { json, jsonBytes, JSON_TYPE } from '../src/edge/reply.js';
import { createRouter } from '../src/edge/router.js';
import { SendBudget } from '../src/edge/send-budget.js';
import { pickEncoding } from '../src/edge/web.js';
import { legalTree, parseDfen, treeToJson } from '../src/engine/index.js';
import { threadCpuSeconds } from '../src/shard/cpu.js';

export const WORST = 'k7/2P3P1/Q4RQ1/2Q5/5Q2/1Q5Q/3NQ3/KQQ5 w - - 0 40 QQQ';

const pos = parseDfen(WORST);
if (!pos.ok) throw new Error('bad DFEN');
const text = `{"version":1,"dfen":${JSON.stringify(WORST)},"dicePending":true,"legalMoves":${treeToJson(legalTree(pos.value).bytes)}}`;
const bare = Buffer.from(text, 'utf8');
const bodies = new EncodedBodies();
const app = uWS.App();
const router = createRouter(app, {
  logger: { error: (o: unknown, m?: string) => console.error(m, o) },
  sendBudget: new SendBudget(systemClock, { bodyBytesPerMinute: 1e15, unsentBytesPerAddress: 1e12, unsentBytesTotal: 1e12 }),
  maxOpenPerIp: 1_000_000,
});
router.get('/health', () => json(200, { status: 'ok' }), { cors: 'public' });
router.get('/cpu', () => json(200, { seconds: threadCpuSeconds() }), { cors: 'public' });
router.get(
  '/moves',
  (ctx) => {
    const body = bodies.find('worst', 1) ?? bodies.keep('worst', 1, text);
    if (typeof body === 'string') return json(200, body);
    if (pickEncoding(ctx.headers.other.get('accept-encoding') ?? '', { gzip: new Uint8Array(0) }) === 'gzip') {
      if (body.gzip === undefined) bodies.wantGzip(body);
      else return { status: 200, body: body.gzip, contentType: JSON_TYPE, headers: { vary: 'accept-encoding', 'content-encoding': 'gzip' } };
    }
    return jsonBytes(200, body.identity, { vary: 'accept-encoding' });
  },
  { cors: 'public', headers: ['accept-encoding'] },
);
app.get('/bare', (res) => {
  res.writeStatus('200 OK');
  res.writeHeader('content-type', JSON_TYPE);
  res.end(bare);
});
const l = await listen(router, '127.0.0.1', 0);
process.send?.({ port: l.port, bytes: bare.length });
process.once('disconnect', () => process.exit(0));
