// The load process of the webhook benchmark (bench/webhooks.ts), separate so its CPU is not the
// server's. N registered bots each play one game at a time against house/random, back to back, for a
// fixed window, either by webhook or from their game stream (the baseline):
//
//   node webhook-driver.js --url http://127.0.0.1:PORT --games N --duration-ms MS --mode webhook|stream
//
// webhook: each bot has its own receiver (its own origin) on 127.0.0.1 that checks every signature and
// answers yourTurn with a random complete turn. stream: each bot reads its game stream and POSTs its
// move. Both learn of a new game from their account stream (GameStart). A webhook bot learns that its
// game ended by polling GET /bot/games every 250 ms (it has no stream). Measured per turn of the bot:
// "cycle" = from the bot answering (webhook response sent, or POST move verdict received) to its next
// turn notice (the next yourTurn, or the next DiceRolled for its seat): the server's whole round trip
// (apply the turn, the house's roll and turn, the bot's roll, the notice). Last stdout line: JSON.
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { unwrap } from '../src/client/index.js';
import { randomPath, requester, setupClient, type Tree } from './driver-common.js';

const { values: opt } = parseArgs({
  options: {
    url: { type: 'string' },
    games: { type: 'string', default: '8' },
    'duration-ms': { type: 'string', default: '15000' },
    mode: { type: 'string', default: 'webhook' },
  },
});
if (!opt.url || (opt.mode !== 'webhook' && opt.mode !== 'stream')) {
  console.error('usage: webhook-driver --url URL [--games N] [--duration-ms MS] [--mode webhook|stream]');
  process.exit(2);
}
const base = new URL(opt.url);
const N = Number(opt.games);
const DURATION_MS = Number(opt['duration-ms']);
const WEBHOOK = opt.mode === 'webhook';
process.once('disconnect', () => process.exit(1));
const agent = new http.Agent({ keepAlive: true, maxSockets: 2 * N + 8 });

let stopping = false;
let turns = 0;
let games = 0;
const cycles: number[] = [];
const problems: Record<string, number> = {};
const problem = (k: string): void => void (problems[k] = (problems[k] ?? 0) + 1);

// Raw keep-alive requests for what the bots do in the measured window (its CPU is reported); the
// set-up before it and the reads after it go through the typed client.
const request = requester(base, agent, 10_000);

function lines(path: string, token: string, onLine: (l: Record<string, any>) => void): http.ClientRequest {
  const req = http.get({ host: base.hostname, port: base.port, path, headers: { authorization: `Bearer ${token}` }, agent: false }, (res) => {
    let buf = '';
    res.setEncoding('utf8').on('data', (chunk: string) => {
      buf += chunk;
      for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        if (line.trim()) onLine(JSON.parse(line) as Record<string, any>);
      }
    });
    res.on('error', () => undefined);
  });
  req.on('error', () => undefined);
  return req;
}


async function treeOf(gameId: string, inline: Tree | null): Promise<Tree> {
  if (inline) return inline;
  return (JSON.parse((await request('GET', `/games/${gameId}/moves`)).text) as { legalMoves: Tree }).legalMoves;
}

interface Slot {
  token: string;
  gameId: string | null;
  answeredAt: number;
  streams: http.ClientRequest[];
}

async function challenge(slot: Slot): Promise<void> {
  if (stopping) return;
  const r = await request('POST', '/bot/challenge', slot.token, { team: 'house', name: 'random' });
  if (r.status !== 201) problem(`challenge ${r.status}`);
}

/** A game of this slot started (account stream): play it, then start the next. */
function started(slot: Slot, gameId: string): void {
  slot.gameId = gameId;
  slot.answeredAt = 0;
  games++;
  if (WEBHOOK) return;
  const req = lines(`/bot/game/stream/${gameId}`, slot.token, (ev) => {
    const roll = ev.DiceRolled ?? (ev.Snapshot?.state.dicePending && ev.Snapshot.state.activeSeat === 'White' ? { v: ev.Snapshot.state.version, seat: 'White', legalMoves: ev.Snapshot.state.legalMoves } : null);
    if (roll?.seat === 'White' && (roll.legalMoves === null || Object.keys(roll.legalMoves).length > 0)) void move(slot, gameId, roll.v, roll.legalMoves);
    if (ev.GameEnded) {
      req.destroy();
      slot.streams = slot.streams.filter((s) => s !== req);
      void challenge(slot);
    }
  });
  slot.streams.push(req);
}

