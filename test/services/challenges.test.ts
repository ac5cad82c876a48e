import t from 'tap';
import { ManualClock } from '../../src/domain/clock.js';
import type { Principal } from '../../src/domain/types.js';
import { AccountHub } from '../../src/services/account-hub.js';
import { ChallengeService, type ChallengeView } from '../../src/services/challenges.js';
import type { ServiceResult } from '../../src/services/errors.js';
import { GameAdmission } from '../../src/services/game-admission.js';
import { IdentityService, builtInHouseBotIds } from '../../src/services/identity.js';
import { FakeGames, Sink, flush, newStore } from '../helpers/services.js';

const MIN = 60 * 1000;

async function setup() {
  const clock = new ManualClock();
  const identity = new IdentityService(newStore(), clock);
  const hub = new AccountHub();
  const games = new FakeGames();
  const errors: unknown[] = [];
  const svc = new ChallengeService(
    { identity, hub, games, clock, onInternalError: (e) => errors.push(e) },
    { houseBotIds: builtInHouseBotIds() },
  );
  const bot = async (team: string, name: string): Promise<Principal> => {
    const r = await identity.register(team, name);
    if (!r.ok) throw new Error(r.error.code);
    return identity.authenticate(r.value.token) as Principal;
  };
  const a = await bot('team', 'a');
  const b = await bot('team', 'b');
  const c = await bot('team', 'c');
  return { clock, identity, hub, games, svc, a, b, c, errors };
}

const code = (r: ServiceResult<unknown>) => (r.ok ? null : [r.error.kind, r.error.code]);
const made = (r: ServiceResult<ChallengeView>): ChallengeView => {
  if (!r.ok) throw new Error(r.error.code);
  return r.value;
};

t.test('create: the Challenge resource, default Unlimited, ChallengeReceived to the target', async (t) => {
  const { svc, hub, a, b } = await setup();
  const inbox = new Sink();
  hub.subscribe(b.id, inbox);
  const ch = made(svc.create(a, { team: 'team', name: 'b' }));
  t.match(ch.id, /^[0-9A-Za-z]{16}$/);
  t.same(ch, {
    id: ch.id,
    challenger: { Bot: { team: 'team', name: 'a' } },
    target: { Bot: { team: 'team', name: 'b' } },
    timeControl: { Unlimited: {} },
    color: 'white',
    targetOnline: true,
  });
  t.same(inbox.events(), [
    { ChallengeReceived: { id: ch.id, challenger: { Bot: { team: 'team', name: 'a' } }, timeControl: { Unlimited: {} }, color: 'white' } },
  ]);
  const fischer = { Fischer: { initialSeconds: 60, incrementSeconds: 1 } };
  const ch2 = made(svc.create(b, { team: 'team', name: 'a', timeControl: fischer }));
  t.same(ch2.timeControl, fischer);
  t.equal(ch2.targetOnline, false, 'a has no stream');
});

t.test('create errors: self, unknown target, guest challenger', async (t) => {
  const { svc, identity, a } = await setup();
  t.same(code(svc.create(a, { team: 'team', name: 'a' })), ['bad_request', 'self_challenge']);
  t.same(code(svc.create(a, { team: 'team', name: 'zz' })), ['not_found', 'unknown_bot']);
  t.same(code(svc.create(a, { team: 'anon', name: 'bot-12345678' })), ['not_found', 'unknown_bot']);
  const guest = identity.authenticate(identity.issueGuestSeatToken('G')) as Principal;
  t.same(code(svc.create(guest, { team: 'team', name: 'a' })), ['forbidden', 'bots_only']);
  // A live anonymous bot is a fine target, and another identity of the same author is not "self".
  const anon = identity.mintAnon('other');
  t.ok(svc.create(a, { team: 'anon', name: anon.name }).ok);
});

t.test('at most 10 pending per challenger; the 11th says when the oldest expires', async (t) => {
  const { svc, clock, a, b, c } = await setup();
  for (let i = 0; i < 10; i++) {
    t.ok(svc.create(a, { team: 'team', name: 'b' }).ok);
    clock.advance(10_000);
  }
  // The oldest was made 100 s ago and lives 300 s: 200 s to go.
  const r = svc.create(a, { team: 'team', name: 'c' });
  t.same(code(r), ['rate_limited', 'too_many_challenges']);
  t.equal(r.ok ? 0 : r.error.retryAfterSeconds, 200);
  t.ok(svc.create(b, { team: 'team', name: 'c' }).ok, 'the cap is per challenger');
  clock.advance(199_500);
  const late = svc.create(a, { team: 'team', name: 'c' });
  t.equal(late.ok ? 0 : late.error.retryAfterSeconds, 1, 'rounded up, at least 1');
  clock.advance(500); // the oldest expires: room again
  t.ok(svc.create(a, { team: 'team', name: 'c' }).ok);
  t.equal(svc.list(c).in.length, 2, 'the refused ones were not recorded');
});

