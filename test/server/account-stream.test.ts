// The account stream over real HTTP: its catch-up on connect (pending challenges, live games,
// unanswered event invitations, each once even when it is published while the stream opens), the
// richer lines (GameStart's seat, opponent and time controls, GameFinish, ChallengeDeclined's
// reason), and the challenger's colour.
import t from 'tap';
import { bootApp } from '../helpers/app.js';
import { Bot, type Json } from '../helpers/bot.js';
import type { EventStream } from '../helpers/event-stream.js';
import { gameState } from '../helpers/games.js';
import { until } from '../helpers/poll.js';
import { HOUSE_RANDOM, UNLIMITED } from '../helpers/tournaments.js';

const ref = (b: Bot) => ({ team: b.creds.team, name: b.creds.name });
const opponent = (b: Bot) => ({ id: b.id, kind: 'Bot', name: `${b.creds.team} ${b.creds.name}` });
const HOLD = { 'games.seedGraceMs': 600_000 };

/** Every line up to and including the first that `pred` accepts. */
async function upTo(s: EventStream, pred: (ev: Json) => boolean): Promise<Json[]> {
  const seen: Json[] = [];
  for (;;) {
    const ev = await s.next();
    if (ev === undefined) throw new Error(`stream ended; saw ${JSON.stringify(seen)}`);
    seen.push(ev);
    if (pred(ev)) return seen;
  }
}

t.test('a stream opened after a challenge was made gets its ChallengeReceived first', async (t) => {
  const app = await bootApp(t);
  const alice = await Bot.anon(app, 'alice');
  const bob = await Bot.anon(app, 'bob');
  const c = (await alice.req('POST', '/bot/challenge', { ...ref(bob), color: 'black', timeControl: { PerMove: { secondsPerMove: 30 } } })).json as Json;
  const events = await bob.accountStream();
  t.teardown(() => events.close());
  t.same(await events.next(), {
    ChallengeReceived: { id: c.id, challenger: { Bot: ref(alice) }, timeControl: { PerMove: { secondsPerMove: 30 } }, color: 'black' },
  }, 'replayed, colour included');
  // Nothing else was pending: the next line is a live one.
  await alice.decline(c.id);
  t.same(await events.next(), { ChallengeDeclined: { id: c.id } }, 'then the live lines');
});

t.test('a stream opened while a game is live gets its GameStart, with seat, opponent and time control', async (t) => {
  const app = await bootApp(t, { overrides: HOLD });
  const alice = await Bot.anon(app, 'alice');
  const bob = await Bot.anon(app, 'bob');
  const fischer = { Fischer: { initialSeconds: 300, incrementSeconds: 2 } };
  const gameId = await alice.playAgainst(bob, fischer);
  const a = await alice.accountStream();
  const b = await bob.accountStream();
  t.teardown(() => { a.close(); b.close(); });
  t.same(await a.next(), { GameStart: { gameId, color: 'White', opponent: opponent(bob), timeControl: fischer, rated: false } });
  t.same(await b.next(), { GameStart: { gameId, color: 'Black', opponent: opponent(alice), timeControl: fischer, rated: false } });
  // GameFinish when it ends, to both seats, with the ending as the game stream tells it.
  t.equal((await bob.resign(gameId)).status, 202);
  const over = { result: { Win: { side: 'White' } }, termination: 'Resign' };
  t.same(await a.next(), { GameFinish: { gameId, color: 'White', opponent: opponent(bob), over } }, 'GameFinish to the winner');
  t.same(await b.next(), { GameFinish: { gameId, color: 'Black', opponent: opponent(alice), over } }, 'GameFinish to the loser');
  const ended = await gameState(app, gameId);
  t.same(ended.status, { Ended: { over } }, 'the same ending as the game’s status');
  // A new stream has nothing to catch up on any more: its first line is a live one.
  const again = await alice.accountStream();
  t.teardown(() => again.close());
  const c = (await bob.challenge(ref(alice))).json as Json;
  t.same((await again.next())?.ChallengeReceived?.id, c.id, 'an ended game is not replayed');
});

