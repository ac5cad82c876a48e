// The event scheduler on its own (ManualClock, a fake game factory whose pair starts wait until the
// test lets them finish): one pass fills every free place at once, and two passes that start
// together (a timer tick and a pair that just ended) never give two pairs the same index.
import t from 'tap';
import { ManualClock } from '../../../src/domain/clock.js';
import { silentLogger } from '../../../src/domain/log.js';
import type { TournamentRecord } from '../../../src/domain/tournaments.js';
import type { GameRecord } from '../../../src/domain/records.js';
import { SCHEMA_VERSION } from '../../../src/domain/records.js';
import { commitOf, newServerSeed, seedToHex } from '../../../src/fair/index.js';
import type { GameHandle, MirrorPairFactory, GameDirectory } from '../../../src/game/types.js';
import { TournamentFollowers } from '../../../src/services/tournaments/followers.js';
import { TournamentScheduler } from '../../../src/services/tournaments/scheduler.js';
import { MemoryStore } from '../../../src/store/memory.js';

const TICK_MS = 1000;

/** Pair starts that wait for `release()`; `pending` is how many are waiting now, `most` the peak. */
class SlowPairs implements MirrorPairFactory, Pick<GameDirectory, 'liveFor' | 'finalRecord'> {
  pending = 0;
  most = 0;
  starts = 0;
  /** Starts (by number) that fail instead of creating games. */
  readonly failing = new Set<number>();
  private waiting: (() => void)[] = [];

  createMirrorPair(): Promise<[GameHandle, GameHandle]> {
    const n = this.starts++;
    if (this.failing.has(n)) return Promise.reject(new Error('no shard'));
    this.pending++;
    this.most = Math.max(this.most, this.pending);
    return new Promise((resolve) => {
      this.waiting.push(() => {
        this.pending--;
        resolve([{ id: `g${n}a` } as GameHandle, { id: `g${n}b` } as GameHandle]);
      });
    });
  }

  release(): void {
    const all = this.waiting;
    this.waiting = [];
    for (const go of all) go();
  }

  liveFor(): GameHandle[] {
    return [];
  }

  finalRecord(): undefined {
    return undefined;
  }
}

function runningMatch(queued: number, concurrency: number): TournamentRecord {
  const seed = newServerSeed();
  const player = (name: string) => ({ id: `bot:team:house:${name}`, team: 'house', name, accepted: true });
  return {
    schema: SCHEMA_VERSION, id: 'E1', name: 'm', format: 'match', host: 'bot:team:hosts:h',
    players: [player('greedy'), player('random')], timeControl: { Unlimited: {} }, pairsPerEncounter: queued, rounds: 0,
    sprt: null, maxPairs: queued, concurrency, rated: false, state: 'running', createdAt: 0, startedAt: 0, finishedAt: null,
    commit: commitOf(seed), seed: seedToHex(seed), pairs: [], byes: [],
    queue: Array.from({ length: queued }, () => [0, 1, 0] as [number, number, number]),
    verdict: null, verdictAfter: null, note: null,
  };
}

async function setup(queued: number, concurrency: number) {
  const store = new MemoryStore();
  await store.putTournament(runningMatch(queued, concurrency));
  const clock = new ManualClock();
  const games = new SlowPairs();
  const followers = new TournamentFollowers(store);
  const scheduler = new TournamentScheduler(
    { followers, games: games as unknown as MirrorPairFactory & GameDirectory, clock, log: silentLogger, seatsOf: () => Infinity },
    { tickMs: TICK_MS, pairsInFlightPerHost: 100, pendingTtlMs: 86_400_000 },
  );
  return { store, clock, games, scheduler, followers };
}

/** Lets promise callbacks run (the pass's awaits) without any clock time passing. */
const settle = () => new Promise((r) => setImmediate(r));

/** Lets every pair start the passes ask for finish, a few turns of the event loop over. */
async function releaseAll(games: SlowPairs): Promise<void> {
  for (let i = 0; i < 10; i++) {
    await settle();
    games.release();
  }
}

