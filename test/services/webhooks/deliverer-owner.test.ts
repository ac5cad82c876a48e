// The deliverer in a cluster, on real game actors with a client the test answers by hand: only the
// node that owns a game delivers its rolls (`delivers`); a game resumed here (taken over from another
// node) is watched afresh, so its pending roll is delivered again; and a roll whose move got no
// verdict ('busy': the owner overloaded, or gone with its node) is not marked delivered but delivered
// again, so the game never waits forever on a turn nobody will deliver; and a watch whose subscription
// the game's side ends while the game goes on (a cluster replica's resync) subscribes again while
// its node owns the game, so the game's later rolls are still delivered.
import t from 'tap';
import { ManualClock } from '../../../src/domain/clock.js';
import { DEFAULT_RATING, SCHEMA_VERSION, type BotRecord } from '../../../src/domain/records.js';
import type { GameHandle, GameSubscriber } from '../../../src/game/types.js';
import type { PostResult, WebhookClient } from '../../../src/services/webhooks/client.js';
import { WebhookDeliverer } from '../../../src/services/webhooks/deliverer.js';
import { DeliveryStats } from '../../../src/services/webhooks/stats.js';
import { parseMovesAnswer } from '../../../src/webhooks.js';
import { bot, leafPathsOf, MemoryStore, settle, setup } from '../../helpers/webhooks.js';

interface Call {
  body: Record<string, any>;
  answer(r: PostResult): void;
}

class HandClient implements WebhookClient {
  calls: Call[] = [];
  post(_url: string, body: string): Promise<PostResult> {
    return new Promise((resolve) => this.calls.push({ body: JSON.parse(body), answer: resolve }));
  }
  async close(): Promise<void> {}
}

/** Every White piece type can move whatever the dice, so White's opening roll is never a forced pass. */
const OPEN = '4k3/8/8/8/8/8/4P3/RNBQK3 w - - 0 1';

async function world(owns: () => boolean) {
  const store = new MemoryStore();
  const clock = new ManualClock();
  const client = new HandClient();
  const stats = new DeliveryStats();
  const deliverer = new WebhookDeliverer({
    store, client, stats, clock, parseMoves: parseMovesAnswer, answerCapMs: 30_000, maxInFlight: 10, maxInFlightPerBot: 10,
    maxQueuedPerBot: 10, maxQueued: 100, log: { warn: () => {} }, delivers: owns, retryBusyMs: 500,
  });
  // The deliverer is told of games by hand (as the cluster's ownedOnly filter would).
  const s = setup({ clock, store, config: { seedGraceMs: 0 } });
  const seat = bot('hooked');
  const rec: BotRecord = {
    schema: SCHEMA_VERSION, id: seat.id, team: 'test', name: 'hooked', tokenHash: 'hash-hooked', createdAt: 0, onLadder: false,
    rating: DEFAULT_RATING, webhook: { url: 'https://hooked.example/hook', secret: 'ab'.repeat(32), verifiedAt: '2026-01-01T00:00:00.000Z' },
  };
  await store.createBot(rec);
  const g = await s.registry.create({ white: seat, black: bot('other'), timeControl: { Unlimited: {} }, rated: false, startFen: OPEN });
  s.clock.advance(0);
  for (let i = 0; i < 200 && !g.state().dicePending; i++) await settle(1);
  return { s, store, clock, client, stats, deliverer, g };
}

const turn = (g: GameHandle): PostResult => {
  // The whole tree (the state's inline one is left out when large, as a random roll's may be).
  const moves = leafPathsOf(JSON.parse(g.moves().legalMovesJson) as never)[0];
  return { kind: 'answer', status: 200, body: JSON.stringify({ moves }), ms: 5 };
};

