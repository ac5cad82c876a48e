// The ladder scheduler over a real registry and identity service on a ManualClock: who is eligible
// (on the ladder, reachable, a free seat), the games it starts (mirror pairs for two free seats each,
// single games otherwise, rated, Fischer 300+3, GameStart on the account streams), never the same pair twice in a row, the interval, leaving,
// and removal after four ladder games in a row lost on time.
import t from 'tap';
import type { BotRecord, GameRecord } from '../../../src/domain/records.js';
import type { Principal } from '../../../src/domain/types.js';
import type { GameHandle } from '../../../src/game/types.js';
import { AccountHub } from '../../../src/services/account-hub.js';
import { GameAdmission, type GameCaps } from '../../../src/services/game-admission.js';
import { IdentityService } from '../../../src/services/identity.js';
import { LadderScheduler, TIME_LOSS_REASON } from '../../../src/services/ladder-scheduler.js';
import { Presence } from '../../../src/services/presence.js';
import { bot, settle, setup } from '../../helpers/game.js';
import { prng } from '../../helpers/prng.js';
import { Sink } from '../../helpers/services.js';

const INTERVAL = 10_000;

function world(caps?: Partial<GameCaps>) {
  const hub = new AccountHub();
  let scheduler!: LadderScheduler;
  const s = setup({ listeners: [hub, { gameEnded: (g, r) => scheduler.gameEnded(g, r) }] });
  const identity = new IdentityService(s.store, s.clock);
  const presence = new Presence(s.clock);
  const admission = caps ? new GameAdmission({ live: s.registry, tierOf: (id) => identity.tierOf(id) }, caps) : undefined;
  scheduler = new LadderScheduler(
    { store: s.store, identity, games: s.registry, hub, presence, admission, clock: s.clock, random: prng(1), log: s.logs },
    { pairIntervalMs: INTERVAL },
  );
  /** A registered bot on the ladder with this capacity, holding an account stream (unless told not to). */
  const join = async (name: string, opts: { capacity?: number; online?: boolean; rating?: number } = {}) => {
    const reg = await identity.register('lad', name);
    if (!reg.ok) throw new Error('register failed');
    const p: Principal = { id: reg.value.id, tier: 'registered', team: 'lad', name };
    await identity.ladderJoin(p);
    await identity.editBot(p.id, (b) => ({
      ...b, capacity: opts.capacity ?? 2, rating: { ...b.rating, rating: opts.rating ?? b.rating.rating },
    }));
    const sink = new Sink();
    if (opts.online !== false) hub.subscribe(p.id, sink);
    return { p, sink };
  };
  const botOf = (id: string): BotRecord => s.store.getBot(id)!;
  return { ...s, hub, identity, presence, scheduler, join, botOf };
}

const opponents = (w: ReturnType<typeof world>, id: string): string[] =>
  w.registry.liveFor(id).map((g) => (g.white.id === id ? g.black.id : g.white.id));

t.test('a round pairs eligible bots into mirror pairs; both learn both games', async (t) => {
  const w = world();
  const a = await w.join('a', { rating: 1500 });
  const b = await w.join('b', { rating: 1510 });
  const c = await w.join('c', { rating: 1900 });
  const d = await w.join('d', { rating: 1890 });
  t.equal(await w.scheduler.round(), 2, 'two pairs');
  await settle();
  t.same(opponents(w, a.p.id).sort(), [b.p.id, b.p.id], 'a plays b twice (closest rating)');
  t.same(opponents(w, c.p.id).sort(), [d.p.id, d.p.id], 'c plays d twice');
  const [g1, g2] = w.registry.liveFor(a.p.id);
  t.ok(g1.rated && g2.rated, 'rated');
  t.same(g1.timeControl, { Fischer: { initialSeconds: 300, incrementSeconds: 3 } });
  t.equal(g1.record().mirrorOf, g2.id, 'the two games are each other’s mirror');
  t.same([g1.seatOf(a.p.id), g2.seatOf(a.p.id)].sort(), ['Black', 'White'], 'a has each colour once');
  for (const x of [a, b]) {
    const starts = x.sink.events().filter((e) => 'GameStart' in (e as object));
    t.same(starts.map((e) => (e as { GameStart: { gameId: string } }).GameStart.gameId).sort(), [g1.id, g2.id].sort(), 'GameStart for both games');
  }
  t.equal(w.botOf(a.p.id).ladderLastOpponent, b.p.id, 'the pairing is remembered');
  t.equal(await w.scheduler.round(), 0, 'capacity 2 is full: no more pairs');
});