t.test('the whole table has a cap too', async (t) => {
  const clock = new ManualClock();
  const identity = new IdentityService(newStore(), clock);
  const svc = new ChallengeService(
    { identity, hub: new AccountHub(), games: new FakeGames(), clock },
    { maxPendingTotal: 2 },
  );
  const x = identity.authenticate(identity.mintAnon('x').token) as Principal;
  t.ok(svc.create(x, { team: 'house', name: 'random' }).ok);
  t.ok(svc.create(x, { team: 'house', name: 'greedy' }).ok);
  const r = svc.create(x, { team: 'house', name: 'random' });
  t.same(code(r), ['rate_limited', 'challenge_capacity']);
  t.equal(r.ok ? 0 : r.error.retryAfterSeconds, 300);
});

t.test('accept: the target only; the challenger plays White; then it is gone', async (t) => {
  const { svc, games, a, b, c } = await setup();
  const tc = { PerMove: { secondsPerMove: 30 } };
  const ch = made(svc.create(a, { team: 'team', name: 'b', timeControl: tc }));
  t.same(code(await svc.accept(c, ch.id)), ['forbidden', 'not_your_challenge']);
  t.same(code(await svc.accept(a, ch.id)), ['forbidden', 'not_your_challenge'], 'not even the challenger');
  t.same(code(await svc.accept(b, 'nope')), ['not_found', 'unknown_challenge']);
  const ok = await svc.accept(b, ch.id);
  t.same(ok, { ok: true, value: { gameId: 'game1' } });
  t.equal(games.specs.length, 1);
  const spec = games.specs[0]!;
  t.equal(spec.white.id, a.id, 'challenger is White');
  t.equal(spec.black.id, b.id);
  t.same(spec.white.face, { kind: 'Bot', name: 'team a' });
  t.same(spec.timeControl, tc);
  t.equal(spec.rated, false);
  t.same(code(await svc.accept(b, ch.id)), ['not_found', 'unknown_challenge'], 'accepted is not pending');
  t.same(code(svc.decline(b, ch.id)), ['not_found', 'unknown_challenge']);
  t.same(svc.list(a), { in: [], out: [] });
});

t.test('two racing accepts start one game', async (t) => {
  const { svc, games, a, b } = await setup();
  const ch = made(svc.create(a, { team: 'team', name: 'b' }));
  const [r1, r2] = await Promise.all([svc.accept(b, ch.id), svc.accept(b, ch.id)]);
  t.equal([r1, r2].filter((r) => r.ok).length, 1);
  t.equal(games.specs.length, 1);
});

t.test('a failed game creation tells the challenger and surfaces as a throw', async (t) => {
  const { svc, games, hub, a, b } = await setup();
  const out = new Sink();
  hub.subscribe(a.id, out);
  const ch = made(svc.create(a, { team: 'team', name: 'b' }));
  games.failNext = new Error('actor down');
  await t.rejects(svc.accept(b, ch.id), /actor down/);
  t.same(out.events(), [{ ChallengeDeclined: { id: ch.id } }]);
});

t.test('decline by the target notifies the challenger; cancel by the challenger notifies the target', async (t) => {
  const { svc, hub, a, b, c } = await setup();
  const aSink = new Sink();
  const bSink = new Sink();
  hub.subscribe(a.id, aSink);
  hub.subscribe(b.id, bSink);
  const one = made(svc.create(a, { team: 'team', name: 'b' }));
  t.same(code(svc.decline(c, one.id)), ['forbidden', 'not_your_challenge']);
  t.same(svc.decline(b, one.id), { ok: true, value: {} });
  t.same(aSink.events(), [{ ChallengeDeclined: { id: one.id } }]);
  t.same(code(svc.decline(b, one.id)), ['not_found', 'unknown_challenge'], 'declined is not pending');
  t.same(code(await svc.accept(b, one.id)), ['not_found', 'unknown_challenge']);

  const two = made(svc.create(a, { team: 'team', name: 'b' }));
  bSink.lines.length = 0;
  t.same(svc.decline(a, two.id), { ok: true, value: {} });
  t.same(bSink.events(), [{ ChallengeDeclined: { id: two.id } }]);
  t.equal(aSink.lines.length, 1, 'the canceller is not told about its own cancel');
  t.same(svc.list(b), { in: [], out: [] });
});

