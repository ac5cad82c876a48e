// The deliverer on real game actors with a client the test answers by hand: deliveries run with a
// bounded number in flight and at most one per game waiting; a delivery that never answers holds
// neither its game's actor nor another game; the wait is min(answer cap, the mover's clock); the
// answer is submitted through the game handle exactly as the move route does. Fairness: bots whose
// receivers are slow do not delay an instant bot's calls, the time a roll waits in the queue is not
// charged to its mover, and the queues are bounded per bot and in total.
import t from 'tap';
import { ManualClock } from '../../../src/domain/clock.js';
import { DEFAULT_RATING, SCHEMA_VERSION, type BotRecord } from '../../../src/domain/records.js';
import type { SeatPlayer, TimeControl } from '../../../src/domain/types.js';
import type { GameHandle } from '../../../src/game/types.js';
import type { PostResult, WebhookClient } from '../../../src/services/webhooks/client.js';
import { WebhookDeliverer } from '../../../src/services/webhooks/deliverer.js';
import { DeliveryStats } from '../../../src/services/webhooks/stats.js';
import { parseMovesAnswer } from '../../../src/webhooks.js';
import { bot, leafPathsOf, MemoryStore, settle, setup, type Setup } from '../../helpers/webhooks.js';

interface Call {
  url: string;
  /** The pool the call asked for (the bot's id). */
  owner?: string;
  /** When the call left (the test's clock). */
  at: number;
  body: Record<string, any>;
  waitMs: number;
  answer(r: PostResult): void;
}

class HandClient implements WebhookClient {
  calls: Call[] = [];
  open = 0;
  constructor(private readonly clock: ManualClock) {}
  post(url: string, body: string, _h: Record<string, string>, waitMs: number, owner?: string): Promise<PostResult> {
    this.open++;
    const at = this.clock.now();
    return new Promise((resolve) =>
      this.calls.push({ url, owner, at, body: JSON.parse(body), waitMs, answer: (r) => { this.open--; resolve(r); } }),
    );
  }
  async close(): Promise<void> {}
}

async function world(opts: { maxInFlight: number; capMs: number; perBot?: number; queuedPerBot?: number; queued?: number }) {
  const store = new MemoryStore();
  const clock = new ManualClock();
  const client = new HandClient(clock);
  const stats = new DeliveryStats();
  const deliverer = new WebhookDeliverer({
    store, client, stats, clock, parseMoves: parseMovesAnswer,
    answerCapMs: opts.capMs, maxInFlight: opts.maxInFlight, maxInFlightPerBot: opts.perBot ?? 100,
    maxQueuedPerBot: opts.queuedPerBot ?? 100, maxQueued: opts.queued ?? 1000, log: { warn: () => {} },
  });
  const s: Setup = setup({ clock, store, listeners: [deliverer], config: { seedGraceMs: 0 } });
  return { s, store, client, stats, deliverer };
}

async function hookedBot(store: MemoryStore, name: string): Promise<ReturnType<typeof bot>> {
  const seat = bot(name);
  const rec: BotRecord = {
    schema: SCHEMA_VERSION, id: seat.id, team: 'test', name, tokenHash: `hash-${name}`, createdAt: 0, onLadder: false,
    rating: DEFAULT_RATING, webhook: { url: `https://${name}.example/hook`, secret: 'ab'.repeat(32), verifiedAt: '2026-01-01T00:00:00.000Z' },
  };
  await store.createBot(rec);
  return seat;
}

/** Lets the games roll: settles until every game has its roll pending (bounded). */
async function rolled(s: Setup, games: { state(): { dicePending: boolean } }[]): Promise<void> {
  s.clock.advance(0);
  for (let i = 0; i < 200 && !games.every((g) => g.state().dicePending); i++) await settle(1);
  await s.registry.idle();
  await settle();
}

/** Every White piece type can move whatever the dice, so White's opening roll is never a forced pass. */
const OPEN = '4k3/8/8/8/8/8/4P3/RNBQK3 w - - 0 1';

const answer = (moves: string[]): PostResult => ({ kind: 'answer', status: 200, body: JSON.stringify({ moves }), ms: 5 });