t.test('capacity: one free seat gets a single game, two each a mirror pair, never beyond it', async (t) => {
  const w = world();
  await w.join('big', { capacity: 5 });
  const one = await w.join('one', { capacity: 1 });
  for (const name of ['x', 'y', 'z']) await w.join(name, { capacity: 2 });
  t.same(w.scheduler.eligible().map((b) => b.name).sort(), ['big', 'one', 'x', 'y', 'z'], 'capacity 1 is eligible too');
  t.equal(await w.scheduler.round(), 2, 'five eligible: two pairings, one bot left over');
  await w.join('late', { capacity: 2 });
  for (let i = 0; i < 6; i++) await w.scheduler.round();
  for (const b of w.store.listBots()) t.ok(w.scheduler.inGames(b.id) <= (b.capacity ?? 1), `${b.name} within its capacity`);
  t.equal(w.scheduler.inGames(one.p.id), 1, 'capacity 1: seated in one game');
  const single = w.registry.liveFor(one.p.id)[0];
  t.equal(single.record().mirrorOf, null, 'which is a single game');
  t.ok(single.rated, 'rated');
  t.same(single.timeControl, { Fischer: { initialSeconds: 300, incrementSeconds: 3 } }, 'at the ladder’s time control');
  t.equal(single.state().ladder, 'single', 'its state says so');
  for (const g of w.registry.live()) {
    const partner = g.record().mirrorOf;
    if (partner === null) continue;
    t.equal(g.state().ladder, 'mirror', 'a mirror pair’s game says so');
    t.ok(w.registry.get(partner), 'and its partner runs');
  }
});

t.test('bots at the default capacity are paired for single games, colours evened out', async (t) => {
  const w = world();
  const a = await w.join('a', { capacity: 1 });
  const b = await w.join('b', { capacity: 1 });
  const c = await w.join('c', { capacity: 1 });
  t.equal(await w.scheduler.round(), 1, 'one single game; the third bot waits');
  await settle();
  const [g] = w.registry.live();
  t.equal(w.registry.live().length, 1, 'exactly one game');
  t.equal(g.record().mirrorOf, null, 'a single game');
  const white = g.white.id;
  const colours = w.botOf(white).ladderColours;
  t.same(colours, { white: 1, black: 0 }, 'White is counted');
  t.same(w.botOf(g.black.id).ladderColours, { white: 0, black: 1 }, 'and Black');
  const seated = [g.white.id, g.black.id];
  const waiting = [a, b, c].find((x) => !seated.includes(x.p.id))!;
  for (const x of [a, b, c]) {
    const starts = x.sink.events().filter((e) => 'GameStart' in (e as object)).length;
    t.equal(starts, x === waiting ? 0 : 1, `${x.p.name}: ${x === waiting ? 'no' : 'one'} GameStart`);
  }
  // The game ends (White resigns); the next round pairs the bot that waited with one of the two
  // (they just met), and that one takes the colour it did not have.
  g.resign('White');
  await settle();
  t.equal(await w.scheduler.round(), 1, 'the next round pairs again');
  await settle();
  const [h] = w.registry.live();
  t.equal(w.registry.live().length, 1);
  t.ok([h.white.id, h.black.id].includes(waiting.p.id), 'the bot that waited plays now');
  const again = [h.white.id, h.black.id].find((id) => id !== waiting.p.id)!;
  if (again === white) t.equal(h.black.id, white, 'the bot that had White takes Black');
  else t.equal(h.white.id, again, 'the bot that had Black takes White');
  t.same(w.scheduler.started, { mirror: 0, single: 2 }, 'the scheduler counts what it started');
});

