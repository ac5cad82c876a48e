// Store benchmarks: how fast the LMDB store persists and reads a realistic game record, with the
// in-memory store (no IO, only cloning) as the baseline. A game actor awaits its write before
// publishing, so the headline write rate is "awaited, one at a time"; the concurrent row shows what
// many actors persisting at once get from lmdb-js batching their writes into shared commits.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SCHEMA_VERSION } from '../src/domain/records.js';
import type { GameRecord } from '../src/domain/records.js';
import type { HistoryEntry } from '../src/domain/types.js';
import { LmdbStore } from '../src/store/lmdb.js';
import { MemoryStore } from '../src/store/memory.js';
import type { Store } from '../src/store/types.js';
import type { BenchRow } from './types.js';

const HISTORY = 40;
/** Time box per measurement; seven of them plus set-up keep the whole suite under about 10 s. */
const BOX_MS = 1000;
const CONCURRENCY = 64;

const FEN = 'r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/3P1N2/PPP2PPP/RNBQK2R w KQkq - 1 5';

function realisticGame(id: string): GameRecord {
  const history: HistoryEntry[] = Array.from({ length: HISTORY }, (_, i) => ({
    seat: i % 2 === 0 ? 'White' : 'Black',
    dice: [1 + (i % 6), 1 + ((i * 5) % 6), 1 + ((i * 7) % 6)],
    moves: ['e2e4', 'g1f3', 'f1c4'].slice(0, 1 + (i % 3)),
    fenAfter: FEN,
  }));
  const player = (team: string, name: string) => ({
    id: `bot:team:${team}:${name}`,
    face: { kind: 'Bot' as const, name: `${team} ${name}` },
    participant: { Bot: { team, name } },
  });
  return {
    schema: SCHEMA_VERSION,
    id,
    white: player('alpha', 'engine-v3'),
    black: player('beta', 'random-v1'),
    timeControl: { Fischer: { initialSeconds: 300, incrementSeconds: 3 } },
    rated: true,
    createdAt: Date.now(),
    serverSeed: '5f'.repeat(32),
    commit: 'a0'.repeat(32),
    clientSeeds: { white: 'c0ffee-white-seed', black: 'c0ffee-black-seed' },
    ply: HISTORY,
    fen: FEN,
    activeSeat: 'White',
    dice: [2, 4, 6],
    clocks: { white: 251_000, black: 262_500 },
    clockStartedAt: Date.now(),
    version: HISTORY * 2 + 1,
    history,
    status: { Active: {} },
    revealedSeeds: null,
    finishedAt: null,
    mirrorOf: null,
  };
}

/** Runs `step` (which handles `batch` records) until the time box is spent; returns records/s. */
async function rate(batch: number, step: (i: number) => Promise<unknown> | void): Promise<number> {
  let done = 0;
  const start = performance.now();
  while (performance.now() - start < BOX_MS) {
    await step(done);
    done += batch;
  }
  return done / ((performance.now() - start) / 1000);
}

interface Rates {
  awaited: number;
  concurrent: number;
  read?: number;
}

const POPULATION = 2000;

async function measure(store: Store, withReads: boolean): Promise<Rates> {
  const game = realisticGame('g');
  const put = (i: number) => store.putGame({ ...game, id: `g${i}` });
  const inFlight = (i: number) => Promise.all(Array.from({ length: CONCURRENCY }, (_, k) => put(i + k)));
  // Warm-up (JIT, map growth) and the population the read pass draws from; written concurrently
  // because one-at-a-time writes are bounded by the disk's sync rate.
  for (let i = 0; i < POPULATION; i += CONCURRENCY) await inFlight(i);
  const awaited = await rate(1, put);
  const concurrent = await rate(CONCURRENCY, inFlight);
  if (!withReads) return { awaited, concurrent };
  let sink = 0;
  const read = await rate(1, (i) => {
    sink += store.getGame(`g${(i * 7919) % POPULATION}`)?.ply ?? 0;
  });
  if (sink === 0) throw new Error('reads returned nothing');
  return { awaited, concurrent, read };
}

async function lmdbRates(dir: string, flushEachWrite: boolean): Promise<Rates> {
  const opened = await LmdbStore.open(dir, { flushEachWrite });
  if (!opened.ok) throw new Error(opened.error);
  try {
    return await measure(opened.value, !flushEachWrite);
  } finally {
    await opened.value.close();
  }
}

export async function run(): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'dicechess-bench-store-'));
  try {
    const committed = await lmdbRates(join(dir, 'committed'), false);
    const flushed = await lmdbRates(join(dir, 'flushed'), true);
    const memory = await measure(new MemoryStore(), true);
    const record = `GameRecord with ${HISTORY} history entries`;
    const vsMemory = { baselineName: 'memory' };
    const vsCommitted = { baselineName: 'default mode' };
    return [
      {
        bench: 'store.lmdb', metric: 'putGame/s, 1 in flight', value: committed.awaited,
        baseline: memory.awaited, ...vsMemory, note: `${record}; each awaited before the next`,
      },
      {
        bench: 'store.lmdb', metric: `putGame/s, ${CONCURRENCY} in flight`, value: committed.concurrent,
        baseline: memory.concurrent, ...vsMemory, note: 'concurrent writers share commits',
      },
      {
        bench: 'store.lmdb', metric: 'getGame/s', value: committed.read ?? 0,
        baseline: memory.read, ...vsMemory, note: `random reads over ${POPULATION} stored games`,
      },
      {
        bench: 'store.lmdb flushEachWrite', metric: 'putGame/s, 1 in flight', value: flushed.awaited,
        baseline: committed.awaited, ...vsCommitted, note: 'waits for fsync: survives power loss',
      },
      {
        bench: 'store.lmdb flushEachWrite', metric: `putGame/s, ${CONCURRENCY} in flight`, value: flushed.concurrent,
        baseline: committed.concurrent, ...vsCommitted,
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