t.test('bounded in flight, one waiting per game, and a hung call holds nothing else', async (t) => {
  const { s, store, client, deliverer, stats } = await world({ maxInFlight: 2, capMs: 30_000 });
  const games = [];
  for (let i = 0; i < 5; i++) {
    const white = await hookedBot(store, `w${i}`);
    games.push(await s.registry.create({ white, black: bot(`b${i}`), timeControl: { Unlimited: {} }, rated: false, startFen: OPEN }));
  }
  await rolled(s, games);
  t.equal(client.calls.length, 2, 'two deliveries in flight');
  t.equal(deliverer.pending(), 5, `three more waiting, one per game (${deliverer.pending()})`);
  t.same(client.calls.map((c) => c.body.gameId), games.slice(0, 2).map((g) => g.id));
  // The actors are free while their deliveries hang: their mailboxes are empty and they answer.
  await s.registry.idle();
  t.ok(games.every((g) => g.state().dicePending), 'every game is waiting on its roll, not on a delivery');

  // The second call answers; the first still hangs. Its slot goes to the third game at once.
  const second = client.calls[1];
  const tree = JSON.parse(games[1].moves().legalMovesJson);
  second.answer(answer(leafPathsOf(tree)[0]));
  for (let i = 0; i < 200 && games[1].history().length === 0; i++) await settle(1);
  await settle();
  await s.registry.idle();
  t.same(stats.view(games[1].white.id), { ...stats.view(games[1].white.id), applied: 1 }, 'game 2’s answer was applied');
  t.ok(games[1].history()[0]?.moves.length > 0, 'game 2 played its turn while game 1’s bot hangs');
  t.equal(stats.view(games[1].white.id).applied, 1);
  t.equal(client.calls.length, 3, 'the freed slot went to the next waiting game');
  t.equal(client.calls[2].body.gameId, games[2].id);
  t.equal(client.open, 2, 'still two in flight');
  client.calls[0].answer({ kind: 'timeout', ms: 30_000 });
  await settle();
  t.equal(stats.view(games[0].white.id).timeout, 1);
  t.equal(client.open, 2, 'the next one started');
  await s.registry.stop();
});

t.test('the wait is the smaller of the cap and the mover’s clock', async (t) => {
  const { s, store, client } = await world({ maxInFlight: 10, capMs: 30_000 });
  const tcs: [TimeControl, number][] = [
    [{ Fischer: { initialSeconds: 10, incrementSeconds: 0 } }, 10_000],
    [{ Fischer: { initialSeconds: 600, incrementSeconds: 0 } }, 30_000],
    [{ Unlimited: {} }, 30_000],
  ];
  const games = [];
  for (const [i, [timeControl]] of tcs.entries()) {
    games.push(await s.registry.create({ white: await hookedBot(store, `c${i}`), black: bot(`d${i}`), timeControl, rated: false, startFen: OPEN }));
  }
  await rolled(s, games);
  t.same(client.calls.map((c) => c.waitMs), tcs.map(([, w]) => w));
  t.ok(client.calls.every((c) => c.body.type === 'yourTurn' && c.body.seat === 'White'), 'yourTurn for White');
  await s.registry.stop();
});

t.test('every answer goes through the move path: declined plays nothing, illegal is refused', async (t) => {
  const { s, store, client, stats } = await world({ maxInFlight: 10, capMs: 30_000 });
  const white = await hookedBot(store, 'judge');
  const g = await s.registry.create({ white, black: bot('other'), timeControl: { Unlimited: {} }, rated: false, startFen: OPEN });
  await rolled(s, [g]);
  client.calls[0].answer(answer(['e2e9']));
  await settle();
  t.equal(stats.view(white.id).refused, 1, 'an illegal turn is refused');
  t.equal(g.history().length, 0, 'nothing played');
  t.equal(client.calls.length, 1, 'and the roll is not delivered again');
  t.equal(store.webhookDelivered(g.id), g.record().ply, 'the finished delivery is recorded');
  await s.registry.stop();
});

t.test('an answer with a version is judged against that roll: another roll\'s version is refused, the right one applied', async (t) => {
  const { s, store, client, stats } = await world({ maxInFlight: 10, capMs: 30_000 });
  const white = await hookedBot(store, 'versioned');
  const g = await s.registry.create({ white, black: bot('other2'), timeControl: { Unlimited: {} }, rated: false, startFen: OPEN });
  await rolled(s, [g]);
  const v = g.state().version;
  t.equal(client.calls[0].body.state.version, v, 'the delivery carries the version to answer with');
  const path = leafPathsOf(JSON.parse(g.moves().legalMovesJson))[0];
  const withVersion = (version: number): PostResult => ({ kind: 'answer', status: 200, body: JSON.stringify({ moves: path, version }), ms: 5 });
  client.calls[0].answer(withVersion(v + 7));
  await settle();
  await s.registry.idle();
  t.equal(stats.view(white.id).refused, 1, 'a version that is not the pending roll\'s is refused');
  t.equal(g.history().length, 0, 'a legal path with the wrong version is not played');
  t.equal(g.state().version, v, 'and it publishes nothing');
  const verdict = await g.move('White', path, v);
  t.same(verdict, { applied: true, version: v + 1, reason: null }, 'the same path with the roll\'s version is applied');
  t.same(await g.move('White', path, v), verdict, 'and a retry of it gets the same verdict');
  await s.registry.stop();
});