t.test('never the same pair twice in a row', async (t) => {
  const w = world();
  const a = await w.join('a', { capacity: 32 });
  const b = await w.join('b', { capacity: 32 });
  t.equal(await w.scheduler.round(), 1);
  t.equal(await w.scheduler.round(), 0, 'only each other left: no second pairing in a row');
  const c = await w.join('c', { capacity: 32 });
  const pairs: string[] = [];
  for (let i = 0; i < 6; i++) {
    const before = new Set(w.registry.live().map((g) => g.id));
    await w.scheduler.round();
    const fresh = w.registry.live().filter((g) => !before.has(g.id));
    pairs.push(...new Set(fresh.map((g) => [g.white.id, g.black.id].sort().join('+'))));
  }
  t.ok(pairs.length >= 3, 'pairings were made');
  for (const x of [a, b, c]) {
    const mine = pairs.filter((p) => p.includes(x.p.id));
    for (let i = 1; i < mine.length; i++) t.not(mine[i], mine[i - 1], `${x.p.name}: consecutive pairings differ`);
  }
});

t.test('reachability: stream, verified webhook or a request within the last minute', async (t) => {
  const w = world();
  const away = await w.join('away', { online: false });
  const hook = await w.join('hook', { online: false });
  await w.join('here');
  t.same(w.scheduler.eligible().map((b) => b.name), ['here'], 'only the streaming bot is reachable');
  t.equal(await w.scheduler.round(), 0, 'nobody to pair with: nothing starts');
  await w.identity.editBot(hook.p.id, (b) => ({ ...b, webhook: { url: 'https://example.invalid/h', secret: 's', verifiedAt: '2026-01-01T00:00:00Z' } }));
  w.presence.touch(away.p.id);
  t.same(w.scheduler.eligible().map((b) => b.name).sort(), ['away', 'here', 'hook']);
  w.clock.advance(60_001);
  t.same(w.scheduler.eligible().map((b) => b.name).sort(), ['here', 'hook'], 'a minute later the polling bot is away again');
});

t.test('the interval: rounds run every pairIntervalMs; stop ends them', async (t) => {
  const w = world();
  await w.join('a', { capacity: 32 });
  w.scheduler.start();
  await w.join('b', { capacity: 32 });
  w.clock.advance(INTERVAL - 1);
  await settle();
  t.equal(w.registry.live().length, 0, 'nothing before the interval');
  w.clock.advance(1);
  await settle();
  t.equal(w.registry.live().length, 2, 'a mirror pair after one interval');
  await w.join('c', { capacity: 32 });
  w.clock.advance(INTERVAL);
  await settle();
  t.equal(w.registry.live().length, 4, 'another pair after the next interval');
  await w.scheduler.stop();
  await w.join('d', { capacity: 32 });
  w.clock.advance(5 * INTERVAL);
  await settle();
  t.equal(w.registry.live().length, 4, 'no rounds after stop');
});

t.test('leaving stops new pairings; running games go on', async (t) => {
  const w = world();
  const a = await w.join('a', { capacity: 8 });
  const b = await w.join('b', { capacity: 8 });
  await w.scheduler.round();
  const mine = w.registry.liveFor(a.p.id);
  t.equal(mine.length, 2, 'a plays one pair');
  await w.identity.ladderLeave(a.p);
  const c = await w.join('c', { capacity: 8 });
  for (let i = 0; i < 3; i++) await w.scheduler.round();
  t.equal(w.registry.liveFor(a.p.id).length, 2, 'no new games for a bot that left');
  t.same(opponents(w, c.p.id), [b.p.id, b.p.id], 'the rounds did pair the others');
  t.ok(mine.every((g) => g.isActive()), 'its running games continue');
});