/** The game's handle, except that its moves get no verdict while `busy` says so. */
function flaky(g: GameHandle, busy: () => boolean): GameHandle {
  return new Proxy(g, {
    get(target, prop) {
      if (prop === 'move' && busy()) return async () => 'busy';
      const v = Reflect.get(target, prop, target);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}

t.test('only the owner delivers; a game resumed here is delivered again', async (t) => {
  let owner = false;
  const { s, client, deliverer, g } = await world(() => owner);
  deliverer.gameStarted(g);
  await settle();
  t.equal(client.calls.length, 0, 'not the owner: nothing delivered');
  owner = true;
  deliverer.gameResumed(g);
  await settle();
  t.equal(client.calls.length, 1, 'the game taken over here: its pending roll delivered');
  t.equal(client.calls[0].body.gameId, g.id);
  await s.registry.stop();
});

t.test('a move with no verdict is not marked delivered; the roll is delivered again and played once', async (t) => {
  let busy = true;
  const { s, store, clock, client, stats, deliverer, g } = await world(() => true);
  deliverer.gameStarted(flaky(g, () => busy));
  await settle();
  t.equal(client.calls.length, 1, 'delivered');
  client.calls[0].answer(turn(g));
  await settle();
  t.equal(g.history().length, 0, 'no verdict: nothing played');
  t.equal(store.webhookDelivered(g.id), undefined, 'not marked delivered');
  t.equal(stats.view(g.white.id).refused, 1, 'counted as refused');
  busy = false;
  clock.advance(500);
  await settle();
  t.equal(client.calls.length, 2, 'the same roll delivered again');
  t.equal(client.calls[1].body.state.version, client.calls[0].body.state.version, 'at the same version');
  client.calls[1].answer(turn(g));
  await settle();
  await s.registry.idle();
  t.equal(g.history().filter((h) => h.seat === 'White').length, 1, 'played once');
  t.equal(stats.view(g.white.id).applied, 1);
  await s.registry.stop();
});

/**
 * The game's handle, whose subscriptions the test can end while the game goes on, as a cluster
 * node's replica of it does on a gap in its owner's updates or a resync.
 */
function cuttable(g: GameHandle): { handle: GameHandle; cut(): void; subscriptions(): number } {
  let made = 0;
  const subs: { sub: GameSubscriber; unsubscribe(): void }[] = [];
  const handle = new Proxy(g, {
    get(target, prop) {
      if (prop === 'subscribe') {
        return (sub: GameSubscriber) => {
          const r = target.subscribe(sub);
          made++;
          subs.push({ sub, unsubscribe: r.unsubscribe });
          return r;
        };
      }
      const v = Reflect.get(target, prop, target);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  return {
    handle,
    subscriptions: () => made,
    cut: () => {
      for (const s of subs.splice(0)) {
        s.unsubscribe();
        s.sub.close?.();
      }
    },
  };
}

/** Plays Black's turns (not a webhook bot's) until White's next roll is pending. */
async function toWhitesRoll(g: GameHandle, after: number): Promise<boolean> {
  for (let i = 0; i < 400; i++) {
    const st = g.state();
    if (!('Active' in st.status)) return false;
    if (st.dicePending && st.activeSeat === 'White' && st.version > after) return true;
    if (st.dicePending && st.activeSeat === 'Black') {
      const moves = leafPathsOf(JSON.parse(g.moves().legalMovesJson) as never)[0];
      if (moves !== undefined) await g.move('Black', moves, st.version);
    }
    await settle(1);
  }
  return false;
}

t.test('a watch cut off while its game goes on subscribes again: the next roll is delivered', async (t) => {
  let owner = true;
  const { s, client, deliverer, g } = await world(() => owner);
  const { handle, cut, subscriptions } = cuttable(g);
  deliverer.gameStarted(handle);
  await settle();
  t.equal(client.calls.length, 1, 'the first roll delivered');
  const first = client.calls[0].body.state.version as number;
  // The subscription ends (the replica resyncs) while the delivery is in flight; the game goes on.
  cut();
  await settle();
  t.equal(client.calls.length, 1, 'the roll in flight is not delivered again from the fresh snapshot');
  client.calls[0].answer(turn(g));
  await settle();
  t.ok(await toWhitesRoll(g, first), 'White has its next roll');
  await settle();
  t.equal(client.calls.length, 2, 'the next roll delivered although the first subscription was cut off');
  t.ok(client.calls[1]?.body.state.version > first, 'at a later version');
  // Cut off again with a roll pending and nothing in flight: delivered once, not again.
  client.calls[1].answer({ kind: 'answer', status: 200, body: JSON.stringify({ moves: [] }), ms: 5 });
  await settle();
  cut();
  await settle();
  t.equal(client.calls.length, 2, 'a roll already delivered is not delivered again after a re-subscription');
  t.equal(subscriptions(), 3, 'subscribed again after each cut');
  // The game's shard moved to another node: that node delivers (told so when it takes the game over).
  owner = false;
  cut();
  await settle();
  t.equal(subscriptions(), 3, 'not the owner any more: not subscribed again');
  owner = true;
  deliverer.gameResumed(handle);
  t.equal(subscriptions(), 4, 'taken over again: watched afresh');
  await deliverer.stop();
  cut();
  await settle();
  t.equal(subscriptions(), 4, 'a stopped deliverer does not subscribe again');
  await s.registry.stop();
});
