// The shard protocol over a transport that is not reliable: real shard hosts in this thread
// (LoopbackTransport) behind a wrapper that, on a seed, drops, duplicates and delays (so reorders)
// move commands and update / verdict replies. Whole games still end with the same transcript on the
// owner (its store) and on main (the replica), every move gets exactly one answer, and a gap in a
// game's updates is resynced from its owner. Also: the owner's clock alone charges the mover.
import t from 'tap';
import { ManualClock } from '../../src/domain/clock.js';
import { silentLogger, type Logger } from '../../src/domain/log.js';
import type { LegalMoveTree, MoveVerdict } from '../../src/domain/types.js';
import { DEFAULT_GAME_CONFIG } from '../../src/game/game-config.js';
import { leafPaths } from '../../src/game/house.js';
import type { GameHandle } from '../../src/game/types.js';
import { MemoryStore } from '../../src/store/memory.js';
import type { Command, ShardReply } from '../../src/shard/protocol.js';
import { ShardedGames } from '../../src/shard/sharded-games.js';
import { LoopbackTransport, type ShardEvents, type ShardTransport } from '../../src/shard/transport.js';
import { tick } from '../helpers/poll.js';
import { prng } from '../helpers/prng.js';

const seat = (id: string) => ({ id, face: { kind: 'Bot' as const, name: `t ${id}` }, participant: { Bot: { team: 't', name: id } } });

interface Faults {
  drop: number;
  duplicate: number;
  delay: number;
}

/** What the faulty wrapper did, for the test to check the faults happened. */
interface Tally {
  dropped: number;
  duplicated: number;
  delayed: number;
}

/** Messages the wrapper may lose, repeat or hold back; every other kind passes in order. */
const FAULTY = new Set(['move', 'update', 'verdict']);

/** Wraps a transport: each message of a faulty kind is dropped, duplicated or delayed on the seed. */
class FaultyTransport implements ShardTransport {
  readonly tally: Tally = { dropped: 0, duplicated: 0, delayed: 0 };

  constructor(private readonly inner: ShardTransport, private readonly random: () => number, private readonly f: Faults) {}

  open(index: number, events: ShardEvents) {
    const channel = this.inner.open(index, {
      replies: (batch) => this.pass(batch, (b) => events.replies(b)),
      died: (err) => events.died(err),
    });
    return {
      send: (batch: Command[]) => this.pass(batch, (b) => channel.send(b)),
      close: () => channel.close(),
    };
  }

  private pass<T extends Command | ShardReply>(batch: T[], deliver: (b: T[]) => void): void {
    const now: T[] = [];
    for (const m of batch) {
      if (!FAULTY.has(m.t)) {
        now.push(m);
        continue;
      }
      const r = this.random();
      if (r < this.f.drop) {
        this.tally.dropped++;
      } else if (r < this.f.drop + this.f.duplicate) {
        this.tally.duplicated++;
        now.push(m, structuredClone(m));
      } else if (r < this.f.drop + this.f.duplicate + this.f.delay) {
        this.tally.delayed++;
        // Held back a few event-loop turns: later messages overtake it.
        const turns = 1 + Math.floor(this.random() * 4);
        const later = (n: number): void => void setImmediate(() => (n === 0 ? deliver([m]) : later(n - 1)));
        later(turns);
      } else {
        now.push(m);
      }
    }
    if (now.length > 0) deliver(now);
  }
}

/** Counts warnings (a resync logs one). */
function countingLog(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { ...silentLogger, warn: (_o: unknown, m?: string) => void warnings.push(m ?? ''), warnings };
}

/** A bot on main's side: answers each pending roll of its seats with a random path, naming the roll's version; retries on 'busy'. */
async function playOut(games: ShardedGames, handles: GameHandle[], clock: ManualClock, random: () => number, count: { asked: number; answers: number }): Promise<Map<string, MoveVerdict[]>> {
  const applied = new Map<string, MoveVerdict[]>(handles.map((h) => [h.id, []]));
  const inFlight = new Set<string>();
  for (let turn = 0; turn < 20_000 && handles.some((h) => games.get(h.id) !== undefined); turn++) {
    for (const h of handles) {
      const g = games.get(h.id);
      if (!g || inFlight.has(h.id)) continue;
      const s = g.state();
      if (!s.dicePending || !('Active' in s.status)) continue;
      const tree = JSON.parse(g.moves().legalMovesJson) as LegalMoveTree;
      const paths = leafPaths(tree);
      if (paths.length === 0) continue;
      const path = paths[Math.floor(random() * paths.length)];
      count.asked++;
      inFlight.add(h.id);
      g.move(s.activeSeat, path, s.version).then((v) => {
        count.answers++;
        inFlight.delete(h.id);
        if (v !== 'busy' && v.applied) applied.get(h.id)!.push(v);
      });
    }
    await tick();
    // Time moves a little now and then: deadlines of lost requests pass, and nothing else is due.
    if (turn % 50 === 49) clock.advance(1000);
  }
  return applied;
}

