// Whole games over an unreliable shard transport, for test/shard/lossy.test.ts and for replaying a run
// many times (scripts or a loop in a test): real shard hosts in this thread (LoopbackTransport) behind
// a wrapper that, on a seed, drops, duplicates and delays (so reorders) every message, commands and
// replies alike. Everything is fixed by the seed: the fault pattern, the bots' choices, the server
// seeds of the games and the mirror pair's client seeds, so a failing seed replays the same run.
import { ManualClock } from '../../src/domain/clock.js';
import { silentLogger, type Logger } from '../../src/domain/log.js';
import type { GameRecord } from '../../src/domain/records.js';
import type { LegalMoveTree, MoveVerdict } from '../../src/domain/types.js';
import { DEFAULT_GAME_CONFIG } from '../../src/game/game-config.js';
import { leafPaths } from '../../src/game/house.js';
import type { GameHandle } from '../../src/game/types.js';
import { MemoryStore } from '../../src/store/memory.js';
import type { Command, ShardReply } from '../../src/shard/protocol/messages.js';
import { ShardedGames } from '../../src/shard/main/sharded-games.js';
import { LoopbackTransport } from '../../src/shard/loopback-transport.js';
import { type ShardEvents, type ShardTransport } from '../../src/shard/protocol/transport.js';
import type { GameReplica } from '../../src/shard/main/replica.js';
import { tick } from './poll.js';
import { prng } from './prng.js';

const seat = (id: string) => ({ id, face: { kind: 'Bot' as const, name: `t ${id}` }, participant: { Bot: { team: 't', name: id } } });

export interface Faults {
  drop: number;
  duplicate: number;
  delay: number;
}

export type Tally = Map<string, { dropped: number; duplicated: number; delayed: number }>;

/** One line per message: direction and shard, kind, what it names, and what the transport did to it. */
function describe(dir: string, m: Command | ShardReply): string {
  const parts = [dir, m.t];
  if ('rid' in m) parts.push(`rid=${m.rid}`);
  if ('id' in m) parts.push(m.id);
  if (m.t === 'pair') parts.push(m.ids.join('+'));
  if (m.t === 'update') parts.push(`seq=${m.seq}`, `v=${m.head.version}`);
  if (m.t === 'game') parts.push(m.name);
  if (m.t === 'started' || m.t === 'resumed' || m.t === 'synced') parts.push(m.rec.id, `v=${m.rec.version}`, `seq=${m.seq ?? 0}`);
  if (m.t === 'heads') parts.push(m.seqs.map(([id, s]) => `${id}@${s}`).join(','));
  return parts.join(' ');
}

/**
 * Wraps a transport: each message, whatever its kind, is dropped, duplicated or delayed on the seed;
 * the first three of each kind are dropped, duplicated and delayed for sure (how many messages of a
 * kind flow depends on the dice). `trace`, when given, gets a line per message.
 */
export class FaultyTransport implements ShardTransport {
  /** By message kind: how many were dropped, duplicated, delayed. */
  readonly tally: Tally = new Map();
  /** Messages seen by kind: the first of each kind is dropped, the second duplicated, the third delayed. */
  private readonly seen = new Map<string, number>();

  constructor(private readonly inner: ShardTransport, private readonly random: () => number, private readonly f: Faults, private readonly trace?: string[]) {}

  open(index: number, events: ShardEvents) {
    const channel = this.inner.open(index, {
      replies: (batch) => this.pass(`<${index}`, batch, (b) => events.replies(b)),
      died: (err) => events.died(err),
    });
    return {
      send: (batch: Command[]) => this.pass(`>${index}`, batch, (b) => channel.send(b)),
      close: () => channel.close(),
    };
  }

  private count(kind: string, what: 'dropped' | 'duplicated' | 'delayed'): void {
    const c = this.tally.get(kind) ?? { dropped: 0, duplicated: 0, delayed: 0 };
    c[what]++;
    this.tally.set(kind, c);
  }

