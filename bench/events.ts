// Events under load, server in this process (memory store, worker shards, house bots at full speed):
//  - an SPRT of house/greedy against house/random run to its verdict: pairs, seconds, server CPU;
//  - a match of BENCH_EVENT_PAIRS (1,000) pairs between the same two at concurrency 32: pairs/s and
//    server CPU (all threads) per pair.
// Baseline, same run: the same number of mirror pairs between the same bots started straight through
// the registry (createMirrorPair, as the ladder does) with the same concurrency, without the event
// layer; the ratio is what the event scheduler, its records and statistics cost on top.
import { loadConfig } from '../src/server-config.js';
import { startServer, type RunningServer } from '../src/main.js';
import { silentLogger } from '../src/domain/log.js';
import { botSeat } from '../src/services/identity.js';
import type { GameHandle } from '../src/game/types.js';
import type { BenchRow } from './types.js';

const PAIRS = Number(process.env.BENCH_EVENT_PAIRS ?? 1000);
const CONCURRENCY = 32;
const PLAYERS = [{ team: 'house', name: 'greedy' }, { team: 'house', name: 'random' }];
const UNLIMITED = { Unlimited: {} };

async function server(): Promise<RunningServer> {
  const config = loadConfig({
    overrides: {
      host: '127.0.0.1', port: 0, memory: true, logLevel: 'silent',
      'games.seedGraceMs': 0, 'games.houseMoveDelayMs': 0, 'events.tickMs': 100,
      'events.pairsPerEvent': Math.max(PAIRS, 1000), 'events.pairsInFlightPerHost': CONCURRENCY,
      // The bench measures the scheduler with house bots at full concurrency: lift the limits a public
      // server puts on a host's house-only pairs and on the live games it may host.
      'events.houseOnlyPairsPerHost': CONCURRENCY, 'limits.liveGamesPerIdentity.registered': 2 * CONCURRENCY,
    },
  });
  if (!config.ok) throw new Error(config.error);
  const started = await startServer(config.value, { log: silentLogger });
  if (!started.ok) throw new Error(started.error);
  return started.value;
}

async function call(method: string, url: string, token?: string, body?: unknown): Promise<any> {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return res.json();
}

const cpuSeconds = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

/** Runs one event to its end; seconds, server CPU seconds and the final view. */
async function runEvent(s: RunningServer, token: string, body: unknown): Promise<{ wall: number; cpu: number; ev: any }> {
  const t0 = performance.now();
  const c0 = cpuSeconds();
  const created = await call('POST', `${s.url}/events`, token, body);
  if (!created.eventId) throw new Error(`event refused: ${JSON.stringify(created)}`);
  // The event's stream ends with EventEnded: read it to the end instead of polling.
  const res = await fetch(`${s.url}/events/${created.eventId}/stream`);
  await res.text();
  const wall = (performance.now() - t0) / 1000;
  const cpu = cpuSeconds() - c0;
  return { wall, cpu, ev: await call('GET', `${s.url}/events/${created.eventId}`) };
}

/** The same number of mirror pairs straight through the registry, CONCURRENCY at a time. */
async function barePairs(s: RunningServer, n: number): Promise<{ wall: number; cpu: number }> {
  const t0 = performance.now();
  const c0 = cpuSeconds();
  let started = 0;
  const worker = async () => {
    while (started < n) {
      started++;
      const games = await s.games.createMirrorPair({
        white: botSeat('house', 'greedy'), black: botSeat('house', 'random'), timeControl: UNLIMITED, rated: false,
      });
      await Promise.all(games.map((g: GameHandle) => new Promise<void>((resolve) => {
        const sub = g.subscribe({ deliver: (f) => 'GameEnded' in f.event && resolve(), close: () => resolve() });
        if (sub.ended) resolve();
      })));
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return { wall: (performance.now() - t0) / 1000, cpu: cpuSeconds() - c0 };
}

export async function run(): Promise<BenchRow[]> {
  const s = await server();
  try {
    const reg = await call('POST', `${s.url}/bot/register`, undefined, { team: 'bench', name: 'host' });
    const sprt = await runEvent(s, reg.token, {
      name: 'bench sprt', format: 'sprt', players: PLAYERS, timeControl: UNLIMITED,
      sprt: { elo0: 0, elo1: 20, alpha: 0.05, beta: 0.05 }, maxPairs: 1000, concurrency: 1,
    });
    const match = await runEvent(s, reg.token, {
      name: 'bench match', format: 'match', players: PLAYERS, timeControl: UNLIMITED, pairsPerEncounter: PAIRS, concurrency: CONCURRENCY,
    });
    const bare = await barePairs(s, PAIRS);
    const pairs = match.ev.pairs.length as number;
    return [
      { bench: 'events.sprt', metric: 'pairs to verdict', value: sprt.ev.pairs.length, note: `verdict ${sprt.ev.verdict}, house/greedy vs house/random, [0, 20] Elo, α = β = 0.05, concurrency 1` },
      { bench: 'events.sprt', metric: 'seconds to verdict', value: sprt.wall, note: `server CPU ${sprt.cpu.toFixed(2)} s` },
      { bench: 'events.match', metric: 'pairs/s', value: pairs / match.wall, baseline: PAIRS / bare.wall, baselineName: 'bare mirror pairs', note: `${pairs} pairs, concurrency ${CONCURRENCY}` },
      { bench: 'events.match', metric: 'server CPU ms/pair', value: (match.cpu / pairs) * 1000, baseline: (bare.cpu / PAIRS) * 1000, baselineName: 'bare mirror pairs', note: 'all threads (process CPU)' },
    ];
  } finally {
    await s.close();
  }
}