t.test('one slow bot with many games cannot take every slot', async (t) => {
  const { s, store, client, deliverer } = await world({ maxInFlight: 3, perBot: 2, capMs: 30_000 });
  const slow = await hookedBot(store, 'slow');
  const games = [];
  for (let i = 0; i < 4; i++) {
    games.push(await s.registry.create({ white: slow, black: bot(`s${i}`), timeControl: { Unlimited: {} }, rated: false, startFen: OPEN }));
  }
  const other = await hookedBot(store, 'other');
  games.push(await s.registry.create({ white: other, black: bot('o'), timeControl: { Unlimited: {} }, rated: false, startFen: OPEN }));
  await rolled(s, games);
  const to = (c: Call) => c.url.split('/')[2];
  t.same(client.calls.map(to), ['slow.example', 'slow.example', 'other.example'], 'the slow bot holds 2 slots; the other bot gets the third');
  t.equal(deliverer.pending(), 5, 'two of the slow bot’s games wait');
  client.calls[2].answer({ kind: 'answer', status: 500, body: '', ms: 1 });
  client.calls[0].answer({ kind: 'timeout', ms: 30_000 });
  await settle();
  t.same(client.calls.slice(3).map(to), ['slow.example'], 'a slow slot freed goes to the slow bot’s next game');
  t.equal(client.open, 2);
  await s.registry.stop();
});

const START = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';
const FIVE_MINUTES: TimeControl = { Fischer: { initialSeconds: 300, incrementSeconds: 0 } };
const SLOW_MS = 28_000;

/**
 * Two instant bots play one game with deliveries scaled down to 16 slots, 8 per bot; with `slow`, two
 * bots whose receivers answer legally after 28 s play 16 games between them as well. Time runs in 1 s
 * steps: every open call to an instant bot is answered at once (its first 20 turns), every slow call
 * 28 s after it left. Returns whether the instant game played 20 turns (or ended), how long each instant turn waited between its roll and its call leaving,
 * the calls' pool owners, and the instant game's banks at the end.
 */
async function instantBots(slow: boolean) {
  const { s, store, client } = await world({ maxInFlight: 16, perBot: 8, capMs: 30_000 });
  const byId = new Map<string, GameHandle>();
  const create = async (white: SeatPlayer, black: SeatPlayer, timeControl: TimeControl, startFen = OPEN) => {
    const g = await s.registry.create({ white, black, timeControl, rated: false, startFen });
    byId.set(g.id, g);
    return g;
  };
  if (slow) {
    const [a, b] = [await hookedBot(store, 'slow-a'), await hookedBot(store, 'slow-b')];
    for (let i = 0; i < 8; i++) {
      await create(a, b, { Unlimited: {} });
      await create(b, a, { Unlimited: {} });
    }
  }
  const game = await create(await hookedBot(store, 'quick-a'), await hookedBot(store, 'quick-b'), FIVE_MINUTES, START);
  await rolled(s, [...byId.values()]);
  const waits: number[] = [];
  const answered = new Set<Call>();
  const play = (c: Call): void => {
    answered.add(c);
    const g = byId.get(c.body.gameId)!;
    c.answer(answer(leafPathsOf(JSON.parse(g.moves().legalMovesJson))[0]));
  };
  for (let second = 0; second < 90; second++) {
    for (let round = 0; round < 50; round++) {
      const open = client.calls.filter((c) => !answered.has(c));
      const quick = open.filter((c) => c.body.gameId === game.id && waits.length < 20);
      const due = open.filter((c) => c.body.gameId !== game.id && s.clock.now() - c.at >= SLOW_MS);
      if (quick.length + due.length === 0) break;
      for (const c of quick) {
        waits.push(c.at - byId.get(c.body.gameId)!.record().clockStartedAt!);
        play(c);
      }
      for (const c of due) play(c);
      for (let i = 0; i < 20; i++) await settle(1);
      await s.registry.idle();
      await settle();
    }
    s.clock.advance(1000);
    await settle();
  }
  const owners = new Set(client.calls.filter((c) => c.body.gameId === game.id).map((c) => c.owner));
  // The banks as of the pending roll's start (what earlier turns were charged; the running turn is not).
  const banks = game.record().clocks;
  const done = waits.length === 20 || !game.isActive();
  await s.registry.stop();
  return { waits, done, owners, banks, ids: [game.white.id, game.black.id] };
}