t.test('a pending event invitation is replayed; an answered one is not', async (t) => {
  const app = await bootApp(t);
  const host = await Bot.register(app, 'acme', 'host');
  const alpha = await Bot.register(app, 'acme', 'alpha');
  const make = async (name: string) => {
    const r = await host.req('POST', '/events', { name, format: 'match', players: [ref(alpha), HOUSE_RANDOM], timeControl: UNLIMITED });
    t.equal(r.status, 201, r.text);
    return (r.json as Json).eventId as string;
  };
  const first = await make('first');
  const second = await make('second');
  t.equal((await alpha.req('POST', `/events/${first}/decline`)).status, 200);
  const events = await alpha.accountStream();
  t.teardown(() => events.close());
  t.same(await events.next(), {
    EventInvitation: {
      eventId: second, name: 'second', format: 'match', host: ref(host), rated: false, invitation: 'invited', timeControl: UNLIMITED, timeOdds: false,
    },
  }, 'the unanswered invitation, as it was first sent');
  const c = (await host.challenge(ref(alpha))).json as Json;
  t.same((await events.next())?.ChallengeReceived?.id, c.id, 'the declined one is not replayed');
});

t.test('a challenge made while the stream opens reaches it exactly once', async (t) => {
  // The stream is held after it subscribed and before it reads its catch-up: the challenge made then
  // is both published live (held) and listed as pending (the catch-up).
  let arrived!: () => void;
  const atGate = new Promise<void>((r) => (arrived = r));
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  const app = await bootApp(t, {
    catchUpHold: async () => {
      arrived();
      await gate;
    },
  });
  const alice = await Bot.anon(app, 'alice');
  const bob = await Bot.anon(app, 'bob');
  const opening = bob.accountStream();
  await atGate;
  const c = (await alice.challenge(ref(bob))).json as Json;
  t.equal(c.targetOnline, true, 'the stream is subscribed before its catch-up');
  open();
  const events = await opening;
  t.teardown(() => events.close());
  t.same((await events.next())?.ChallengeReceived?.id, c.id, 'first, from the catch-up');
  // A marker published after: the next line must be it, not the held copy of the challenge.
  const d = (await alice.challenge(ref(bob))).json as Json;
  t.same((await events.next())?.ChallengeReceived?.id, d.id, 'the held copy was dropped');
});

t.test('a decline carries its reason; a reason not in the list is 400 and declines nothing', async (t) => {
  const app = await bootApp(t);
  const alice = await Bot.anon(app, 'alice');
  const bob = await Bot.anon(app, 'bob');
  const events = await alice.accountStream();
  t.teardown(() => events.close());
  const c = (await alice.challenge(ref(bob))).json as Json;
  for (const bad of [{ reason: 'because' }, { reason: 5 }, { reason: 'x'.repeat(5000) }]) {
    const r = await bob.req('POST', `/bot/challenge/${c.id}/decline`, bad);
    t.equal(r.status, 400, JSON.stringify(bad).slice(0, 40));
    t.equal((r.json as Json).code, 'invalid_body');
    t.match((r.json as Json).detail, /reason/);
  }
  t.equal(((await bob.req('GET', '/bot/challenges')).json as Json).in.length, 1, 'still pending');
  t.equal((await bob.req('POST', `/bot/challenge/${c.id}/decline`, { reason: 'tooSlow' })).status, 200);
  t.same(await events.next(), { ChallengeDeclined: { id: c.id, reason: 'tooSlow' } });
  const d = (await alice.challenge(ref(bob))).json as Json;
  t.equal((await bob.decline(d.id)).status, 200, 'no body at all: still fine');
  t.same(await events.next(), { ChallengeDeclined: { id: d.id } }, 'no reason, no field');
});

t.test('the challenger’s colour: white and black honoured, random drawn, anything else 400', async (t) => {
  const app = await bootApp(t, { overrides: HOLD });
  const alice = await Bot.anon(app, 'alice');
  const bob = await Bot.anon(app, 'bob');
  const seatOf = async (color?: string): Promise<string> => {
    const r = await alice.req('POST', '/bot/challenge', { ...ref(bob), ...(color ? { color } : {}) });
    t.equal(r.status, 201, r.text);
    t.equal((r.json as Json).color, color ?? 'white', 'the challenge shows it');
    const listed = ((await bob.req('GET', '/bot/challenges')).json as Json).in[0];
    t.equal(listed.color, color ?? 'white', 'so does the list');
    const gameId = ((await bob.accept((r.json as Json).id)).json as Json).gameId;
    const mine = await until(async () => (await alice.myGames()).find((g) => g.gameId === gameId), 'the game');
    await alice.resign(gameId);
    return mine.seat;
  };
  t.equal(await seatOf(), 'White', 'default: as before');
  t.equal(await seatOf('white'), 'White');
  t.equal(await seatOf('black'), 'Black');
  t.ok(['White', 'Black'].includes(await seatOf('random')));
  for (const bad of ['red', 'White', 5, null]) {
    const r = await alice.req('POST', '/bot/challenge', { ...ref(bob), color: bad });
    t.equal(r.status, 400, JSON.stringify(bad));
    t.match((r.json as Json).detail, /color/);
  }
});
