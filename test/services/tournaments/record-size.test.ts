// An event's stored values stay small and its writes stay linear however many pairs it plays: the
// scheduler runs a 2,000-pair match to its end on a store that measures every value written (each
// part of the event encoded as the stores encode it). No value may pass a bound that does not grow
// with the pairs, and the writes per pair (values and bytes) stay a small constant. Refused moves
// are written at most once a second, and not at all once the event is over.
import t from 'tap';
import { Packr } from 'msgpackr';
import { ManualClock } from '../../../src/domain/clock.js';
import { silentLogger } from '../../../src/domain/log.js';
import type { GameRecord } from '../../../src/domain/records.js';
import type { TournamentHead, TournamentListing, TournamentPairRecord, TournamentRecord } from '../../../src/domain/tournaments.js';
import type { GameDirectory, GameHandle, MirrorPairFactory } from '../../../src/game/types.js';
import { TournamentFollowers } from '../../../src/services/tournaments/followers.js';
import { TournamentScheduler } from '../../../src/services/tournaments/scheduler.js';
import { MemoryStore } from '../../../src/store/memory.js';
import { TournamentTable } from '../../../src/store/tournament-table.js';
import type { QueueEntry } from '../../../src/store/tournament-parts.js';
import { StoreProxy } from '../../helpers/store-proxy.js';
import { tournament } from '../../helpers/store-fixtures.js';

const PAIRS = 2_000;
/** The largest value an event of two players may store, whatever its pairs (a KV value may hold 1 MB). */
const MAX_VALUE_BYTES = 8 * 1024;

const codec = new Packr({ useRecords: false });

/** A store whose events are kept by a table over plain maps, measuring each value written. */
class MeasuringStore extends StoreProxy {
  writes = 0;
  bytes = 0;
  largest = 0;
  private readonly values = new Map<string, Uint8Array>();
  private readonly table = new TournamentTable({
    head: (id) => this.read(`h/${id}`),
    pairs: (id, count) => Array.from({ length: count }, (_, i) => this.read<TournamentPairRecord>(`p/${id}/${i}`)!),
    queueChunk: (id, k) => this.read<QueueEntry[]>(`q/${id}/${k}`),
    write: async (id, head, pairs, chunks) => {
      for (const [i, p] of pairs) this.put(`p/${id}/${i}`, p);
      for (const [k, c] of chunks) this.put(`q/${id}/${k}`, c);
      if (head) this.put(`h/${id}`, head);
    },
  }, true);

  constructor() {
    super(new MemoryStore());
  }

  private put(key: string, v: unknown): void {
    const bytes = new Uint8Array(codec.pack(v));
    this.values.set(key, bytes);
    this.writes++;
    this.bytes += bytes.length;
    this.largest = Math.max(this.largest, bytes.length);
  }

  private read<T>(key: string): T | undefined {
    const b = this.values.get(key);
    return b && (codec.unpack(b) as T);
  }

  override putTournament(e: TournamentRecord, previous?: TournamentRecord): Promise<void> { return this.table.put(e, previous); }
  override getTournament(id: string): TournamentRecord | undefined { return this.table.get(id); }
  override getTournamentHead(id: string): TournamentHead | undefined { return this.table.head(id); }
  override openTournaments(): TournamentListing[] { return this.table.openEvents(); }
  override recentTournaments(limit: number, bot?: string): string[] { return this.table.recent(limit, bot); }
  override tournamentRevision(id: string): number | undefined { return this.table.revision(id); }
}

/** Pairs that start at once; their games are ended by the test. */
class InstantPairs implements MirrorPairFactory, Pick<GameDirectory, 'liveFor' | 'finalRecord'> {
  readonly started: string[] = [];
  private n = 0;
  async createMirrorPair(): Promise<[GameHandle, GameHandle]> {
    const n = this.n++;
    this.started.push(`g${n}a`, `g${n}b`);
    return [{ id: `g${n}a` } as GameHandle, { id: `g${n}b` } as GameHandle];
  }
  liveFor(): GameHandle[] { return []; }
  finalRecord(): undefined { return undefined; }
}

const whiteWon = (id: string) => ({ id, status: { Ended: { over: { result: { Win: { side: 'White' } }, termination: 'Resign' } } } }) as unknown as GameRecord;
const settle = () => new Promise((r) => setImmediate(r));

async function setup(pairs: number) {
  const store = new MeasuringStore();
  const ev = tournament('E', { over: { pairsPerEncounter: pairs, maxPairs: pairs, concurrency: 16, queue: [] } });
  await store.putTournament({ ...ev, pairs: [] });
  const clock = new ManualClock();
  const games = new InstantPairs();
  const scheduler = new TournamentScheduler(
    { followers: new TournamentFollowers(store), games: games as unknown as MirrorPairFactory & GameDirectory, clock, log: silentLogger, seatsOf: () => Infinity },
    { tickMs: 1000, pairsInFlightPerHost: 100, pendingTtlMs: 86_400_000 },
  );
  return { store, clock, games, scheduler };
}

t.test(`a ${PAIRS}-pair match: every value small, writes linear`, async (t) => {
  const { store, games, scheduler } = await setup(PAIRS);
  await scheduler.start();
  let ended = 0;
  while (store.getTournamentHead('E')!.state === 'running') {
    const next = games.started.slice(ended);
    ended = games.started.length;
    // Each game is refused a move before it ends: counted, and written with its result.
    for (const id of next) scheduler.moveRefused({ id } as GameHandle, 'White');
    for (const id of next) scheduler.gameEnded({ id } as GameHandle, whiteWon(id));
    await scheduler.round();
    await settle();
  }
  await scheduler.stop();
  const ev = store.getTournament('E')!;
  t.equal(ev.state, 'finished');
  t.equal(ev.pairs.length, PAIRS, 'every pair played');
  t.same(ev.refused, [PAIRS, PAIRS], 'every refusal counted');
  t.ok(store.largest <= MAX_VALUE_BYTES, `the largest value stored is ${store.largest} bytes (bound ${MAX_VALUE_BYTES})`);
  t.ok(store.writes <= 6 * PAIRS, `${store.writes} values written for ${PAIRS} pairs: a few per pair`);
  t.ok(store.bytes <= 1500 * PAIRS, `${store.bytes} bytes written for ${PAIRS} pairs: under 1.5 KB per pair`);
});

t.test('refused moves are written at most once a second, and not after the end', async (t) => {
  const { store, clock, games, scheduler } = await setup(4);
  await scheduler.start();
  await scheduler.round();
  const before = store.writes;
  for (let i = 0; i < 500; i++) scheduler.moveRefused({ id: games.started[0] } as GameHandle, 'Black');
  await scheduler.round();
  t.equal(store.writes, before, 'counted, not written yet');
  clock.advance(1000);
  await scheduler.round();
  t.ok(store.writes - before <= 2, 'one write a second (the head, and nothing else of the event)');
  t.same(store.getTournament('E')!.refused, [0, 500]);
  const cancelled = store.getTournament('E')!;
  await store.putTournament({ ...cancelled, state: 'cancelled', queue: [] }, cancelled);
  const after = store.writes;
  for (let i = 0; i < 500; i++) scheduler.moveRefused({ id: games.started[1] } as GameHandle, 'White');
  clock.advance(5000);
  await scheduler.round();
  await scheduler.stop();
  t.equal(store.writes, after, 'nothing written for refusals once the event is over');
  t.same(store.getTournament('E')!.refused, [0, 500]);
});
