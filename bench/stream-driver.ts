// The driver of the `streams` suite (bench/streams.ts): many ndjson streams held open while bot
// pairs play, and how long an event takes to reach the subscribers.
//
//   node stream-driver.js --url URL [--pairs 32] [--streams 10000] [--duration-ms 10000]
//                         [--spectators 4] [--account-streams 40]
//
// After a 3-second warm-up, two phases of play (bench/pair-play.ts), `--pairs` pairs each, with fresh bots:
// - baseline: each bot holds one account stream besides its game stream, and each game gets
//   `--spectators` public game streams (GET /games/{id}/stream) for its lifetime;
// - held: first, `--account-streams` account streams per bot and, on idle games (long clocks,
//   nobody moves), game streams up to `--streams` in all, half public, half authenticated
//   (GET /bot/game/stream/{id}); then the same play.
// Measured in each phase, on this process's clock, for each TurnPlayed and each spectator's copy:
// the time from the first sign of the turn (the mover's verdict arriving here, or the first copy
// at any spectator, whichever came first) to the copy, a lower bound of publish → subscriber; and
// from the mover's POST being sent to the copy, an upper bound. The same for GameStart on the
// account streams (the accept request instead of the move). This process's own event-loop delay
// is reported too: it is part of what is measured. Phases are announced to the parent
// (bench/phased.ts), which reads the server's /metrics at each.
import http from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { byteLineSplitter, bytesAt, intAfter, liveGame, LONG_CLOCK, mintAnon } from './driver-common.js';
import { PairPlay } from './pair-play.js';
import { phase } from './phased.js';

const { values: opt } = parseArgs({
  options: {
    url: { type: 'string' },
    pairs: { type: 'string', default: '32' },
    streams: { type: 'string', default: '10000' },
    'duration-ms': { type: 'string', default: '10000' },
    spectators: { type: 'string', default: '4' },
    'account-streams': { type: 'string', default: '40' },
  },
});
if (!opt.url) {
  console.error('usage: stream-driver --url http://127.0.0.1:PORT [--pairs N] [--streams N] …');
  process.exit(2);
}
const base = new URL(opt.url);
const PAIRS = Number(opt.pairs);
const STREAMS = Number(opt.streams);
const DURATION_MS = Number(opt['duration-ms']);
const SPECTATORS = Number(opt.spectators);
const ACCOUNT_STREAMS = Number(opt['account-streams']);
/** Spectators per idle game, and streams being opened at once. */
const PER_IDLE_GAME = 100;
const OPENING_AT_ONCE = 256;
const WIND_DOWN_MS = 5_000;
const WARMUP_MS = 3_000;
const HEAD_TIMEOUT_MS = 10_000;
process.once('disconnect', () => process.exit(1));

const problems: Record<string, number> = {};
const samples: string[] = [];
function problem(kind: string, detail = ''): void {
  problems[kind] = (problems[kind] ?? 0) + 1;
  if (samples.length < 10) samples.push(`${kind}${detail ? `: ${detail.slice(0, 300)}` : ''}`);
}

// ---------------------------------------------------------------------------------------------
// Streams.

type OnLine = (buf: Buffer, start: number, end: number) => void;
interface Held {
  req: http.ClientRequest;
  closing: boolean;
}
let closedEarly = 0;

/** Opens one ndjson stream on its own socket; resolves once its 200 head arrived (undefined if not). */
function open(path: string, token: string | undefined, onLine?: OnLine): Promise<Held | undefined> {
  return new Promise((resolve) => {
    const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
    const held: Held = { req: undefined as unknown as http.ClientRequest, closing: false };
    let answered = false;
    // No socket timeout (a held stream is silent for up to 25 s between keep-alives): a head timeout.
    const head = setTimeout(() => held.req.destroy(new Error(`no answer head in ${HEAD_TIMEOUT_MS} ms`)), HEAD_TIMEOUT_MS);
    held.req = http.get({ host: base.hostname, port: base.port, path, headers, agent: false }, (res) => {
      answered = true;
      clearTimeout(head);
      if (res.statusCode !== 200) {
        problem(`stream ${res.statusCode}`, path);
        res.resume();
        resolve(undefined);
        return;
      }
      res.on('data', onLine ? byteLineSplitter(onLine) : () => undefined);
      res.on('error', () => undefined);
      res.on('close', () => {
        if (!held.closing) closedEarly++;
      });
      resolve(held);
    });
    held.req.on('error', (e) => {
      clearTimeout(head);
      if (!held.closing) problem('stream failed', e.message);
      if (!answered) resolve(undefined);
    });
  });
}

