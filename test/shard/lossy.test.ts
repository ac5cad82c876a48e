// The shard protocol over a transport that is not reliable: real shard hosts in this thread
// (LoopbackTransport) behind a wrapper that, on a seed, drops, duplicates and delays (so reorders)
// every message, commands and replies alike. Whole games (single games with client seeds, mirror
// pairs, resignations) still end with the same transcript on the owner (its store) and on main (the
// replica), every move gets exactly one answer, and nothing is left waiting on either side. Also:
// the owner's clock alone charges the mover.
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

/**
 * Wraps a transport: each message, whatever its kind, is dropped, duplicated or delayed on the seed;
 * the first three of each kind are dropped, duplicated and delayed for sure (the games' dice are
 * random, so how many messages of a kind flow varies from run to run).
 */
class FaultyTransport implements ShardTransport {
  /** By message kind: how many were dropped, duplicated, delayed. */
  readonly tally = new Map<string, { dropped: number; duplicated: number; delayed: number }>();

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

  private count(kind: string, what: 'dropped' | 'duplicated' | 'delayed'): void {
    const c = this.tally.get(kind) ?? { dropped: 0, duplicated: 0, delayed: 0 };
    c[what]++;
    this.tally.set(kind, c);
  }

  /** Messages seen by kind: the first of each kind is dropped, the second duplicated, the third delayed. */
  private readonly seen = new Map<string, number>();