t.test('one pass starts every pair that fits, all at once', async (t) => {
  const { store, games, scheduler } = await setup(10, 6);
  await scheduler.start();
  for (let i = 0; i < 5; i++) await settle();
  t.equal(games.most, 6, 'six pair starts are in flight together (concurrency 6), not one after another');
  games.release();
  await scheduler.stop();
  const ev = store.getTournament('E1')!;
  t.same(ev.pairs.map((p) => p.index), [0, 1, 2, 3, 4, 5], 'the six pairs are stored with their own indexes');
  t.equal(ev.queue.length, 4, 'the rest wait in the queue');
  t.equal(scheduler.inFlight(ev), 6);
});

t.test('a timer pass and a pass asked for by an event at once never give two pairs one index', async (t) => {
  const { store, clock, games, scheduler } = await setup(12, 12);
  await scheduler.start();
  // The first pass holds its pair starts open; a timer tick and an event-driven kick come meanwhile.
  await settle();
  const first = games.starts;
  t.ok(first > 0, 'the first pass is starting pairs');
  clock.advance(TICK_MS);
  scheduler.kick();
  await settle();
  t.equal(games.starts, first, 'no second pass runs while the first one is still starting its pairs');
  for (let i = 0; i < 10 && store.getTournament('E1')!.queue.length > 0; i++) {
    games.release();
    await settle();
    clock.advance(TICK_MS);
    scheduler.kick();
    await settle();
  }
  games.release();
  await scheduler.stop();
  const indexes = store.getTournament('E1')!.pairs.map((p) => p.index);
  t.equal(indexes.length, 12, 'every queued pair started');
  t.same([...new Set(indexes)].sort((a, b) => a - b), [...Array(12).keys()], 'each index exactly once');
});

t.test('a pair that could not start leaves its index unused; the others are found by index', async (t) => {
  const { store, clock, games, scheduler } = await setup(3, 3);
  games.failing.add(0);
  await scheduler.start();
  await releaseAll(games);
  let ev = store.getTournament('E1')!;
  t.same(ev.pairs.map((p) => p.index), [1, 2], 'the pairs after the failed one keep the indexes they started with');
  t.equal(ev.queue.length, 1, 'the failed encounter waits in the queue');
  // A refused move in the game of pair 2 (stored at position 1): its player is found by the pair's index.
  scheduler.moveRefused({ id: ev.pairs[1].games![1] } as GameHandle, 'White');
  clock.advance(TICK_MS);
  await releaseAll(games);
  await scheduler.stop();
  ev = store.getTournament('E1')!;
  t.same(ev.pairs.map((p) => p.index), [1, 2, 3], 'the next pair counts on from the last one stored');
  t.same(ev.refused, [0, 1], 'pair 2, game 1 (first player Black): White is the second player');
});

t.test('a cancel that crosses a pass starting pairs: the event waits for those pairs too', async (t) => {
  const { store, games, scheduler, followers } = await setup(4, 2);
  await scheduler.start();
  await settle();
  t.equal(games.pending, 2, 'the pass is starting two pairs');
  // The host cancels now (as TournamentService.cancel stores it); the pass has not stored its pairs yet.
  await followers.modify('E1', (ev) => ({ next: { ...ev, state: 'cancelling' as const, queue: [] }, value: null }));
  await releaseAll(games);
  await scheduler.round();
  let ev = store.getTournament('E1')!;
  t.equal(ev.pairs.length, 2, 'the pairs the pass started are stored');
  t.equal(ev.state, 'cancelling', 'and waited for: the event is not over');
  // Every game ends (a draw each).
  const drawn = (id: string) => ({ id, status: { Ended: { over: { result: { Draw: {} }, termination: 'Draw' } } } }) as unknown as GameRecord;
  for (const p of ev.pairs) for (const g of p.games!) scheduler.gameEnded({ id: g } as GameHandle, drawn(g));
  for (let i = 0; i < 5; i++) await settle();
  await scheduler.round();
  await scheduler.stop();
  ev = store.getTournament('E1')!;
  t.equal(ev.state, 'cancelled', 'over once its last pair has ended');
  t.ok(ev.pairs.every((p) => p.scores.every((s) => s === 0.5)), 'every game counted');
  t.equal(scheduler.inFlight(ev), 0);
});