/** Opens streams from `make` (index → promise) at most OPENING_AT_ONCE at a time. */
async function openMany(n: number, make: (i: number) => Promise<Held | undefined>): Promise<Held[]> {
  const out: Held[] = [];
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < n; i = next++) {
      const h = await make(i);
      if (h) out.push(h);
    }
  };
  await Promise.all(Array.from({ length: Math.min(OPENING_AT_ONCE, n) }, worker));
  return out;
}

function closeAll(hs: Iterable<Held>): void {
  for (const h of hs) {
    h.closing = true;
    h.req.destroy();
  }
}

// ---------------------------------------------------------------------------------------------
// Delivery times.

/**
 * Per event: when the request that caused it was sent and answered, and when it reached each
 * subscriber. The server publishes somewhere between the send and the first sign of the event
 * (the answer or the first copy), so the two delays below bracket publish → subscriber.
 */
class Deliveries {
  private readonly events = new Map<string, { sent: number; answer: number; arrivals: number[] }>();
  answer(key: string, sent: number, at: number): void {
    const e = this.events.get(key);
    if (e) {
      e.sent = sent;
      e.answer = at;
    } else this.events.set(key, { sent, answer: at, arrivals: [] });
  }
  arrival(key: string, at: number): void {
    const e = this.events.get(key);
    if (e) e.arrivals.push(at);
    else this.events.set(key, { sent: Number.NaN, answer: Infinity, arrivals: [at] });
  }
  /** Milliseconds to each arrival from the event's first sign (lower bound) and from the request's send (upper bound). */
  delays(): { fromFirst: number[]; fromSent: number[] } {
    const fromFirst: number[] = [];
    const fromSent: number[] = [];
    for (const e of this.events.values()) {
      let first = e.answer;
      for (const a of e.arrivals) first = Math.min(first, a);
      for (const a of e.arrivals) {
        fromFirst.push(a - first);
        if (!Number.isNaN(e.sent)) fromSent.push(a - e.sent);
      }
    }
    return { fromFirst: fromFirst.sort((a, b) => a - b), fromSent: fromSent.sort((a, b) => a - b) };
  }
}

function pct(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(sorted.length * p) - 1))];
}
const stats = (sorted: number[]) => ({ count: sorted.length, p50: pct(sorted, 0.5), p99: pct(sorted, 0.99), max: sorted[sorted.length - 1] ?? 0 });
const bracket = (d: Deliveries) => {
  const { fromFirst, fromSent } = d.delays();
  return { fromFirst: stats(fromFirst), fromSent: stats(fromSent) };
};

const TURN = Buffer.from('{"TurnPlayed":');
const GAME_START = Buffer.from('{"GameStart":{"gameId":"');

// ---------------------------------------------------------------------------------------------
// Phases.

/** Idle games between two fresh bots (long clocks; nobody moves) and `n` streams spread over them. */
async function holdIdle(n: number): Promise<Held[]> {
  if (n <= 0) return [];
  const white = await mintAnon(base, 'idle-w');
  const black = await mintAnon(base, 'idle-b');
  const games: string[] = [];
  for (let g = 0; g < Math.ceil(n / PER_IDLE_GAME); g++) games.push(await liveGame(base, white, black, LONG_CLOCK));
  // Even indices public, odd ones authenticated (alternating tokens).
  return openMany(n, (i) => {
    const game = games[Math.floor(i / PER_IDLE_GAME)];
    if (i % 2 === 0) return open(`/games/${game}/stream`, undefined);
    return open(`/bot/game/stream/${game}`, i % 4 === 1 ? white.token : black.token);
  });
}

export interface PhaseResult {
  play: ReturnType<PairPlay['summary']>;
  turnDelivery: ReturnType<typeof bracket>;
  gameStartDelivery: ReturnType<typeof bracket>;
  accountStreams: number;
  spectatorStreams: number;
  driverCpuPct: number;
  loopDelayP99Ms: number;
}

/**
 * One phase of play with `accountPerBot` account streams per bot and SPECTATORS per game.
 * `beforeStart` runs once the bots and their account streams are ready.
 */