t.test('expiry after 5 minutes drops the challenge and tells the challenger', async (t) => {
  const { svc, hub, clock, a, b } = await setup();
  const aSink = new Sink();
  hub.subscribe(a.id, aSink);
  const ch = made(svc.create(a, { team: 'team', name: 'b' }));
  clock.advance(5 * MIN - 1);
  t.equal(svc.list(b).in.length, 1);
  t.same(aSink.lines, []);
  clock.advance(1);
  t.same(svc.list(b), { in: [], out: [] });
  t.same(aSink.events(), [{ ChallengeDeclined: { id: ch.id } }]);
  t.same(code(await svc.accept(b, ch.id)), ['not_found', 'unknown_challenge']);
  t.equal(clock.pending(), 0, 'no timers left behind');
  t.equal(svc.pendingCount(), 0);
});

t.test('built-in house bots accept on their own, right after the challenge', async (t) => {
  const { svc, games, clock, a } = await setup();
  const ch = made(svc.create(a, { team: 'house', name: 'random' }));
  t.equal(ch.targetOnline, true, 'house bots always answer');
  t.equal(games.specs.length, 0, 'not inline: the challenger gets its answer first');
  clock.advance(0);
  await flush();
  t.equal(games.specs.length, 1);
  t.equal(games.specs[0]!.white.id, a.id);
  t.equal(games.specs[0]!.black.id, 'bot:team:house:random');
  t.same(svc.list(a), { in: [], out: [] });
  // Cancelled before the house bot gets to it: no game.
  const ch2 = made(svc.create(a, { team: 'house', name: 'greedy' }));
  t.ok(svc.decline(a, ch2.id).ok);
  clock.advance(0);
  await flush();
  t.equal(games.specs.length, 1);
});

t.test('a house auto-accept whose game fails is reported, not thrown', async (t) => {
  const { svc, games, clock, hub, a, errors } = await setup();
  const aSink = new Sink();
  hub.subscribe(a.id, aSink);
  games.failNext = new Error('boom');
  const ch = made(svc.create(a, { team: 'house', name: 'greedy' }));
  clock.advance(0);
  await flush();
  t.equal(errors.length, 1);
  t.same(aSink.events(), [{ ChallengeDeclined: { id: ch.id } }]);
});

t.test('list: in and out, pending only, oldest first, with targetOnline', async (t) => {
  const { svc, hub, a, b, c } = await setup();
  const ab = made(svc.create(a, { team: 'team', name: 'b' }));
  const ac = made(svc.create(a, { team: 'team', name: 'c' }));
  const cb = made(svc.create(c, { team: 'team', name: 'b' }));
  t.same(svc.list(a).out.map((x) => x.id), [ab.id, ac.id]);
  t.same(svc.list(a).in, []);
  t.same(svc.list(b).in.map((x) => x.id), [ab.id, cb.id]);
  t.same(svc.list(b).out, []);
  t.same(svc.list(c).in.map((x) => x.id), [ac.id]);
  t.equal(svc.list(a).out[0]!.targetOnline, false);
  const off = hub.subscribe(b.id, new Sink());
  t.same(svc.list(a).out.map((x) => x.targetOnline), [true, false]);
  off();
  t.same(svc.list(a).out.map((x) => x.targetOnline), [false, false]);
});

t.test('a challenge to a house bot holds its game’s place from creation; a cancelled one gives it back', async (t) => {
  const clock = new ManualClock();
  const identity = new IdentityService(newStore(), clock);
  const games = new FakeGames();
  const live = { liveCount: () => games.specs.length, liveCountFor: (id: string) => games.specs.filter((s) => s.white.id === id || s.black.id === id).length };
  const admission = new GameAdmission({ live, tierOf: (id) => identity.tierOf(id) }, { perIdentity: { anonymous: 2, registered: 2, guest: 1 } });
  const svc = new ChallengeService({ identity, hub: new AccountHub(), games, clock, admission }, { houseBotIds: builtInHouseBotIds() });
  const x = identity.authenticate(identity.mintAnon('x').token) as Principal;
  const first = made(svc.create(x, { team: 'house', name: 'random' }));
  made(svc.create(x, { team: 'house', name: 'greedy' }));
  t.same(code(svc.create(x, { team: 'house', name: 'random' })), ['rate_limited', 'too_many_games'], 'two held places fill a cap of two before any game exists');
  t.ok(svc.decline(x, first.id).ok, 'the challenger cancels the first before the house bot accepts');
  t.equal(admission.heldCount(), 1, 'its place is given back');
  made(svc.create(x, { team: 'house', name: 'random' }));
  clock.advance(0);
  await flush();
  t.equal(games.specs.length, 2, 'the house bots accepted the two still pending');
  t.equal(admission.heldCount(), 0, 'and the games took over their places');
  t.same(code(svc.create(x, { team: 'house', name: 'greedy' })), ['rate_limited', 'too_many_games'], 'still two live games');
});