async function move(slot: Slot, gameId: string, version: number, inline: Tree | null): Promise<void> {
  if (stopping) return;
  if (slot.answeredAt) cycles.push(performance.now() - slot.answeredAt);
  const tree = await treeOf(gameId, inline);
  const r = await request('POST', `/bot/game/${gameId}/move`, slot.token, { moves: randomPath(tree), version });
  if (r.status !== 200 && !stopping) problem(`move ${r.status}`);
  slot.answeredAt = performance.now();
  if (!stopping) turns++;
}

/** The receiver of a webhook slot: verifies, answers, measures. */
async function receiver(slot: Slot, secret: { value: string }): Promise<string> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c)).on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const d = JSON.parse(body) as Record<string, any>;
      const reply = (o: unknown): void => void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(o));
      if (d.type === 'verification') return reply({ nonce: d.nonce });
      const sig = createHmac('sha256', secret.value).update(`${req.headers['x-game-timestamp']}.${body}`).digest('hex');
      if (sig !== req.headers['x-game-signature']) problem('bad signature');
      if (slot.answeredAt && slot.gameId === d.gameId) cycles.push(performance.now() - slot.answeredAt);
      void treeOf(d.gameId, d.state.legalMoves).then((tree) => {
        reply({ moves: randomPath(tree) });
        slot.answeredAt = performance.now();
        if (!stopping) turns++;
      });
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
}

async function main(): Promise<void> {
  const slots: Slot[] = [];
  const tag = Math.random().toString(36).slice(2, 8);
  for (let i = 0; i < N; i++) {
    const { token } = unwrap(await setupClient(base).register({ team: `bench-${tag}`, name: `${opt.mode}-${i}` }));
    const slot: Slot = { token, gameId: null, answeredAt: 0, streams: [] };
    if (WEBHOOK) {
      const secret = { value: '' };
      const url = await receiver(slot, secret);
      secret.value = unwrap(await setupClient(base, token).registerWebhook({ url })).secret;
    }
    slot.streams.push(lines('/bot/stream/event', slot.token, (ev) => ev.GameStart && started(slot, ev.GameStart.gameId as string)));
    slots.push(slot);
  }
  const poll = WEBHOOK
    ? setInterval(() => {
        for (const s of slots) {
          if (!s.gameId) continue;
          const id = s.gameId;
          void request('GET', '/bot/games', s.token).then((r) => {
            if (!stopping && s.gameId === id && !r.text.includes(id)) {
              s.gameId = null;
              void challenge(s);
            }
          });
        }
      }, 250)
    : undefined;
  const cpu0 = process.cpuUsage();
  process.send?.({ event: 'start' });
  const t0 = performance.now();
  for (const s of slots) void challenge(s);
  await new Promise((r) => setTimeout(r, DURATION_MS));
  stopping = true;
  const windowS = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  process.send?.({ event: 'stop' });
  clearInterval(poll);
  // The server's own measure of each bot's delivery round trip (POST sent → answer read).
  const roundTrips = WEBHOOK
    ? await Promise.all(slots.map(async (s) => unwrap(await setupClient(base, s.token).getWebhook()).stats))
    : [];
  const median = (xs: number[]): number => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  await Promise.all(slots.map((s) => (s.gameId ? setupClient(base, s.token).resign(s.gameId) : undefined)));
  for (const s of slots) for (const r of s.streams) r.destroy();
  cycles.sort((a, b) => a - b);
  const pct = (p: number): number => cycles[Math.min(cycles.length - 1, Math.floor((p / 100) * cycles.length))] ?? 0;
  console.log(JSON.stringify({
    mode: opt.mode, games: N, windowS, turns, turnsPerS: turns / windowS, gamesStarted: games,
    cycleMs: { count: cycles.length, p50: pct(50), p99: pct(99) },
    roundTripMs: { p50: median(roundTrips.map((r) => r.latencyMsP50)), p99: median(roundTrips.map((r) => r.latencyMsP99)) },
    driverCpuPct: ((cpu.user + cpu.system) / 1000 / (windowS * 1000)) * 100, problems,
  }));
  process.exit(0);
}

await main();