async function play(label: string, accountPerBot: number, durationMs: number, beforeStart: () => Promise<void>): Promise<PhaseResult> {
  const turns = new Deliveries();
  const starts = new Deliveries();
  const spectators = new Set<Held>();
  let spectatorStreams = 0;
  let playing = true;
  const pp = new PairPlay(base, PAIRS, {
    onVerdict: (id, v, sent, at) => turns.answer(`${id}:${v}`, sent, at),
    onGame: (id, sent, at) => {
      starts.answer(id, sent, at);
      if (!playing) return;
      for (let k = 0; k < SPECTATORS; k++) {
        void open(`/games/${id}/stream`, undefined, (buf, s) => {
          if (bytesAt(buf, s, TURN)) turns.arrival(`${id}:${intAfter(buf, '"v":', s)}`, performance.now());
        }).then((h) => {
          if (!h) return;
          spectatorStreams++;
          spectators.add(h);
          // A spectator stream ends with its game: not an early close.
          h.closing = true;
          h.req.once('close', () => spectators.delete(h));
        });
      }
    },
  });
  await pp.prepare();
  const onAccount: OnLine = (buf, s, e) => {
    if (!bytesAt(buf, s, GAME_START)) return;
    const from = s + GAME_START.length;
    starts.arrival(buf.toString('latin1', from, buf.indexOf(34, from)), performance.now());
    void e;
  };
  const tokens = pp.tokens();
  const account = await openMany(tokens.length * accountPerBot, (i) => open('/bot/stream/event', tokens[i % tokens.length], onAccount));
  await beforeStart();
  const loop = monitorEventLoopDelay({ resolution: 10 });
  await phase(`${label}-start`);
  loop.enable();
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  pp.start();
  await new Promise((r) => setTimeout(r, durationMs));
  const cpu = process.cpuUsage(cpu0);
  const windowMs = performance.now() - t0;
  loop.disable();
  playing = false;
  await phase(`${label}-stop`);
  await pp.stop(WIND_DOWN_MS);
  closeAll(account);
  closeAll(spectators);
  return {
    play: pp.summary(windowMs / 1000),
    turnDelivery: bracket(turns),
    gameStartDelivery: bracket(starts),
    accountStreams: account.length,
    spectatorStreams,
    driverCpuPct: ((cpu.user + cpu.system) / 1000 / windowMs) * 100,
    loopDelayP99Ms: loop.percentile(99) / 1e6,
  };
}

/** The driver's last stdout line. */
export interface StreamSummary {
  baseline: PhaseResult;
  held: PhaseResult;
  heldStreams: number;
  idleGameStreams: number;
  idleStillOpenAtEnd: number;
  closedEarly: number;
  problems: Record<string, number>;
  problemSamples: string[];
}

async function main(): Promise<void> {
  // A short unmeasured round first, so the baseline does not pay for the server's warm-up (JIT, heap).
  await play('warmup', 1, WARMUP_MS, async () => undefined);
  const baseline = await play('baseline', 1, DURATION_MS, async () => undefined);
  let idle: Held[] = [];
  let heldTotal = 0;
  // Before the held phase's bots open their account streams: the RSS delta covers every held stream.
  await phase('idle-before');
  const loaded = await play('held', ACCOUNT_STREAMS, DURATION_MS, async () => {
    // The players' own game streams and the spectators come on top of what is held here.
    const accountHeld = 2 * PAIRS * ACCOUNT_STREAMS;
    idle = await holdIdle(STREAMS - accountHeld - 2 * PAIRS - PAIRS * SPECTATORS);
    heldTotal = accountHeld + idle.length;
    await phase('idle-held', { held: heldTotal, idleGameStreams: idle.length });
  });
  const stillOpen = idle.filter((h) => !h.req.destroyed).length;
  closeAll(idle);
  const summary: StreamSummary = {
    baseline,
    held: loaded,
    heldStreams: heldTotal,
    idleGameStreams: idle.length,
    idleStillOpenAtEnd: stillOpen,
    closedEarly,
    problems: { ...problems, ...baseline.play.problems, ...loaded.play.problems },
    problemSamples: [...samples, ...baseline.play.problemSamples, ...loaded.play.problemSamples].slice(0, 10),
  };
  process.stdout.write(`${JSON.stringify(summary)}\n`, () => process.exit(0));
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
