import t from 'tap';
import { ManualClock } from '../../src/domain/clock.js';
import type { Principal } from '../../src/domain/types.js';
import {
  IdentityService, builtInHouseBotIds, parseHouseBotsEnv, slugLabel, type TokenResponse,
} from '../../src/services/identity.js';
import { hashToken } from '../../src/services/tokens.js';
import { flush, gatedStore, laggingStore, newStore } from '../helpers/services.js';

const DAY = 24 * 60 * 60 * 1000;
const HOUSE_TOKEN = 'operator-token-0123456789';

function setup(config: ConstructorParameters<typeof IdentityService>[2] = {}) {
  const store = newStore();
  const clock = new ManualClock();
  const ids = new IdentityService(store, clock, {
    staticBots: [{ team: 'house', name: 'ext', token: HOUSE_TOKEN }],
    ...config,
  });
  return { store, clock, ids };
}

async function registered(ids: IdentityService, team = 'acme', name = 'bot1'): Promise<TokenResponse> {
  const r = await ids.register(team, name);
  if (!r.ok) throw new Error(r.error.code);
  return r.value;
}

t.test('anonymous display names: slug table', async (t) => {
  const table: [string | undefined, string][] = [
    [undefined, ''],
    ['', ''],
    ['MyBot', 'mybot'],
    ['my bot v2', 'my-bot-v2'],
    ['  spaced  ', 'spaced'],
    ['a!!!b', 'a-b'],
    ['a--b', 'a--b'],
    ['--edge--', 'edge'],
    ['Ünïcødé bot', 'n-c-d-bot'],
    ['日本語', ''],
    ['😀bot😀', 'bot'],
    ['tab\there\nnew\u0000line', 'tab-here-new-line'],
    ['!!!', ''],
    ['abcdefghijklmnopqrstuvwxyz', 'abcdefghijklmnopqrst'],
    ['abcdefghijklmnopqrs-tuv', 'abcdefghijklmnopqrs'], // the cut leaves a trailing hyphen: trimmed
    ['abcdefghijklmnopq---xyz', 'abcdefghijklmnopq'],
    ['x'.repeat(10_000), 'x'.repeat(20)],
  ];
  for (const [label, slug] of table) t.equal(slugLabel(label), slug, JSON.stringify(label));
});

t.test('mintAnon: name = slug-<8 hex>, or bot-<8 hex>; team anon; external id', async (t) => {
  const { ids } = setup();
  const a = ids.mintAnon('My Bot!');
  t.match(a.name, /^my-bot-[0-9a-f]{8}$/);
  t.equal(a.team, 'anon');
  t.equal(a.id, `bot:team:anon:${a.name}`);
  t.match(a.token, /^dcb_[A-Za-z0-9_-]{32}$/);
  t.match(ids.mintAnon().name, /^bot-[0-9a-f]{8}$/);
  t.match(ids.mintAnon('').name, /^bot-[0-9a-f]{8}$/);
  t.match(ids.mintAnon('日本語').name, /^bot-[0-9a-f]{8}$/);
  t.match(ids.mintAnon('y'.repeat(50)).name, /^y{20}-[0-9a-f]{8}$/);
  // The result always satisfies the register slug rule, so it is a valid team/name pair.
  for (const label of ['A', '-x-', 'é', 'a'.repeat(40)]) t.match(ids.mintAnon(label).name, /^[a-z0-9][a-z0-9-]{0,31}$/);
});

t.test('anonymous tokens authenticate for 24 hours, then stop', async (t) => {
  const { ids, clock } = setup();
  const a = ids.mintAnon('x');
  t.same(ids.authenticate(a.token), { id: a.id, tier: 'anonymous', team: 'anon', name: a.name });
  t.ok(ids.findBot('anon', a.name), 'a live anonymous bot can be challenged');
  clock.advance(DAY - 1);
  t.ok(ids.authenticate(a.token));
  clock.advance(1);
  t.equal(ids.authenticate(a.token), null);
  t.equal(ids.findBot('anon', a.name), null, 'an expired anonymous bot is gone');
});

