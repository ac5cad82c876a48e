// Challenges over real HTTP: create (Unlimited by default, time controls validated), the account
// stream (ChallengeReceived with timeControl, ChallengeDeclined, GameStart), targetOnline, listing,
// accept (challenger White), decline and cancel, every refusal (400, 403, 404, 429) and expiry.
import t from 'tap';
import { ManualClock } from '../../src/domain/clock.js';
import { bootApp } from '../helpers/app.js';
import { Bot, type Json } from '../helpers/bot.js';
import { kindOf } from '../helpers/event-stream.js';
import { gameState } from '../helpers/games.js';
import { until } from '../helpers/poll.js';

const ref = (b: Bot) => ({ team: b.creds.team, name: b.creds.name });
const botP = (b: Bot) => ({ Bot: ref(b) });

t.test('a challenge: 201 Unlimited by default, ChallengeReceived with timeControl, accept → GameStart to both, challenger White', async (t) => {
  const app = await bootApp(t);
  const alice = await Bot.anon(app, 'alice');
  const bob = await Bot.anon(app, 'bob');
  const aliceEvents = await alice.accountStream();
  const bobEvents = await bob.accountStream();
  t.equal(bobEvents.status, 200);
  t.match(bobEvents.reader.headers['content-type'], /^application\/x-ndjson/);

  const c = await alice.challenge(ref(bob));
  t.equal(c.status, 201);
  const ch = c.json as Json;
  t.match(ch.id, /^[A-Za-z0-9_-]{11,}$/, 'an opaque id');
  t.same(ch.challenger, botP(alice));
  t.same(ch.target, botP(bob));
  t.same(ch.timeControl, { Unlimited: {} }, 'Unlimited when no time control is given');
  t.equal(ch.targetOnline, true, 'bob holds an account stream');

  const received = await bobEvents.next();
  t.same(received, { ChallengeReceived: { id: ch.id, challenger: botP(alice), timeControl: { Unlimited: {} }, color: 'white' } });

  const listB = (await bob.req('GET', '/bot/challenges')).json as Json;
  t.same(listB.out, []);
  t.same(listB.in.map((x: Json) => x.id), [ch.id], 'in: addressed to bob');
  const listA = (await alice.req('GET', '/bot/challenges')).json as Json;
  t.same(listA.in, []);
  t.same(listA.out.map((x: Json) => x.id), [ch.id], 'out: alice’s own');
  t.same(listA.out[0], ch, 'the listed challenge is the created one');

  const acc = await bob.accept(ch.id);
  t.equal(acc.status, 201);
  const gameId = (acc.json as Json).gameId;
  t.match(gameId, /^[A-Za-z0-9]{16}$/);
  t.same(acc.json, { gameId });
  const face = (b: Bot) => ({ id: `bot:team:${b.creds.team}:${b.creds.name}`, kind: 'Bot', name: `${b.creds.team} ${b.creds.name}` });
  const start = { gameId, timeControl: { Unlimited: {} }, rated: false };
  t.same(await aliceEvents.next(), { GameStart: { ...start, color: 'White', opponent: face(bob) } }, 'GameStart to the challenger');
  t.same(await bobEvents.next(), { GameStart: { ...start, color: 'Black', opponent: face(alice) } }, 'GameStart to the target');

  const state = await gameState(app, gameId);
  t.same(state.players, { white: { kind: 'Bot', name: `anon ${alice.creds.name}` }, black: { kind: 'Bot', name: `anon ${bob.creds.name}` } }, 'the challenger plays White');
  t.same(state.timeControl, { Unlimited: {} });
  t.equal(state.clocks, null);
  t.same((await alice.myGames()).map((g) => [g.gameId, g.seat]), [[gameId, 'White']]);
  t.same((await bob.myGames()).map((g) => [g.gameId, g.seat]), [[gameId, 'Black']]);
  t.same((await alice.req('GET', '/bot/challenges')).json, { in: [], out: [] }, 'an accepted challenge is no longer pending');

  const again = await bob.accept(ch.id);
  t.equal(again.status, 404, 'accepting it twice: no longer pending');
  t.equal((await alice.decline(ch.id)).status, 404, 'declining an accepted challenge: 404');
  aliceEvents.close();
  bobEvents.close();
});