const p99 = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.max(0, Math.ceil(xs.length * 0.99) - 1)];

t.test('slow bots do not delay an instant bot: its turns wait as long as when it runs alone, and its clock is not charged', async (t) => {
  const alone = await instantBots(false);
  const crowded = await instantBots(true);
  t.ok(alone.done, 'alone, the instant bots play 20 turns or to the end of their game');
  t.ok(crowded.done, `beside the slow bots too (${crowded.waits.length} turns)`);
  t.equal(p99(crowded.waits), p99(alone.waits), `p99 of the wait before a call leaves: ${p99(crowded.waits)} ms beside slow bots, ${p99(alone.waits)} ms alone`);
  t.same(crowded.banks, alone.banks, 'the instant game’s clocks read the same as when it runs alone');
  t.same(crowded.banks, { white: 300_000, black: 300_000 }, 'answered at once: no time charged');
  t.same([...crowded.owners].sort(), [...crowded.ids].sort(), 'each bot’s calls ask for its own connection pool');
});

t.test('a roll’s wait in the server’s queue is credited back to the mover’s clock, and only that wait', async (t) => {
  // One slot: the instant bot's roll waits 10 s behind a slow call, then is answered 3 s after its call left.
  const { s, store, client, stats } = await world({ maxInFlight: 1, capMs: 30_000 });
  const slow = await s.registry.create({ white: await hookedBot(store, 'hog'), black: bot('h'), timeControl: { Unlimited: {} }, rated: false, startFen: OPEN });
  await rolled(s, [slow]);
  const quick = await s.registry.create({ white: await hookedBot(store, 'prompt'), black: bot('p'), timeControl: FIVE_MINUTES, rated: false, startFen: OPEN });
  await rolled(s, [quick]);
  t.equal(client.calls.length, 1, 'the instant bot’s roll waits for the one slot');
  s.clock.advance(10_000);
  client.calls[0].answer({ kind: 'timeout', ms: 10_000 });
  await settle();
  t.equal(client.calls.length, 2, 'its call leaves when the slot frees');
  t.equal(client.calls[1].at - quick.record().clockStartedAt!, 10_000, 'after 10 s in the queue');
  s.clock.advance(3_000);
  client.calls[1].answer(answer(leafPathsOf(JSON.parse(quick.moves().legalMovesJson))[0]));
  for (let i = 0; i < 200 && quick.history().length === 0; i++) await settle(1);
  await s.registry.idle();
  t.equal(stats.view(quick.white.id).applied, 1, 'the answer was played');
  t.equal(quick.record().clocks?.white, 300_000 - 3_000, 'White is charged the 3 s its receiver took, not the 10 s in the queue');
  await s.registry.stop();
});

t.test('the queues are bounded per bot and in total: past a bound a roll is not queued, and counted', async (t) => {
  const { s, store, client, deliverer } = await world({ maxInFlight: 1, capMs: 30_000, queuedPerBot: 1, queued: 2 });
  const [a, b, c] = [await hookedBot(store, 'qa'), await hookedBot(store, 'qb'), await hookedBot(store, 'qc')];
  const games = [];
  for (const [i, white] of [a, a, a, b, b, c].entries()) {
    games.push(await s.registry.create({ white, black: bot(`q${i}`), timeControl: { Unlimited: {} }, rated: false, startFen: OPEN }));
  }
  await rolled(s, games);
  // a: one in flight, one waiting, one past its own bound; b: one waiting, one past its own bound; c: past the total.
  t.equal(client.calls.length, 1);
  t.equal(deliverer.pending(), 3, 'one in flight and two waiting');
  t.equal(deliverer.droppedCount(), 3, 'three rolls were not queued');
  client.calls[0].answer({ kind: 'timeout', ms: 30_000 });
  await settle();
  client.calls[1].answer({ kind: 'timeout', ms: 30_000 });
  await settle();
  t.same(client.calls.map((c) => c.owner), [a.id, a.id, b.id], 'the waiting rolls are delivered, bots in the order they queued');
  t.equal(deliverer.pending(), 1, 'and nothing else was queued');
  await s.registry.stop();
});