t.test('anonymous identities are bounded: expired ones go first, then the oldest', async (t) => {
  const { ids, clock } = setup({ maxAnonIdentities: 3, anonTtlMs: 1000 });
  const a = ids.mintAnon('a');
  const b = ids.mintAnon('b');
  clock.advance(600);
  const c = ids.mintAnon('c');
  t.ok(ids.authenticate(a.token) && ids.authenticate(b.token) && ids.authenticate(c.token));
  const d = ids.mintAnon('d'); // full: the oldest (a) makes room
  t.equal(ids.authenticate(a.token), null);
  t.ok(ids.authenticate(b.token));
  t.equal(ids.findBot('anon', a.name), null);
  clock.advance(500); // b has expired (1100 ms old), c and d live
  const e = ids.mintAnon('e');
  t.equal(ids.authenticate(b.token), null);
  t.ok(ids.authenticate(c.token), 'the sweep removed the expired one instead of a live one');
  t.ok(ids.authenticate(d.token));
  t.ok(ids.authenticate(e.token));
});

t.test('register: reserved teams, invalid slugs, taken identities', async (t) => {
  const { ids } = setup();
  for (const team of ['anon', 'house']) {
    const r = await ids.register(team, 'x');
    t.same(r.ok ? null : [r.error.kind, r.error.code], ['bad_request', 'reserved_team']);
  }
  for (const [team, name] of [['Acme', 'x'], ['acme', '-x'], ['acme', 'a'.repeat(33)], ['', 'x']]) {
    const r = await ids.register(team, name);
    t.same(r.ok ? null : [r.error.kind, r.error.code], ['bad_request', 'invalid_slug'], `${team}/${name}`);
  }
  const first = await registered(ids, 'acme', 'bot1');
  t.same({ ...first, token: undefined }, { token: undefined, team: 'acme', name: 'bot1', id: 'bot:team:acme:bot1' });
  t.match(first.token, /^dcb_[A-Za-z0-9_-]{32}$/);
  const again = await ids.register('acme', 'bot1');
  t.same(again.ok ? null : [again.error.kind, again.error.code], ['conflict', 'identity_taken']);
  // Two racing registrations of one pair: exactly one wins (the store's createBot is atomic).
  const race = await Promise.all([ids.register('race', 'x'), ids.register('race', 'x')]);
  t.equal(race.filter((r) => r.ok).length, 1);
});

t.test('register stores only the token hash and the default rating', async (t) => {
  const { ids, store } = setup();
  const r = await registered(ids);
  const bot = store.getBot(r.id);
  t.equal(bot?.tokenHash, hashToken(r.token));
  t.notMatch(JSON.stringify(bot), r.token);
  t.same(bot?.rating, { rating: 1500, rd: 350, volatility: 0.06 });
  t.equal(bot?.onLadder, false);
});

t.test('authenticate: each tier, and unknown tokens', async (t) => {
  const { ids } = setup();
  const reg = await registered(ids);
  t.same(ids.authenticate(reg.token), { id: reg.id, tier: 'registered', team: 'acme', name: 'bot1' });
  t.same(ids.authenticate(HOUSE_TOKEN), { id: 'bot:team:house:ext', tier: 'static', team: 'house', name: 'ext' });
  const seat = ids.issueGuestSeatToken('G1');
  t.same(ids.authenticate(seat), { id: 'guest:G1', tier: 'guest', team: 'guest', name: 'G1' });
  t.equal(ids.authenticate(''), null);
  t.equal(ids.authenticate('dcb_nope'), null);
  t.equal(ids.authenticate(hashToken(reg.token)), null, 'the stored hash is not a token');
});

t.test('guest seat tokens expire and are bounded', async (t) => {
  const { ids, clock } = setup({ guestTokenTtlMs: 1000, maxGuestTokens: 2 });
  const a = ids.issueGuestSeatToken('A');
  ids.addGuestSeatToken('fixed-token-value-1', 'B');
  ids.addGuestSeatToken('fixed-token-value-1', 'B'); // idempotent
  t.ok(ids.authenticate(a));
  t.same(ids.authenticate('fixed-token-value-1')?.id, 'guest:B');
  ids.issueGuestSeatToken('C'); // full: the oldest (A) goes
  t.equal(ids.authenticate(a), null);
  clock.advance(1000);
  t.equal(ids.authenticate('fixed-token-value-1'), null);
});