t.test('time controls are carried and validated', async (t) => {
  const app = await bootApp(t);
  const alice = await Bot.anon(app, 'alice');
  const bob = await Bot.anon(app, 'bob');
  const good = [
    { SuddenDeath: { initialSeconds: 1 } },
    { Fischer: { initialSeconds: 86400, incrementSeconds: 600 } },
    { Fischer: { initialSeconds: 60, incrementSeconds: 0 } },
    { PerMove: { secondsPerMove: 30 } },
    { Unlimited: {} },
  ];
  const events = await bob.accountStream();
  for (const tc of good) {
    const r = await alice.challenge(ref(bob), tc as Json);
    t.equal(r.status, 201, JSON.stringify(tc));
    t.same((r.json as Json).timeControl, tc);
    const ev = await events.next();
    t.same(ev?.ChallengeReceived?.timeControl, tc, 'ChallengeReceived carries the time control');
    t.equal((await alice.decline((r.json as Json).id)).status, 200);
    t.same(await events.next(), { ChallengeDeclined: { id: (r.json as Json).id } }, 'the cancel reaches the target');
  }
  events.close();
  const bad: [Json, RegExp][] = [
    [{ SuddenDeath: { initialSeconds: 0 } }, /timeControl/],
    [{ SuddenDeath: { initialSeconds: 86401 } }, /timeControl/],
    [{ SuddenDeath: { initialSeconds: 1.5 } }, /timeControl/],
    [{ SuddenDeath: { initialSeconds: '60' } }, /timeControl/],
    [{ SuddenDeath: {} }, /timeControl/],
    [{ Fischer: { initialSeconds: 60, incrementSeconds: 601 } }, /timeControl/],
    [{ Fischer: { initialSeconds: 60 } }, /timeControl/],
    [{ Fischer: { initialSeconds: 60, incrementSeconds: -1 } }, /timeControl/],
    [{ PerMove: { secondsPerMove: 0 } }, /timeControl/],
    [{ Blitz: {} }, /timeControl/],
    [{ Unlimited: {}, PerMove: { secondsPerMove: 5 } }, /timeControl/],
    ['Unlimited', /timeControl/],
  ];
  for (const [tc, detail] of bad) {
    const r = await alice.req('POST', '/bot/challenge', { ...ref(bob), timeControl: tc });
    t.equal(r.status, 400, `refused: ${JSON.stringify(tc)}`);
    t.match((r.json as Json).detail, detail, `detail names the field: ${(r.json as Json).detail}`);
  }
  const wrongTypes: [Json, string][] = [
    [{ team: 5, name: 'x' }, 'team'],
    [{ team: 'anon', name: ['x'] }, 'name'],
    [{ name: 'x' }, 'team'],
  ];
  for (const [body, field] of wrongTypes) {
    const r = await alice.req('POST', '/bot/challenge', body);
    t.equal(r.status, 400, JSON.stringify(body));
    t.match((r.json as Json).detail, field, `detail names ${field}: ${(r.json as Json).detail}`);
  }
  const malformed = await app.req('POST', '/bot/challenge', { token: alice.token, body: '{"team":', headers: { 'content-type': 'application/json' } });
  t.equal(malformed.status, 400, 'malformed JSON');
  t.same((await alice.req('GET', '/bot/challenges')).json, { in: [], out: [] }, 'no refused challenge was created');
});

t.test('400 self-challenge, 404 unknown bot, targetOnline false for an offline target', async (t) => {
  const app = await bootApp(t);
  const alice = await Bot.anon(app, 'alice');
  const bob = await Bot.anon(app, 'bob');
  const self = await alice.challenge(ref(alice));
  t.equal(self.status, 400, 'challenging yourself');
  t.equal((self.json as Json).code, 'self_challenge');
  const ghost = await alice.challenge({ team: 'anon', name: 'nobody-00000000' });
  t.equal(ghost.status, 404, 'an unknown bot');
  t.equal((ghost.json as Json).code, 'unknown_bot');
  t.equal((await alice.challenge({ team: 'acme', name: 'unregistered' })).status, 404, 'an unregistered team/name');
  const off = await alice.challenge(ref(bob));
  t.equal(off.status, 201);
  t.equal((off.json as Json).targetOnline, false, 'bob holds no account stream');
  const stream = await bob.accountStream();
  const online = ((await alice.req('GET', '/bot/challenges')).json as Json).out[0];
  t.equal(online.targetOnline, true, 'listed again once bob holds a stream: online');
  stream.close();
  await stream.reader.closed;
  await until(async () => (((await alice.req('GET', '/bot/challenges')).json as Json).out[0].targetOnline === false ? true : undefined), 'bob offline');
  t.pass('offline again after the stream closed');
});