t.test('four ladder games in a row lost on time take the bot off the ladder', async (t) => {
  const w = world();
  const slow = await w.join('slow', { capacity: 32 });
  const opp = await w.join('opp', { capacity: 32 });
  const ended = (seq: number, loserSlow: boolean, termination: 'Timeout' | 'Resign' | 'Aborted', rated = true): GameRecord => {
    const white = bot('slow', 'lad');
    const black = bot('opp', 'lad');
    return {
      schema: 1, id: `g${seq}`, white, black, timeControl: { Fischer: { initialSeconds: 300, incrementSeconds: 3 } }, rated,
      createdAt: 0, serverSeed: '00', commit: '00', clientSeeds: { white: null, black: null }, ply: 0, fen: '', activeSeat: 'White',
      dice: null, clocks: null, clockStartedAt: null, version: 1, history: [], revealedSeeds: null, finishedAt: 1, mirrorOf: `m${seq}`,
      status: { Ended: { over: termination === 'Aborted' ? { result: { Draw: {} }, termination } : { result: { Win: { side: loserSlow ? 'Black' : 'White' } }, termination } } },
    };
  };
  const feed = async (rec: GameRecord) => {
    w.scheduler.gameEnded(undefined as unknown as GameHandle, rec);
    await settle();
  };
  for (let i = 0; i < 3; i++) await feed(ended(i, true, 'Timeout'));
  t.equal(w.botOf(slow.p.id).ladderTimeLosses, 3);
  await feed(ended(3, true, 'Resign'));
  t.equal(w.botOf(slow.p.id).ladderTimeLosses, 0, 'a loss by resignation ends the run');
  await feed(ended(4, true, 'Aborted'));
  await feed(ended(5, true, 'Timeout', false));
  for (let i = 6; i < 9; i++) await feed(ended(i, true, 'Timeout'));
  t.ok(w.botOf(slow.p.id).onLadder, 'three in a row (aborted and unrated games do not count): still on');
  t.equal(w.botOf(opp.p.id).ladderTimeLosses ?? 0, 0, 'the winner has no run');
  await feed(ended(9, true, 'Timeout'));
  const off = w.botOf(slow.p.id);
  t.equal(off.onLadder, false, 'the fourth takes it off');
  t.equal(off.offLadderReason, TIME_LOSS_REASON, 'and says why');
  t.same(slow.sink.events().filter((e) => 'LadderRemoved' in (e as object)), [{ LadderRemoved: { reason: TIME_LOSS_REASON } }], 'an account event says why');
  t.notOk(w.scheduler.eligible().some((b) => b.id === slow.p.id), 'no longer paired');
  await w.identity.ladderJoin(slow.p);
  const back = w.botOf(slow.p.id);
  t.same([back.onLadder, back.offLadderReason, back.ladderTimeLosses], [true, null, 0], 'it may rejoin; the reason is cleared');
});

t.test('a real pair where nobody moves: each bot loses one game on time and wins the other', async (t) => {
  const w = world();
  const a = await w.join('a');
  const b = await w.join('b');
  await w.scheduler.round();
  await settle();
  // Nobody moves: in each game White (a in one, b in the other) runs out of its 300 s.
  w.clock.advance(301_000);
  await settle();
  t.equal(w.registry.live().length, 0, 'both games ended');
  // The game that ends second decides: its loser's run is 1, its winner's run was broken by the win.
  const runs = [w.botOf(a.p.id).ladderTimeLosses, w.botOf(b.p.id).ladderTimeLosses].sort();
  t.same(runs, [0, 1], 'one run of 1, one broken by the win');
  t.ok(w.store.listBots().every((x) => x.onLadder), 'both still on the ladder');
});

t.test('a round whose store fails resolves with no pairs and is logged; the next round works', async (t) => {
  const w = world();
  await w.join('a');
  await w.join('b');
  const listBots = w.store.listBots.bind(w.store);
  w.store.listBots = () => {
    throw new Error('disk on fire');
  };
  t.equal(await w.scheduler.round(), 0, 'no pairs, no rejection');
  t.match(w.logs.errors().join('\n'), /ladder round failed.*disk on fire/);
  w.store.listBots = listBots;
  t.equal(await w.scheduler.round(), 1, 'the next round pairs');
});

t.test('the live-games caps hold over capacity: no pair that would pass a bot’s cap', async (t) => {
  const w = world({ perIdentity: { anonymous: 16, registered: 3, guest: 2 } });
  for (const name of ['a', 'b', 'c']) await w.join(name, { capacity: 32 });
  t.equal(await w.scheduler.round(), 1, 'a first pair');
  const paired = w.store.listBots().filter((b) => w.scheduler.inGames(b.id) === 2);
  t.equal(paired.length, 2);
  t.equal(await w.scheduler.round(), 0, 'a pair for the third bot would take one of the others to 4 games, over the cap of 3');
  t.ok(w.store.listBots().every((b) => w.scheduler.inGames(b.id) <= 3), 'nobody over the cap');
});