t.test('rotate: registered only; the old token stops at once', async (t) => {
  const { ids } = setup();
  const reg = await registered(ids);
  const p = ids.authenticate(reg.token) as Principal;
  const r = await ids.rotate(p, reg.token);
  t.ok(r.ok);
  const fresh = r.ok ? r.value.token : '';
  t.match(fresh, /^dcb_[A-Za-z0-9_-]{32}$/);
  t.equal(ids.authenticate(reg.token), null);
  t.same(ids.authenticate(fresh), p);

  const anon = ids.authenticate(ids.mintAnon().token) as Principal;
  const house = ids.authenticate(HOUSE_TOKEN) as Principal;
  const guest = ids.authenticate(ids.issueGuestSeatToken('G')) as Principal;
  for (const who of [anon, house, guest]) {
    const x = await ids.rotate(who, 'whatever-they-sent');
    t.same(x.ok ? null : [x.error.kind, x.error.code], ['forbidden', 'registered_only'], who.tier);
  }
  // A principal whose record vanished (not reachable through the API, but not a crash either).
  const ghost = await ids.rotate({ id: 'bot:team:gone:x', tier: 'registered', team: 'gone', name: 'x' }, 'x');
  t.same(ghost.ok ? null : ghost.error.kind, 'unauthorized');
});

t.test('ladder join/leave: registered only, answers from the stored rating', async (t) => {
  const { ids, store } = setup();
  const reg = await registered(ids);
  const p = ids.authenticate(reg.token) as Principal;
  const j = await ids.ladderJoin(p);
  t.same(j, { ok: true, value: { onLadder: true, glickoRating: 1500, glickoRd: 350 } });
  t.equal(store.getBot(reg.id)?.onLadder, true);
  const again = await ids.ladderJoin(p);
  t.same(again.ok && again.value.onLadder, true, 'joining twice is harmless');
  const bot = store.getBot(reg.id)!;
  await store.updateBot({ ...bot, rating: { rating: 1612.5, rd: 80, volatility: 0.06 } });
  const l = await ids.ladderLeave(p);
  t.same(l, { ok: true, value: { onLadder: false, glickoRating: 1612.5, glickoRd: 80 } });
  t.equal(store.getBot(reg.id)?.onLadder, false);

  const anon = ids.authenticate(ids.mintAnon().token) as Principal;
  const house = ids.authenticate(HOUSE_TOKEN) as Principal;
  for (const who of [anon, house]) {
    for (const r of [await ids.ladderJoin(who), await ids.ladderLeave(who)]) {
      t.same(r.ok ? null : [r.error.kind, r.error.code], ['forbidden', 'registered_only']);
    }
  }
});

t.test('a ladder toggle racing a rotation cannot bring the old token back', async (t) => {
  const store = laggingStore(newStore());
  const ids = new IdentityService(store, new ManualClock());
  const reg = await registered(ids);
  const p = ids.authenticate(reg.token) as Principal;
  const [rot, join] = await Promise.all([ids.rotate(p, reg.token), ids.ladderJoin(p)]);
  t.ok(rot.ok && join.ok);
  t.equal(ids.authenticate(reg.token), null, 'the old token stays dead');
  t.same(ids.authenticate(rot.ok ? rot.value.token : ''), p);
  t.equal(store.getBot(p.id)?.onLadder, true);
});

t.test('rotation is compare-and-swap: of two rotations with one token, exactly one wins', async (t) => {
  const gate = gatedStore(newStore());
  const ids = new IdentityService(gate.store, new ManualClock());
  const reg = await registered(ids); // createBot is not held by the gate
  // Both requests authenticate before either write commits, as two requests on the wire do.
  const p1 = ids.authenticate(reg.token) as Principal;
  const p2 = ids.authenticate(reg.token) as Principal;
  const first = ids.rotate(p1, reg.token);
  const second = ids.rotate(p2, reg.token);
  await flush();
  t.equal(gate.held(), 1, 'the first rotation is writing; the second waits its turn behind it');
  gate.release();
  await flush();
  t.equal(gate.held(), 0, 'the loser writes nothing');
  gate.release(); // (lets a wrongly granted second write finish, so a failure reports instead of hanging)
  const [a, b] = await Promise.all([first, second]);
  t.ok(a.ok, 'the first rotation wins');
  t.same(b.ok ? 'granted' : [b.error.kind, b.error.code], ['unauthorized', 'invalid_token'], 'the second finds its token already rotated');
  t.same(ids.authenticate(a.ok ? a.value.token : ''), p1, "the winner's new token works");
  t.equal(ids.authenticate(reg.token), null, 'the old token is dead');
  // The winner's token can itself be rotated (the CAS compares against the current hash).
  const again = ids.rotate(p1, a.ok ? a.value.token : '');
  await flush();
  gate.release();
  t.ok((await again).ok);
});