  private pass<T extends Command | ShardReply>(batch: T[], deliver: (b: T[]) => void): void {
    const now: T[] = [];
    for (const m of batch) {
      const nth = (this.seen.get(m.t) ?? 0) + 1;
      this.seen.set(m.t, nth);
      const forced = [0, this.f.drop / 2, this.f.drop + this.f.duplicate / 2, this.f.drop + this.f.duplicate + this.f.delay / 2][nth];
      const r = forced ?? this.random();
      if (r < this.f.drop) {
        this.count(m.t, 'dropped');
      } else if (r < this.f.drop + this.f.duplicate) {
        this.count(m.t, 'duplicated');
        now.push(m, structuredClone(m));
      } else if (r < this.f.drop + this.f.duplicate + this.f.delay) {
        this.count(m.t, 'delayed');
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

/** Waits for `p`, moving the clock a second at a time (a lost command is sent again on it). */
async function settled<T>(p: Promise<T>, clock: ManualClock): Promise<T> {
  let done = false;
  void p.then(() => (done = true), () => (done = true));
  for (let i = 0; i < 600 && !done; i++) {
    await tick();
    if (!done) clock.advance(1000);
  }
  return p;
}

interface Plan {
  /** Games whose White resigns once this many turns are on main. */
  resignAfter: Map<string, number>;
}

/** Bots on main's side: answer each pending roll of their seats with a random path, naming the roll's version; retry on 'busy'. */
async function playOut(games: ShardedGames, handles: GameHandle[], clock: ManualClock, random: () => number, plan: Plan, count: { asked: number; answers: number }): Promise<Map<string, MoveVerdict[]>> {
  const applied = new Map<string, MoveVerdict[]>(handles.map((h) => [h.id, []]));
  const inFlight = new Set<string>();
  for (let turn = 0; turn < 20_000 && handles.some((h) => games.get(h.id) !== undefined); turn++) {
    for (const h of handles) {
      const g = games.get(h.id);
      if (!g || inFlight.has(h.id)) continue;
      const after = plan.resignAfter.get(h.id);
      if (after !== undefined && g.history().length >= after) {
        g.resign('White');
        plan.resignAfter.delete(h.id);
      }
      const s = g.state();
      if (!s.dicePending || !('Active' in s.status)) continue;
      const paths = leafPaths(JSON.parse(g.moves().legalMovesJson) as LegalMoveTree);
      if (paths.length === 0) continue;
      const path = paths[Math.floor(random() * paths.length)];
      count.asked++;
      inFlight.add(h.id);
      void g.move(s.activeSeat, path, s.version).then((v) => {
        count.answers++;
        inFlight.delete(h.id);
        if (v !== 'busy' && v.applied) applied.get(h.id)!.push(v);
      });
    }
    await tick();
    // Time moves a little now and then: lost commands are sent again, deadlines pass.
    if (turn % 50 === 49) clock.advance(1000);
  }
  return applied;
}

t.test('whole games over a transport that drops, repeats and reorders every message: same transcript on owner and main, one answer per move', async (t) => {
  const faulted = new Map<string, { dropped: number; duplicated: number; delayed: number }>();
  for (const seed of [1, 2, 3, 4, 5]) {
    const clock = new ManualClock();
    const store = new MemoryStore();
    const config = { ...DEFAULT_GAME_CONFIG, seedGraceMs: 120_000, maxRolls: 30, unlimitedCapMs: 3_600_000 };
    const random = prng(seed);
    const loopback = new LoopbackTransport({ clock, config, log: silentLogger, housePlayers: new Map(), storeFor: () => ({ mode: 'shared', games: store }) });
    const transport = new FaultyTransport(loopback, random, { drop: 0.08, duplicate: 0.08, delay: 0.2 });
    const log = countingLog();
    let n = 0;
    const games = new ShardedGames({
      transport, shards: 2, store, forwarded: false, clock, config, listeners: [], newId: () => `s${seed}-g${++n}`, log,
    });
    const handles: GameHandle[] = [];
    const seeds = new Map<string, { white: string; black: string }>();
    for (let i = 0; i < 3; i++) {
      const h = await settled(games.create({ white: seat(`w${i}`), black: seat(`b${i}`), timeControl: { Unlimited: {} }, rated: false }), clock);
      // Client seeds: the game waits for both (the grace is long), so a lost one would show.
      const s = { white: `${seed}-${i}-white-seed-0123456789abcdef`, black: `${seed}-${i}-black-seed-0123456789abcdef` };
      h.seed('White', s.white);
      h.seed('Black', s.black);
      seeds.set(h.id, s);
      handles.push(h);
    }
    const pair = await settled(games.createMirrorPair({ white: seat('pw'), black: seat('pb'), timeControl: { Unlimited: {} }, rated: true }), clock);
    handles.push(...pair);
    const plan: Plan = { resignAfter: new Map([[handles[2].id, 4]]) };
    const count = { asked: 0, answers: 0 };
    const applied = await playOut(games, handles, clock, random, plan, count);
    for (let i = 0; i < 40 && count.answers < count.asked; i++) {
      clock.advance(1000);
      await tick();
    }
    t.equal(count.answers, count.asked, `seed ${seed}: every move got exactly one answer (${count.answers} of ${count.asked})`);
    for (const h of handles) {
      const owner = store.getGame(h.id)!;
      const main = games.find(h.id)!.record();
      const where = JSON.stringify({ v: owner.version, ply: owner.ply, dice: owner.dice, seq: games.get(h.id)?.seq, head: games.get(h.id)?.headSeq, syncing: games.get(h.id)?.syncing });
      t.ok(!('Active' in owner.status), `seed ${seed}: ${h.id} ended on its owner (${where})`);
      t.same(main.history, owner.history, `seed ${seed}: ${h.id}: main's transcript is the owner's (${owner.history.length} turns)`);
      t.same(main.status, owner.status, `seed ${seed}: ${h.id}: the same ending`);
      // A retried turn answers its original verdict (same version): every applied version is a turn of the transcript.
      const played = new Set(applied.get(h.id)!.map((v) => v.version));
      t.ok(played.size <= owner.history.length, `seed ${seed}: ${h.id}: ${played.size} distinct turns applied, ${owner.history.length} in the transcript`);
      const s = seeds.get(h.id);
      if (s) t.same(owner.clientSeeds, s, `seed ${seed}: ${h.id}: both client seeds arrived`);
    }
    t.match(store.getGame(handles[2].id)!.status, { Ended: { over: { termination: 'Resign' } } }, `seed ${seed}: the resignation arrived`);
    t.equal(pair[0].record().mirrorOf, pair[1].id, `seed ${seed}: a mirror pair played`);
    await settled(games.stop(), clock);
    t.equal(games.waiting(), 0, `seed ${seed}: nothing is left waiting on main`);
    t.same(loopback.hosts.map((h) => h.busy()), [0, 0], `seed ${seed}: nothing is left running on the shards`);
    for (const [kind, c] of transport.tally) {
      const f = faulted.get(kind) ?? { dropped: 0, duplicated: 0, delayed: 0 };
      faulted.set(kind, { dropped: f.dropped + c.dropped, duplicated: f.duplicated + c.duplicated, delayed: f.delayed + c.delayed });
    }
    t.ok(log.warnings.some((w) => /resync/.test(w)), `seed ${seed}: at least one gap was resynced (${log.warnings.length})`);
  }
  // Every kind of message that flows in a game was dropped, duplicated and delayed (a pair is made
  // once a seed: dropped, then its resend duplicated).
  for (const kind of ['create', 'pair', 'game', 'sync', 'stop', 'started', 'update', 'answer', 'done', 'synced', 'heads']) {
    const f = faulted.get(kind);
    t.ok(f && f.dropped > 0 && f.duplicated > 0 && (f.delayed > 0 || kind === 'pair'), `${kind} faulted: ${JSON.stringify(f)}`);
  }
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