  private pass<T extends Command | ShardReply>(dir: string, batch: T[], deliver: (b: T[]) => void): void {
    const now: T[] = [];
    for (const m of batch) {
      const nth = (this.seen.get(m.t) ?? 0) + 1;
      this.seen.set(m.t, nth);
      const forced = [0, this.f.drop / 2, this.f.drop + this.f.duplicate / 2, this.f.drop + this.f.duplicate + this.f.delay / 2][nth];
      const r = forced ?? this.random();
      let fate = '';
      if (r < this.f.drop) {
        this.count(m.t, 'dropped');
        fate = ' DROPPED';
      } else if (r < this.f.drop + this.f.duplicate) {
        this.count(m.t, 'duplicated');
        fate = ' DUPLICATED';
        now.push(m, structuredClone(m));
      } else if (r < this.f.drop + this.f.duplicate + this.f.delay) {
        this.count(m.t, 'delayed');
        // Held back a few event-loop turns: later messages overtake it.
        const turns = 1 + Math.floor(this.random() * 4);
        fate = ` DELAYED ${turns}`;
        const later = (n: number): void => void setImmediate(() => {
          if (n > 0) return later(n - 1);
          this.trace?.push(`${describe(dir, m)} (delayed, delivered)`);
          deliver([m]);
        });
        later(turns);
      } else {
        now.push(m);
      }
      this.trace?.push(describe(dir, m) + fate);
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
export async function settled<T>(p: Promise<T>, clock: ManualClock): Promise<T> {
  let done = false;
  void p.then(() => (done = true), () => (done = true));
  for (let i = 0; i < 600 && !done; i++) {
    await tick();
    if (!done) clock.advance(1000);
  }
  return p;
}

/** Bots on main's side: answer each pending roll of their seats with a random path, naming the roll's version; retry on 'busy'. */
async function playOut(
  games: ShardedGames, handles: GameHandle[], clock: ManualClock, random: () => number, resignAfter: Map<string, number>,
  count: { asked: number; answers: number },
): Promise<Map<string, MoveVerdict[]>> {
  const applied = new Map<string, MoveVerdict[]>(handles.map((h) => [h.id, []]));
  const inFlight = new Set<string>();
  for (let turn = 0; turn < 20_000 && handles.some((h) => games.get(h.id) !== undefined); turn++) {
    for (const h of handles) {
      const g = games.get(h.id);
      if (!g || inFlight.has(h.id)) continue;
      const after = resignAfter.get(h.id);
      if (after !== undefined && g.history().length >= after) {
        g.resign('White');
        resignAfter.delete(h.id);
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

/** 32 bytes from a seeded PRNG: a game's server seed, the same on every run of the seed. */
function seedBytes(random: () => number): () => Uint8Array {
  return () => Uint8Array.from({ length: 32 }, () => Math.floor(random() * 256));
}

/** Server seeds from a list (hex), in turn. */
function fromList(list: readonly string[]): () => Uint8Array {
  let i = 0;
  return () => Uint8Array.from(Buffer.from(list[i++ % list.length], 'hex'));
}

const hex = (random: () => number): string => Buffer.from(seedBytes(random)()).toString('hex');

/** What one run left behind, for the test's checks. */
export interface LossyRun {
  seed: number;
  handles: GameHandle[];
  pair: [GameHandle, GameHandle];
  /** The client seeds each single game was sent. */
  clientSeeds: Map<string, { white: string; black: string }>;
  resigned: string;
  /** Verdicts that applied a turn, by game. */
  applied: Map<string, MoveVerdict[]>;
  count: { asked: number; answers: number };
  clock: ManualClock;
  store: MemoryStore;
  games: ShardedGames;
  loopback: LoopbackTransport;
  tally: Tally;
  warnings: string[];
  /** Where each game is: the owner's record and main's replica. */
  where(id: string): string;
}

/**
 * One run: three single games (client seeds sent, one resigned after four turns) and a mirror pair,
 * on two shards, played out to their ends over a faulty transport; everything decided by `seed`.
 */
export async function lossyRun(seed: number, opts: { trace?: string[]; faults?: Faults; randomDice?: boolean; dice?: { single: string[]; pair: { serverSeed: string; clientSeeds: { white: string; black: string } } } } = {}): Promise<LossyRun> {
  const clock = new ManualClock();
  const store = new MemoryStore();
  const config = { ...DEFAULT_GAME_CONFIG, seedGraceMs: 120_000, maxRolls: 30, unlimitedCapMs: 3_600_000 };
  const random = prng(seed);
  const dice = prng(seed ^ 0x5eed);
  const loopback = new LoopbackTransport({
    clock, config, log: silentLogger, housePlayers: new Map(), storeFor: () => ({ mode: 'shared', games: store }), serverSeed: opts.randomDice ? undefined : opts.dice ? fromList(opts.dice.single) : seedBytes(dice),
  });
  const transport = new FaultyTransport(loopback, random, opts.faults ?? { drop: 0.08, duplicate: 0.08, delay: 0.2 }, opts.trace);
  const log = countingLog();
  let n = 0;
  const games = new ShardedGames({
    transport, shards: 2, store, forwarded: false, clock, config, listeners: [], newId: () => `s${seed}-g${++n}`, log,
  });
  const handles: GameHandle[] = [];
  const clientSeeds = new Map<string, { white: string; black: string }>();
  for (let i = 0; i < 3; i++) {
    const h = await settled(games.create({ white: seat(`w${i}`), black: seat(`b${i}`), timeControl: { Unlimited: {} }, rated: false }), clock);
    // Client seeds: the game waits for both (the grace is long), so a lost one would show.
    const s = { white: `${seed}-${i}-white-seed-0123456789abcdef`, black: `${seed}-${i}-black-seed-0123456789abcdef` };
    h.seed('White', s.white);
    h.seed('Black', s.black);
    clientSeeds.set(h.id, s);
    handles.push(h);
  }
  const fair = opts.dice?.pair ?? { serverSeed: hex(dice), clientSeeds: { white: hex(dice), black: hex(dice) } };
  const pair = await settled(games.createMirrorPair({ white: seat('pw'), black: seat('pb'), timeControl: { Unlimited: {} }, rated: true, ...(opts.randomDice ? {} : { fair }) }), clock);
  handles.push(...pair);
  const resigned = handles[2].id;
  const count = { asked: 0, answers: 0 };
  const applied = await playOut(games, handles, clock, random, new Map([[resigned, 4]]), count);
  for (let i = 0; i < 40 && count.answers < count.asked; i++) {
    clock.advance(1000);
    await tick();
  }
  const where = (id: string): string => {
    const owner = store.getGame(id) as GameRecord;
    const g = games.get(id) as GameReplica | undefined;
    return JSON.stringify({ v: owner.version, ply: owner.ply, dice: owner.dice, seq: g?.seq, head: g?.headSeq, syncing: g?.syncing, mainV: g?.record().version });
  };
  const run: LossyRun = {
    seed, handles, pair: [pair[0], pair[1]], clientSeeds, resigned, applied, count, clock, store, games, loopback, tally: transport.tally, warnings: log.warnings, where,
  };
  return run;
}

/** Stops a run's games (moving its clock while the stop waits). */
export async function stopRun(run: LossyRun): Promise<void> {
  await settled(run.games.stop(), run.clock);
}

/** What is wrong with a finished run (empty: nothing), for a loop over many seeds. */
export function problems(run: LossyRun): string[] {
  const out: string[] = [];
  if (run.count.answers !== run.count.asked) out.push(`${run.count.answers} answers to ${run.count.asked} moves`);
  for (const h of run.handles) {
    const owner = run.store.getGame(h.id)!;
    const main = run.games.find(h.id)!.record();
    if ('Active' in owner.status) out.push(`${h.id} did not end on its owner ${run.where(h.id)}`);
    if (JSON.stringify(main.history) !== JSON.stringify(owner.history)) out.push(`${h.id}: main's transcript differs ${run.where(h.id)}`);
    if (JSON.stringify(main.status) !== JSON.stringify(owner.status)) out.push(`${h.id}: main's ending differs`);
  }
  return out;
}
