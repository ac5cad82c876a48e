// The deliverer on real game actors with a client the test answers by hand: deliveries run with a
// bounded number in flight and at most one per game waiting; a delivery that never answers holds
// neither its game's actor nor another game; the wait is min(answer cap, the mover's clock); the
// answer is submitted through the game handle exactly as the move route does.
import t from 'tap';
import { ManualClock } from '../../../src/domain/clock.js';
import { DEFAULT_RATING, SCHEMA_VERSION, type BotRecord } from '../../../src/domain/records.js';
import type { TimeControl } from '../../../src/domain/types.js';
import type { PostResult, WebhookClient } from '../../../src/services/webhooks/client.js';
import { WebhookDeliverer } from '../../../src/services/webhooks/deliverer.js';
import { DeliveryStats } from '../../../src/services/webhooks/stats.js';
import { parseMovesAnswer } from '../../../src/webhooks.js';
import { bot, leafPathsOf, MemoryStore, settle, setup, type Setup } from './support.js';

interface Call {
  url: string;
  body: Record<string, any>;
  waitMs: number;
  answer(r: PostResult): void;
}

class HandClient implements WebhookClient {
  calls: Call[] = [];
  open = 0;
  post(url: string, body: string, _h: Record<string, string>, waitMs: number): Promise<PostResult> {
    this.open++;
    return new Promise((resolve) =>
      this.calls.push({ url, body: JSON.parse(body), waitMs, answer: (r) => { this.open--; resolve(r); } }),
    );
  }
  async close(): Promise<void> {}
}

async function world(opts: { maxInFlight: number; capMs: number; perBot?: number; queuedPerBot?: number; queued?: number }) {
  const store = new MemoryStore();
  const client = new HandClient();
  const stats = new DeliveryStats();
  const clock = new ManualClock();
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