t.test('decline by the target and cancel by the challenger: 200 {}, ChallengeDeclined to the other side; 403 and 404', async (t) => {
  const app = await bootApp(t);
  const alice = await Bot.anon(app, 'alice');
  const bob = await Bot.anon(app, 'bob');
  const carol = await Bot.anon(app, 'carol');
  const aEv = await alice.accountStream();
  const bEv = await bob.accountStream();

  const c1 = (await alice.challenge(ref(bob))).json as Json;
  t.same(await bEv.next(), { ChallengeReceived: { id: c1.id, challenger: botP(alice), timeControl: { Unlimited: {} }, color: 'white' } });
  const byCarol = await carol.decline(c1.id);
  t.equal(byCarol.status, 403, 'a third party cannot decline');
  t.equal((byCarol.json as Json).code, 'not_your_challenge');
  const carolAccept = await carol.accept(c1.id);
  t.equal(carolAccept.status, 403, 'accepting a challenge addressed to someone else');
  t.equal((await alice.accept(c1.id)).status, 403, 'the challenger cannot accept its own challenge');
  const dec = await bob.decline(c1.id);
  t.equal(dec.status, 200);
  t.same(dec.json, {});
  t.same(await aEv.next(), { ChallengeDeclined: { id: c1.id } }, 'the challenger is told');
  t.equal((await bob.accept(c1.id)).status, 404, 'accept after decline: no longer pending');
  t.equal((await bob.decline(c1.id)).status, 404, 'decline twice: 404');

  const c2 = (await alice.challenge(ref(bob))).json as Json;
  t.equal(kindOf((await bEv.next())!), 'ChallengeReceived');
  const cancel = await alice.decline(c2.id);
  t.equal(cancel.status, 200, 'the challenger cancels');
  t.same(cancel.json, {});
  t.same(await bEv.next(), { ChallengeDeclined: { id: c2.id } }, 'the target is told');
  t.equal((await bob.accept(c2.id)).status, 404, 'accept after cancel: 404');

  t.equal((await bob.accept('no-such-challenge')).status, 404, 'unknown challenge id');
  t.equal((await bob.decline('no-such-challenge')).status, 404);
  t.same((await alice.req('GET', '/bot/challenges')).json, { in: [], out: [] });
  t.same(await alice.myGames(), [], 'no game was made');
  aEv.close();
  bEv.close();
});

t.test('the 11th pending challenge is 429 with Retry-After; settling one makes room', async (t) => {
  const clock = new ManualClock(undefined, { runDueTimers: true });
  const app = await bootApp(t, { clock });
  const alice = await Bot.anon(app, 'alice');
  const targets: Bot[] = [];
  for (let i = 0; i < 4; i++) targets.push(await Bot.anon(app, `t${i}`));
  const ids: string[] = [];
  for (let i = 0; i < 10; i++) {
    const r = await alice.challenge(ref(targets[i % 4]));
    t.equal(r.status, 201, `pending challenge ${i + 1}`);
    ids.push((r.json as Json).id);
    clock.advance(1000);
  }
  const eleventh = await alice.challenge(ref(targets[0]));
  t.equal(eleventh.status, 429, 'the 11th pending challenge');
  t.equal(eleventh.headers['retry-after'], '290', 'seconds until the oldest pending one expires (300 − 10)');
  t.equal((eleventh.json as Json).code, 'too_many_challenges');
  const other = await targets[1].challenge(ref(targets[0]));
  t.equal(other.status, 201, 'the cap is per challenger');
  t.equal((await alice.decline(ids[3])).status, 200);
  t.equal((await alice.challenge(ref(targets[0]))).status, 201, 'a cancelled one frees a place');
  t.equal((await alice.challenge(ref(targets[0]))).status, 429, 'full again');
  t.equal(((await alice.req('GET', '/bot/challenges')).json as Json).out.length, 10);
});

t.test('a challenge expires after 5 minutes: ChallengeDeclined to the challenger, then 404', async (t) => {
  const clock = new ManualClock(undefined, { runDueTimers: true });
  const app = await bootApp(t, { clock });
  const alice = await Bot.anon(app, 'alice');
  const bob = await Bot.anon(app, 'bob');
  const aEv = await alice.accountStream();
  const bEv = await bob.accountStream();
  const c = (await alice.challenge(ref(bob), { SuddenDeath: { initialSeconds: 60 } })).json as Json;
  t.equal(kindOf((await bEv.next())!), 'ChallengeReceived');
  clock.advance(299_999);
  t.equal(((await bob.req('GET', '/bot/challenges')).json as Json).in.length, 1, 'still pending just before 5 minutes');
  clock.advance(1);
  t.same(await aEv.next(), { ChallengeDeclined: { id: c.id } }, 'the challenger hears of the expiry');
  t.same((await bob.req('GET', '/bot/challenges')).json, { in: [], out: [] }, 'gone from the target’s list');
  t.same((await alice.req('GET', '/bot/challenges')).json, { in: [], out: [] }, 'gone from the challenger’s list');
  t.equal((await bob.accept(c.id)).status, 404, 'accept after expiry');
  t.equal((await bob.decline(c.id)).status, 404, 'decline after expiry');
  // Nothing else went to the target: the next thing on its stream is a fresh challenge.
  const c2 = (await alice.challenge(ref(bob))).json as Json;
  t.same((await bEv.next())?.ChallengeReceived?.id, c2.id, 'the target got no event for the expiry');
  aEv.close();
  bEv.close();
});

