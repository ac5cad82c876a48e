// What a live game costs in memory in the game layer: V8 heap (plus array buffers, where trees
// live) per game after a forced GC, for games built with the in-thread registry, the engine's trees and a
// ManualClock, in this process. Two shapes of idle game, each waiting for a move:
//  - opening: both seeds given, the opening roll made;
//  - played:  TURNS rolls in. Random play ends most games before that, so a hundred games that got
//    there are kept and copied (new ids and players) into a store, and a fresh registry resumes them
//    all, as after a restart (that also times the resume), then each plays one turn live;
//  - live:    fewer games, played from creation in this process for LIVE_ROLLS rolls, so that
//    whatever a roll leaves behind in the actor adds up as it would in a long game.
// The store discards writes, so the rows count the actors, views, timers and registry maps only; one
// more row shows the memory store's own share for the played shape, for scale (a server normally
// keeps records in LMDB, off the JS heap). The shared caches (src/game/read-cache.ts: recent trees
// and encodings, bounded in size whatever the number of games) are emptied before each count and
// their size reported on its own row.
//
// Env: BENCH_GAMES (games per shape, default 10,000),
// BENCH_HEAP_SNAPSHOT=dir writes a heap snapshot of each shape there, to see what dominates.
import { setFlagsFromString, writeHeapSnapshot } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { join } from 'node:path';
import { ManualClock } from '../src/domain/clock.js';
import type { GameRecord, ResultRecord } from '../src/domain/records.js';
import { botExternalId, botFace, type LegalMoveTree, type SeatPlayer } from '../src/domain/types.js';
import { DEFAULT_GAME_CONFIG } from '../src/game/game-config.js';
import { GameRegistry } from '../src/game/game-registry.js';
import { leafPaths } from '../src/game/house.js';
import { clearReadCaches, readCachesSize } from '../src/game/read-cache.js';
import type { GameHandle } from '../src/game/types.js';
import { MemoryStore } from '../src/store/memory.js';
import type { Store } from '../src/store/types.js';
import { prng } from '../test/helpers/prng.js';
import { ForwardingStore } from '../src/shard/owner/forwarding-store.js';
import { ShardedGames } from '../src/shard/main/sharded-games.js';
import { LoopbackTransport } from '../src/shard/loopback-transport.js';
import type { BenchRow } from './types.js';

const GAMES = Number(process.env.BENCH_GAMES ?? 10_000);
const PLAYED_STORED = 2_000;
/** Rolls a played game has made (forced passes count), and how many distinct such games are copied. */
const TURNS = 30;
const SAMPLES = 100;
/** Games played live from their creation (every roll made by the actor itself), and their rolls. */
const LIVE_GAMES = Math.ceil(GAMES / 10);
const LIVE_ROLLS = 16;
const HOUSE_GAMES = 200;
const SNAPSHOTS = process.env.BENCH_HEAP_SNAPSHOT;

/** A store that keeps nothing: the rows measure the game layer, not the store. */
class DiscardingStore extends MemoryStore {
  override async putGame(_g: GameRecord): Promise<void> {}
  override async finishGame(_g: GameRecord, _r: ResultRecord[]): Promise<void> {}
}