t.test('whole games over a transport that drops, repeats and reorders: same transcript on owner and main, one answer per move', async (t) => {
  for (const seed of [1, 2, 3]) {
    const clock = new ManualClock();
    const store = new MemoryStore();
    const config = { ...DEFAULT_GAME_CONFIG, seedGraceMs: 0, maxRolls: 30, unlimitedCapMs: 3_600_000 };
    const random = prng(seed);
    const transport = new FaultyTransport(
      new LoopbackTransport({ clock, config, log: silentLogger, housePlayers: new Map(), storeFor: () => ({ mode: 'shared', games: store }) }),
      random,
      { drop: 0.08, duplicate: 0.08, delay: 0.2 },
    );
    const log = countingLog();
    let n = 0;
    const games = new ShardedGames({
      transport, shards: 2, store, forwarded: false, clock, config, listeners: [], newId: () => `s${seed}-g${++n}`, log,
    });
    const handles: GameHandle[] = [];
    for (let i = 0; i < 4; i++) handles.push(await games.create({ white: seat(`w${i}`), black: seat(`b${i}`), timeControl: { Unlimited: {} }, rated: false }));
    const count = { asked: 0, answers: 0 };
    const applied = await playOut(games, handles, clock, random, count);
    for (let i = 0; i < 20 && count.answers < count.asked; i++) {
      clock.advance(31_000);
      await tick();
    }
    t.equal(count.answers, count.asked, `seed ${seed}: every move got exactly one answer (${count.answers} of ${count.asked})`);
    t.equal(games.waiting(), 0, `seed ${seed}: nothing is left waiting`);
    for (const h of handles) {
      const owner = store.getGame(h.id)!;
      const main = games.find(h.id)!.record();
      t.ok(!('Active' in owner.status), `seed ${seed}: ${h.id} ended on its owner`);
      t.same(main.history, owner.history, `seed ${seed}: ${h.id}: main's transcript is the owner's (${owner.history.length} turns)`);
      t.same(main.status, owner.status, `seed ${seed}: ${h.id}: the same ending`);
      // A retried turn answers its original verdict (same version): every applied version is a turn of the transcript.
      const played = new Set(owner.history.length > 0 ? applied.get(h.id)!.map((v) => v.version) : []);
      t.ok(played.size <= owner.history.length, `seed ${seed}: ${h.id}: ${played.size} distinct turns applied, ${owner.history.length} in the transcript`);
    }
    t.ok(transport.tally.dropped > 0 && transport.tally.duplicated > 0 && transport.tally.delayed > 0, `seed ${seed}: faults happened (${JSON.stringify(transport.tally)})`);
    t.ok(log.warnings.some((w) => /resync/.test(w)), `seed ${seed}: at least one gap was resynced (${log.warnings.length})`);
    await games.stop();
  }
});

/** One shard that records what it is sent and answers only when the test says. */
class StandIn implements ShardTransport {
  events!: ShardEvents;
  sent: Command[] = [];
  open(_index: number, events: ShardEvents) {
    this.events = events;
    return { send: (batch: Command[]) => void this.sent.push(...batch), close: async () => {} };
  }
}

t.test('a move whose verdict never comes is answered busy at its deadline, and the waiting map empties; it is bounded', async (t) => {
  const clock = new ManualClock();
  const transport = new StandIn();
  const games = new ShardedGames({
    transport, shards: 1, store: new MemoryStore(), forwarded: true, clock, config: DEFAULT_GAME_CONFIG, listeners: [], newId: () => 'x', log: silentLogger,
    verdictTimeoutMs: 5000, pendingMax: 3,
  });
  transport.events.replies([{ t: 'started', rec: startedRecord('g1') }]);
  const g = games.get('g1')!;
  const moves = [g.move('White', ['e2e4']), g.move('White', ['e2e4']), g.move('White', ['e2e4'])];
  t.equal(await g.move('White', ['e2e4']), 'busy', 'past the bound, a move is answered at once');
  t.equal(games.waiting(), 3, 'three wait');
  clock.advance(4000);
  await tick();
  t.equal(games.waiting(), 3, 'not before the deadline');
  clock.advance(2000);
  t.same(await Promise.all(moves), ['busy', 'busy', 'busy'], 'answered busy at the deadline');
  t.equal(games.waiting(), 0, 'the map behind them is empty');
});