t.test('registered and house bots as targets; house bots accept on their own', async (t) => {
  // The games' first rolls wait for the seed grace (the test clock never gets there): with the dice
  // rolling at once, a run of forced passes could let a house bot take the king and end a game before
  // the live games are listed.
  const app = await bootApp(t, { overrides: { 'games.seedGraceMs': 600_000 } });
  const reg = await Bot.register(app, 'acme', 'target');
  const alice = await Bot.anon(app, 'alice');
  const events = await alice.accountStream();
  const r = await alice.challenge(ref(reg), { Fischer: { initialSeconds: 300, incrementSeconds: 3 } });
  t.equal(r.status, 201, 'a registered bot can be challenged by team and name');
  t.same((r.json as Json).target, { Bot: { team: 'acme', name: 'target' } });
  const gameId = ((await reg.accept((r.json as Json).id)).json as Json).gameId;
  t.same((await events.next())?.GameStart?.gameId, gameId);

  for (const name of ['random', 'greedy']) {
    const h = await alice.challenge({ team: 'house', name });
    t.equal(h.status, 201, `house/${name}`);
    t.equal((h.json as Json).targetOnline, true, 'built-in house bots count as online');
    const start = await events.next();
    t.equal(kindOf(start!), 'GameStart', `house/${name} accepted by itself`);
    const state = await gameState(app, start!.GameStart.gameId);
    t.same(state.players.black, { kind: 'Bot', name: `house ${name}` });
    t.same(state.players.white, { kind: 'Bot', name: `anon ${alice.creds.name}` }, 'the challenger is White');
  }
  t.same((await alice.myGames()).map((g) => g.seat), ['White', 'White', 'White']);
  t.equal((await alice.challenge({ team: 'house', name: 'nobody' })).status, 404, 'an unknown house bot');
  events.close();
});

t.test('an operator-configured house bot is challenged by name and accepts with its static token', async (t) => {
  const token = 'static-house-token-0123456789';
  const app = await bootApp(t, { overrides: { houseBots: `house|tester|${token}` } });
  const alice = await Bot.anon(app, 'alice');
  const tester = new Bot(app, { token, team: 'house', name: 'tester', id: 'bot:team:house:tester' });
  const c = await alice.challenge(ref(tester));
  t.equal(c.status, 201);
  t.equal((c.json as Json).targetOnline, false, 'a configured house bot is not auto-online');
  const inbox = (await tester.req('GET', '/bot/challenges')).json as Json;
  t.same(inbox.in.map((x: Json) => x.id), [(c.json as Json).id], 'it finds the challenge by polling');
  const acc = await tester.accept((c.json as Json).id);
  t.equal(acc.status, 201);
  const gameId = (acc.json as Json).gameId;
  t.same((await tester.myGames()).map((g) => [g.gameId, g.seat]), [[gameId, 'Black']]);
  t.equal((await tester.resign(gameId)).status, 202, 'and it plays through the same game routes');
});

t.test('two account streams of one identity both receive events', async (t) => {
  const app = await bootApp(t);
  const alice = await Bot.anon(app, 'alice');
  const bob = await Bot.anon(app, 'bob');
  const one = await bob.accountStream();
  const two = await bob.accountStream();
  const c = (await alice.challenge(ref(bob))).json as Json;
  t.equal((await one.next())?.ChallengeReceived?.id, c.id);
  t.equal((await two.next())?.ChallengeReceived?.id, c.id);
  one.close();
  two.close();
});

t.test('racing accepts and declines: exactly one of them wins, one game at most', async (t) => {
  const app = await bootApp(t);
  const alice = await Bot.anon(app, 'alice');
  const bob = await Bot.anon(app, 'bob');
  const c1 = ((await alice.challenge(ref(bob))).json as Json).id;
  const both = await Promise.all([bob.accept(c1), bob.accept(c1), bob.accept(c1)]);
  t.same(both.map((r) => r.status).sort(), [201, 404, 404], 'one accept wins');
  const c2 = ((await alice.challenge(ref(bob))).json as Json).id;
  const mixed = await Promise.all([bob.accept(c2), alice.decline(c2)]);
  t.ok(mixed.filter((r) => r.status === 404).length === 1, `accept vs cancel: one of them finds it gone (${mixed.map((r) => r.status)})`);
  const games = await alice.myGames();
  t.equal(games.length, mixed[0].status === 201 ? 2 : 1, 'a game per winning accept, no more');
});
