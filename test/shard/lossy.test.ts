// The shard protocol over a transport that is not reliable: real shard hosts in this thread
// (LoopbackTransport) behind a wrapper that, on a seed, drops, duplicates and delays (so reorders)
// every message, commands and replies alike (test/helpers/lossy-games.ts). Whole games (single games
// with client seeds, mirror pairs, resignations) still end with the same transcript on the owner (its
// store) and on main (the replica), every move gets exactly one answer, and nothing is left waiting on
// either side. Every run is fixed by its seed (faults, moves, dice): a failure replays. Also: a game
// whose last update and the reports after it are all lost is caught up; the owner's clock alone
// charges the mover.
import t from 'tap';
import { ManualClock } from '../../src/domain/clock.js';
import { silentLogger } from '../../src/domain/log.js';
import type { LegalMoveTree } from '../../src/domain/types.js';
import { DEFAULT_GAME_CONFIG } from '../../src/game/game-config.js';
import { leafPaths } from '../../src/game/house.js';
import { MemoryStore } from '../../src/store/memory.js';
import type { Command, ShardReply } from '../../src/shard/protocol/messages.js';
import { ShardedGames } from '../../src/shard/main/sharded-games.js';
import { LoopbackTransport } from '../../src/shard/loopback-transport.js';
import { type ShardEvents, type ShardTransport } from '../../src/shard/protocol/transport.js';
import type { GameReplica } from '../../src/shard/main/replica.js';
import { tick } from '../helpers/poll.js';
import { lossyRun, stopRun, type Tally } from '../helpers/lossy-games.js';

const seat = (id: string) => ({ id, face: { kind: 'Bot' as const, name: `t ${id}` }, participant: { Bot: { team: 't', name: id } } });

t.test('whole games over a transport that drops, repeats and reorders every message: same transcript on owner and main, one answer per move', async (t) => {
  const faulted: Tally = new Map();
  for (const seed of [1, 2, 3, 4, 5]) {
    const run = await lossyRun(seed);
    const { count, store, games, handles, pair } = run;
    t.equal(count.answers, count.asked, `seed ${seed}: every move got exactly one answer (${count.answers} of ${count.asked})`);
    for (const h of handles) {
      const owner = store.getGame(h.id)!;
      const main = games.find(h.id)!.record();
      t.ok(!('Active' in owner.status), `seed ${seed}: ${h.id} ended on its owner (${run.where(h.id)})`);
      t.same(main.history, owner.history, `seed ${seed}: ${h.id}: main's transcript is the owner's (${owner.history.length} turns)`);
      t.same(main.status, owner.status, `seed ${seed}: ${h.id}: the same ending`);
      // A retried turn answers its original verdict (same version): every applied version is a turn of the transcript.
      const played = new Set(run.applied.get(h.id)!.map((v) => v.version));
      t.ok(played.size <= owner.history.length, `seed ${seed}: ${h.id}: ${played.size} distinct turns applied, ${owner.history.length} in the transcript`);
      const s = run.clientSeeds.get(h.id);
      if (s) t.same(owner.clientSeeds, s, `seed ${seed}: ${h.id}: both client seeds arrived`);
    }
    t.match(store.getGame(run.resigned)!.status, { Ended: { over: { termination: 'Resign' } } }, `seed ${seed}: the resignation arrived`);
    t.equal(pair[0].record().mirrorOf, pair[1].id, `seed ${seed}: a mirror pair played`);
    await stopRun(run);
    t.equal(games.waiting(), 0, `seed ${seed}: nothing is left waiting on main`);
    t.same(run.loopback.hosts.map((h) => h.busy()), [0, 0], `seed ${seed}: nothing is left running on the shards`);
    for (const [kind, c] of run.tally) {
      const f = faulted.get(kind) ?? { dropped: 0, duplicated: 0, delayed: 0 };
      faulted.set(kind, { dropped: f.dropped + c.dropped, duplicated: f.duplicated + c.duplicated, delayed: f.delayed + c.delayed });
    }
    t.ok(run.warnings.some((w) => /resync/.test(w)), `seed ${seed}: at least one gap was resynced (${run.warnings.length})`);
  }
  // Every kind of message that flows in a game was dropped, duplicated and delayed (a pair is made
  // once a seed: dropped, then its resend duplicated).
  for (const kind of ['create', 'pair', 'game', 'sync', 'stop', 'started', 'update', 'answer', 'done', 'synced', 'heads']) {
    const f = faulted.get(kind);
    t.ok(f && f.dropped > 0 && f.duplicated > 0 && (f.delayed > 0 || kind === 'pair'), `${kind} faulted: ${JSON.stringify(f)}`);
  }
});