/** global.gc without needing `node --expose-gc` on the command line. */
function gcFunction(): () => void {
  const existing = (globalThis as { gc?: () => void }).gc;
  if (existing) return existing;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

const gc = gcFunction();

/** Heap in use plus array buffers (tree bytes), after full collections. */
async function heapBytes(): Promise<number> {
  for (let i = 0; i < 4; i++) {
    // A turn of the event loop between collections lets settled promises and timers let go.
    await new Promise<void>((r) => setImmediate(r));
    gc();
  }
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

const silent = { info: () => {}, warn: () => {}, error: () => {} };

const player = (name: string): SeatPlayer => ({
  id: botExternalId('bench', name),
  face: botFace('bench', name),
  participant: { Bot: { team: 'bench', name } },
});

function newRegistry(store: Store, clock: ManualClock): GameRegistry {
  let n = 0;
  return new GameRegistry({
    store,
    clock,
    // No archive: a game that ends during the bench leaves nothing behind to count.
    config: { ...DEFAULT_GAME_CONFIG, archiveSize: 0 },
    listeners: [],
    newId: () => `g${(n++).toString(36).padStart(8, '0')}`,
    log: silent,
  });
}

async function settle(registry: GameRegistry): Promise<void> {
  for (let i = 0; i < 3; i++) {
    await new Promise<void>((r) => setImmediate(r));
    await registry.idle();
  }
}

/** Creates `count` games with both seeds given, so each makes its opening roll at once. */
async function openGames(registry: GameRegistry, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const g = await registry.create({
      white: player(`w${i}`), black: player(`b${i}`),
      timeControl: { Fischer: { initialSeconds: 300, incrementSeconds: 3 } }, rated: false,
    });
    g.seed('White', `white-seed-${i.toString(16).padStart(24, '0')}`);
    g.seed('Black', `black-seed-${i.toString(16).padStart(24, '0')}`);
    if (i % 256 === 255) await settle(registry);
  }
  await settle(registry);
}

/** A uniformly random complete turn (as the house's random player picks one). */
function randomTurn(game: GameHandle, random: () => number): string[] | null {
  const s = game.state();
  const tree = s.legalMoves ?? (JSON.parse(game.moves().legalMovesJson) as LegalMoveTree);
  const paths = leafPaths(tree);
  // Through JSON, as a move arrives over HTTP (the parser shares short strings, the bench's own do not).
  // Through JSON, as a move arrives over HTTP (the parser shares short strings; the bench's own are each new).
  return paths.length === 0 ? null : (JSON.parse(JSON.stringify(paths[Math.floor(random() * paths.length)])) as string[]);
}

/**
 * Records of live games at least TURNS rolls in, waiting for a move: games played with random turns
 * until SAMPLES of them got that far alive (the others end on the way, mostly by king capture).
 */
async function playedRecords(): Promise<GameRecord[]> {
  const registry = newRegistry(new DiscardingStore(), new ManualClock());
  const random = prng(0x5eed);
  const out: GameRecord[] = [];
  while (out.length < SAMPLES) {
    await openGames(registry, SAMPLES);
    while (registry.liveCount() > 0) {
      const moves: Promise<unknown>[] = [];
      for (const g of registry.live()) {
        const rec = g.record();
        if (rec.ply >= TURNS && rec.dice !== null) {
          out.push(rec);
          g.resign('White');
          continue;
        }
        const m = rec.dice !== null ? randomTurn(g, random) : null;
        if (m) moves.push(g.move(rec.activeSeat, m));
      }
      await Promise.all(moves);
      await settle(registry);
    }
  }
  await registry.stop();
  return out.slice(0, SAMPLES);
}

interface Shape {
  perGame: number;
  live: number;
  ms: number;
  /** Bytes and characters the shared caches held before they were emptied for the count. */
  cached: number;
}

/** Heap per live game after `fill` makes the games, against the same registry with none. */
async function measure(name: string, store: Store, fill: (r: GameRegistry) => Promise<void>): Promise<Shape> {
  const clock = new ManualClock();
  const registry = newRegistry(store, clock);
  clearReadCaches();
  const before = await heapBytes();
  const t0 = performance.now();
  await fill(registry);
  const ms = performance.now() - t0;
  // What the games hold by themselves: the shared caches are bounded whatever their number.
  const cached = readCachesSize();
  clearReadCaches();
  const after = await heapBytes();
  const live = registry.liveCount();
  if (SNAPSHOTS) writeHeapSnapshot(join(SNAPSHOTS, `game-memory-${name}.heapsnapshot`));
  await registry.stop();
  clock.advance(0);
  return { perGame: (after - before) / live, live, ms, cached };
}

/**
 * Heap per live game of a sharded server, both sides in this one heap: the shard's actor and main's
 * mirror (record, view, pending tree's JSON), opening roll made; the shared caches emptied, as above.
 */
async function measureSharded(count: number): Promise<Shape> {
  const clock = new ManualClock(undefined, { runDueTimers: true });
  const config = { ...DEFAULT_GAME_CONFIG, archiveSize: 0, seedGraceMs: 0 };
  const transport = new LoopbackTransport({
    clock, config, log: silent, housePlayers: new Map(), storeFor: () => ({ mode: 'forwarding', games: new ForwardingStore() }),
  });
  let n = 0;
  const games = new ShardedGames({
    transport, shards: 1, store: new MemoryStore(), forwarded: true, clock, config, listeners: [],
    newId: () => `g${(n++).toString(36).padStart(8, '0')}`, log: silent,
  });
  clearReadCaches();
  const before = await heapBytes();
  const t0 = performance.now();
  for (let i = 0; i < count; i += 200) {
    const batch = Array.from({ length: Math.min(200, count - i) }, (_, k) =>
      games.create({ white: player(`w${i + k}`), black: player(`b${i + k}`), timeControl: { Fischer: { initialSeconds: 300, incrementSeconds: 3 } }, rated: false }));
    await Promise.all(batch);
  }
  for (let i = 0; i < 5; i++) await games.idle();
  const ms = performance.now() - t0;
  const cached = readCachesSize();
  clearReadCaches();
  const after = await heapBytes();
  const live = games.liveCount();
  const rolled = games.live().filter((g) => g.moves().dicePending).length;
  if (rolled !== live) throw new Error(`sharded: ${rolled} of ${live} games have their opening roll`);
  await games.stop();
  return { perGame: (after - before) / live, live, ms, cached };
}

/** `count` copies of the sample records under new ids and players, each a fresh decoded object as a store returns. */
function copies(samples: GameRecord[], count: number): GameRecord[] {
  return Array.from({ length: count }, (_, i) => {
    const rec = structuredClone(samples[i % samples.length]);
    const [white, black] = rec.activeSeat === 'White' ? [player(`w${i}`), player(`b${i}`)] : [player(`b${i}`), player(`w${i}`)];
    return { ...rec, id: `p${i.toString(36).padStart(8, '0')}`, white, black };
  });
}

/** What a bot's reads leave cached: the state and the moves once each, and a stream's Snapshot. */
function readOnce(registry: GameRegistry): void {
  for (const g of registry.live()) {
    g.stateJson();
    g.movesJson();
    g.subscribe({ deliver: () => {} }).unsubscribe();
  }
}

/** The live shape: LIVE_GAMES games created and played live, LIVE_ROLLS rolls each (or until they end). */
async function playLive(registry: GameRegistry): Promise<void> {
  await openGames(registry, LIVE_GAMES);
  const random = prng(0x11fe);
  for (let turn = 0; turn < LIVE_ROLLS * 2 && registry.liveCount() > 0; turn++) {
    const moves: Promise<unknown>[] = [];
    for (const g of registry.live()) {
      const rec = g.record();
      const m = rec.dice !== null && rec.ply < LIVE_ROLLS ? randomTurn(g, random) : null;
      if (m) moves.push(g.move(rec.activeSeat, m));
    }
    if (moves.length === 0) break;
    await Promise.all(moves);
    await settle(registry);
  }
}

/**
 * The hot path beside the memory: CPU per turn in this thread for HOUSE_GAMES games of two built-in
 * random players (each answers from the DiceRolled event at once), played to their end.
 */
export async function turnCost(): Promise<{ cpuUsPerTurn: number; turns: number }> {
  let turns = 0;
  const ids = new Map<string, 'random'>();
  const registry = new GameRegistry({
    store: new DiscardingStore(),
    clock: new ManualClock(),
    config: { ...DEFAULT_GAME_CONFIG, archiveSize: 0, maxRolls: 400 },
    listeners: [{ turnApplied: () => void turns++ }],
    newId: (() => { let n = 0; return () => `h${n++}`; })(),
    log: silent,
    housePlayers: ids,
    random: prng(0xc0ffee),
  });
  const games = Array.from({ length: HOUSE_GAMES }, (_, i) => [player(`hw${i}`), player(`hb${i}`)] as const);
  for (const [w, b] of games) {
    ids.set(w.id, 'random');
    ids.set(b.id, 'random');
  }
  const cpu = process.cpuUsage();
  for (const [white, black] of games) {
    await registry.create({ white, black, timeControl: { Fischer: { initialSeconds: 300, incrementSeconds: 3 } }, rated: false });
  }
  while (registry.liveCount() > 0) await settle(registry);
  const used = process.cpuUsage(cpu);
  await registry.stop();
  return { cpuUsPerTurn: (used.user + used.system) / turns, turns };
}

/** Wall time of the last registry.resume() of the played shape. */
let resumeMs = 0;

/** The played shape: live games TURNS rolls in, resumed from the store as after a restart. */
async function resumePlayed(samples: GameRecord[], count: number, store: Store): Promise<Shape> {
  return measure(`played-${store instanceof DiscardingStore ? 'game' : 'store'}`, store, async (registry) => {
    let recs: GameRecord[] | null = copies(samples, count);
    if (store instanceof DiscardingStore) {
      const list = recs;
      store.listLiveGames = () => list.splice(0);
    } else {
      for (const r of recs) await store.putGame(r);
    }
    recs = null;
    const t0 = performance.now();
    await registry.resume();
    resumeMs = performance.now() - t0;
    // One turn more, played live, so each game's pending roll is one the actor made itself.
    const random = prng(0x7e57);
    await Promise.all(registry.live().map((g) => {
      const m = randomTurn(g, random);
      return m ? g.move(g.record().activeSeat, m) : null;
    }));
    await settle(registry);
  });
}

export async function run(): Promise<BenchRow[]> {
  const cost = await turnCost();
  const opening = await measure('opening', new DiscardingStore(), (r) => openGames(r, GAMES));
  const read = await measure('opening-read', new DiscardingStore(), async (r) => {
    await openGames(r, GAMES);
    readOnce(r);
  });
  const live = await measure('live', new DiscardingStore(), playLive);
  const samples = await playedRecords();
  const played = await resumePlayed(samples, GAMES, new DiscardingStore());
  const stored = await resumePlayed(samples, PLAYED_STORED, new MemoryStore());
  const sharded = await measureSharded(GAMES);
  const avgPly = samples.reduce((n, r) => n + r.ply, 0) / samples.length;
  const avgHistory = samples.reduce((n, r) => n + r.history.length, 0) / samples.length;
  const shape = `${played.live} games ${(avgPly + 1).toFixed(0)} rolls in (${avgHistory.toFixed(0)} history entries), copies of ${samples.length} played`;
  return [
    {
      bench: 'game-memory.turns', metric: 'CPU µs / turn, in-thread', value: cost.cpuUsPerTurn,
      note: `${cost.turns} turns of ${HOUSE_GAMES} house-vs-house games: actor, trees (built in-thread), events, house choice`,
    },
    {
      bench: 'game-memory.opening', metric: 'heap bytes / live game', value: opening.perGame,
      note: `${opening.live} games, opening roll made, waiting for a move; store discards writes`,
    },
    {
      bench: 'game-memory.opening, sharded', metric: 'heap bytes / live game', value: sharded.perGame,
      baseline: opening.perGame, baselineName: 'actor only',
      note: `${sharded.live} games through ShardedGames (loopback shard): the shard's actor and main's mirror, in one heap`,
    },
    {
      bench: 'game-memory.opening+read', metric: 'heap bytes / live game', value: read.perGame,
      baseline: opening.perGame, baselineName: 'unread',
      note: 'the same, after GET state, GET moves and a stream Snapshot once each (read caches emptied)',
    },
    {
      bench: 'game-memory.live', metric: 'heap bytes / live game', value: live.perGame,
      note: `${live.live} games still live after up to ${LIVE_ROLLS} rolls played in this process; store discards writes`,
    },
    {
      bench: 'game-memory.played', metric: 'heap bytes / live game', value: played.perGame,
      note: `${shape}; store discards writes`,
    },
    {
      bench: 'game-memory.played', metric: 'resume µs / game', value: (resumeMs * 1000) / played.live,
      note: 'registry.resume(): each actor built, its pending tree recomputed in-thread, roll shown',
    },
    {
      bench: 'game-memory.played', metric: 'MB in shared caches', value: played.cached / (1024 * 1024),
      note: 'pending trees and read encodings of the most recent games, bounded (56 MB at most); emptied for the rows above',
    },
    {
      bench: 'game-memory.played+store', metric: 'heap bytes / live game', value: stored.perGame,
      baseline: played.perGame, baselineName: 'game layer',
      note: `${stored.live} of the same games with the memory store holding them too`,
    },
  ];
}