t.test('account echoes the principal', async (t) => {
  const { ids } = setup();
  const a = ids.mintAnon('me');
  t.same(ids.account(ids.authenticate(a.token) as Principal), { team: 'anon', name: a.name, id: a.id });
});

t.test('findBot: registered, static (built-ins too), live anonymous; null otherwise', async (t) => {
  const { ids } = setup();
  await registered(ids, 'acme', 'bot1');
  t.same(ids.findBot('acme', 'bot1'), {
    id: 'bot:team:acme:bot1',
    face: { kind: 'Bot', name: 'acme bot1' },
    participant: { Bot: { team: 'acme', name: 'bot1' } },
  });
  t.ok(ids.findBot('house', 'random'));
  t.ok(ids.findBot('house', 'greedy'));
  t.ok(ids.findBot('house', 'ext'));
  t.equal(ids.findBot('house', 'nobody'), null);
  t.equal(ids.findBot('acme', 'bot2'), null);
  t.equal(ids.findBot('anon', 'bot-00000000'), null);
  t.same([...builtInHouseBotIds()].sort(), ['bot:team:house:greedy', 'bot:team:house:random']);
});

t.test('built-in house bots never authenticate and cannot be registered', async (t) => {
  const { ids } = setup({ staticBots: [{ team: 'house', name: 'random', token: 'would-hijack-the-builtin' }] });
  t.equal(ids.authenticate('would-hijack-the-builtin'), null, 'a built-in keeps no token');
  const r = await ids.register('house', 'random');
  t.same(r.ok ? null : r.error.code, 'reserved_team');
});

t.test('parseHouseBotsEnv', async (t) => {
  t.same(parseHouseBotsEnv(''), { ok: true, value: [] });
  t.same(parseHouseBotsEnv(undefined), { ok: true, value: [] });
  t.same(parseHouseBotsEnv(' house|alpha|0123456789abcdef , house|beta|fedcba9876543210,'), {
    ok: true,
    value: [
      { team: 'house', name: 'alpha', token: '0123456789abcdef' },
      { team: 'house', name: 'beta', token: 'fedcba9876543210' },
    ],
  });
  const bad: [string, RegExp][] = [
    ['house|alpha', /entry 1: expected team\|name\|token/],
    ['house|a|b|c', /entry 1: expected team\|name\|token/],
    ['acme|alpha|0123456789abcdef', /entry 1: team must be "house"/],
    ['house|Alpha|0123456789abcdef', /entry 1: name "Alpha" must match/],
    [`house|${'a'.repeat(33)}|0123456789abcdef`, /at most 32 characters/],
    ['house|alpha|short', /entry 1: the token of house\/alpha must be at least 16 characters/],
    ['house|alpha|0123456789 abcdef', /printable ASCII without spaces/],
    ['house|random|0123456789abcdef', /house\/random is a built-in house bot/],
    ['house|a|0123456789abcdef,house|a|0123456789abcdeX', /entry 2: house\/a is configured twice/],
    ['house|a|0123456789abcdef,house|b|0123456789abcdef', /entry 2: house\/b reuses the token/],
  ];
  for (const [value, message] of bad) {
    const r = parseHouseBotsEnv(value);
    t.equal(r.ok, false, value);
    if (!r.ok) t.match(r.error, message, value);
  }
  const short = parseHouseBotsEnv('house|alpha|short-secret');
  t.ok(!short.ok && !short.error.includes('short-secret'), 'messages never echo a token');
  const two = parseHouseBotsEnv('acme|x|0123456789abcdef,house|y|tiny');
  t.ok(!two.ok && two.error.includes('entry 1') && two.error.includes('entry 2'), 'every problem is reported');
});