/**
 * Loses, for one game, the update of its first roll and the first `reports` heads that name the game
 * after it: main's replica sees no gap (no later update comes while the game waits on the move).
 */
class LastUpdateLost implements ShardTransport {
  lostHeads = 0;
  lostUpdate = false;

  constructor(private readonly inner: ShardTransport, private readonly id: string, private readonly reports: number) {}

  open(index: number, events: ShardEvents) {
    const channel = this.inner.open(index, {
      replies: (batch) => {
        const kept = batch.filter((r) => !this.lose(r));
        if (kept.length > 0) events.replies(kept);
      },
      died: (err) => events.died(err),
    });
    return { send: (batch: Command[]) => channel.send(batch), close: () => channel.close() };
  }

  private lose(r: ShardReply): boolean {
    if (r.t === 'update' && r.id === this.id && !this.lostUpdate && r.tree) return (this.lostUpdate = true);
    if (r.t === 'heads' && this.lostUpdate && this.lostHeads < this.reports && r.seqs.some(([id]) => id === this.id)) {
      this.lostHeads++;
      return true;
    }
    return false;
  }
}

t.test('a game whose last update and the reports after it were all lost is caught up on main', async (t) => {
  const clock = new ManualClock(undefined, { runDueTimers: true });
  const store = new MemoryStore();
  const config = { ...DEFAULT_GAME_CONFIG, seedGraceMs: 0 };
  // Fixed dice: the first roll leaves White a move to make (the game waits on it).
  const loopback = new LoopbackTransport({
    clock, config, log: silentLogger, housePlayers: new Map(), storeFor: () => ({ mode: 'shared', games: store }), serverSeed: () => new Uint8Array(32).fill(7),
  });
  // The game's first roll (the game then waits for White's move) and the next five reports that name
  // it are lost: more reports than the owner used to send after an update.
  const transport = new LastUpdateLost(loopback, 'l1', 5);
  const games = new ShardedGames({ transport, shards: 1, store, forwarded: false, clock, config, listeners: [], newId: () => 'l1', log: silentLogger });
  const h = await games.create({ white: seat('w'), black: seat('b'), timeControl: { Unlimited: {} }, rated: false });
  for (let i = 0; i < 100 && !transport.lostUpdate; i++) await tick();
  t.ok(transport.lostUpdate, 'the first roll\'s update was lost');
  const g = games.get('l1') as GameReplica;
  for (let i = 0; i < 30 && !g.state().dicePending; i++) {
    clock.advance(1000);
    for (let j = 0; j < 5; j++) await tick();
  }
  t.equal(transport.lostHeads, 5, 'the reports naming it were lost');
  t.ok(g.state().dicePending, `main shows the roll the game waits on (seq ${g.seq}, owner's version ${store.getGame('l1')!.version})`);
  t.equal(g.record().version, store.getGame('l1')!.version, 'main holds the owner\'s version');
  const s = g.state();
  if (s.dicePending) {
    const v = await h.move(s.activeSeat, leafPaths(JSON.parse(h.moves().legalMovesJson) as LegalMoveTree)[0], s.version);
    t.ok(v !== 'busy' && v.applied, 'and the game goes on');
  }
  await games.stop();
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