function startedRecord(id: string) {
  return {
    schema: 1, id, white: seat('w'), black: seat('b'), timeControl: { Unlimited: {} }, rated: false, createdAt: 1,
    serverSeed: '00'.repeat(32), commit: '11'.repeat(32), clientSeeds: { white: null, black: null }, ply: 1,
    fen: 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1', activeSeat: 'White' as const, dice: [1, 2, 3],
    clocks: { white: null, black: null }, clockStartedAt: 1, version: 1, history: [],
    status: { Active: {} }, revealedSeeds: null, finishedAt: null, mirrorOf: null,
  } as unknown as Extract<ShardReply, { t: 'started' }>['rec'];
}

t.test('updates: a repeat or an old one is ignored, a gap asks the owner for the whole state and closes the streams', async (t) => {
  const clock = new ManualClock();
  const transport = new StandIn();
  const games = new ShardedGames({
    transport, shards: 1, store: new MemoryStore(), forwarded: true, clock, config: DEFAULT_GAME_CONFIG, listeners: [], newId: () => 'x', log: silentLogger,
  });
  const base = startedRecord('g1');
  transport.events.replies([{ t: 'started', rec: base }]);
  const g = games.get('g1')!;
  const seen: number[] = [];
  let closed = 0;
  g.subscribe({ deliver: (f) => void seen.push(f.v), close: () => closed++ });
  const update = (seq: number, version: number): ShardReply => ({
    t: 'update', id: 'g1', seq, head: { ...base, version }, from: 0, hist: [], lines: [[version, `{"Rejected":{"v":${version},"seat":"White","reason":"not your turn"}}\n`]], turns: 0,
  });
  transport.events.replies([update(1, 2), update(1, 2), update(2, 3)]);
  t.same(seen, [2, 3], 'a repeated update is published once');
  transport.events.replies([update(1, 2)]);
  t.same(seen, [2, 3], 'an old one is ignored');
  t.equal(g.record().version, 3);
  transport.events.replies([update(4, 5)]);
  t.equal(g.record().version, 3, 'an update after a gap is not spliced in');
  t.equal(closed, 1, 'the streams that missed an event end');
  await tick();
  const sync = transport.sent.find((c) => c.t === 'sync');
  t.ok(sync && sync.t === 'sync' && sync.id === 'g1', 'the owner is asked for the game');
  transport.events.replies([update(5, 6)]);
  t.equal(g.record().version, 3, 'updates wait for the sync');
  transport.events.replies([{ t: 'synced', rid: (sync as { rid: number }).rid, rec: { ...base, version: 6 }, tree: null, seq: 5 }]);
  t.equal(g.record().version, 6, 'the whole state adopted');
  transport.events.replies([update(6, 7)]);
  t.equal(g.record().version, 7, 'and the next update applies on top of it');
  t.equal(games.waiting(), 0);
});

t.test('the owner\'s clock charges the mover, whatever main\'s clock says', async (t) => {
  const owner = new ManualClock(undefined, { runDueTimers: true });
  // Main's clock is an hour ahead of the owner's (another machine): its arrival stamp is not charged.
  const main = new ManualClock(owner.now() + 3_600_000);
  const store = new MemoryStore();
  const config = { ...DEFAULT_GAME_CONFIG, seedGraceMs: 0 };
  const transport = new LoopbackTransport({ clock: owner, config, log: silentLogger, housePlayers: new Map(), storeFor: () => ({ mode: 'shared', games: store }) });
  const games = new ShardedGames({ transport, shards: 1, store, forwarded: false, clock: main, config, listeners: [], newId: () => 'c1', log: silentLogger });
  const h = await games.create({ white: seat('w'), black: seat('b'), timeControl: { Fischer: { initialSeconds: 60, incrementSeconds: 0 } }, rated: false });
  for (let i = 0; i < 100 && !h.state().dicePending; i++) await tick();
  const s = h.state();
  t.ok(s.dicePending, 'a roll is pending');
  const tree = JSON.parse(h.moves().legalMovesJson) as LegalMoveTree;
  owner.advance(2000);
  const v = await h.move(s.activeSeat, leafPaths(tree)[0], s.version);
  t.ok(v !== 'busy' && v.applied, 'applied, not lost on time');
  const rec = store.getGame('c1')!;
  const bank = s.activeSeat === 'White' ? rec.clocks!.white : rec.clocks!.black;
  t.equal(bank, 58_000, 'charged the 2 s the owner\'s clock saw');
  await games.stop();
});
