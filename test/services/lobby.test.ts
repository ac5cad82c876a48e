import t from 'tap';
import { ManualClock } from '../../src/domain/clock.js';
import type { Principal } from '../../src/domain/types.js';
import type { ServiceResult } from '../../src/services/errors.js';
import { IdentityService } from '../../src/services/identity.js';
import { LobbyService, type SeekCreated } from '../../src/services/lobby.js';
import { FakeGames, newStore } from '../helpers/services.js';

const SEC = 1000;
const MIN = 60 * SEC;
const FISCHER_600_10 = { Fischer: { initialSeconds: 600, incrementSeconds: 10 } };

function setup(config: ConstructorParameters<typeof LobbyService>[1] = {}) {
  const clock = new ManualClock();
  const identity = new IdentityService(newStore(), clock);
  const games = new FakeGames();
  const lobby = new LobbyService({ identity, games, clock }, config);
  const anon = (label: string): Principal => identity.authenticate(identity.mintAnon(label).token) as Principal;
  return { clock, identity, games, lobby, a: anon('a'), b: anon('b'), anon };
}

const code = (r: ServiceResult<unknown>) => (r.ok ? null : [r.error.kind, r.error.code]);
function value<T>(r: ServiceResult<T>): T {
  if (!r.ok) throw new Error(`${r.error.kind}/${r.error.code}`);
  return r.value;
}
const OPEN = { matched: false, gameId: null, seat: null };

t.test('bot seek: created open, listed, default Fischer 600+10', async (t) => {
  const { lobby, a } = setup();
  const s = value(lobby.createBotSeek(a));
  t.match(s.seekId, /^[0-9A-Za-z]{16}$/);
  t.match(s.secret, /^[A-Za-z0-9_-]{32}$/);
  t.same(lobby.list().seeks, [{ id: s.seekId, timeControl: FISCHER_600_10, kind: 'Bot', name: `anon ${a.name}` }]);
  t.same(lobby.poll(s.seekId, s.secret), { ok: true, value: OPEN });
  const tc = { SuddenDeath: { initialSeconds: 60 } };
  const s2 = value(lobby.createBotSeek(a, tc));
  t.same(lobby.list().seeks.map((x) => [x.id, x.timeControl]), [[s.seekId, FISCHER_600_10], [s2.seekId, tc]], 'oldest first');
});

t.test('a 4th open seek is refused until the soonest one expires', async (t) => {
  const { lobby, clock, a, b } = setup();
  const first = value(lobby.createBotSeek(a));
  clock.advance(30 * SEC);
  value(lobby.createBotSeek(a));
  value(lobby.createBotSeek(a));
  const r = lobby.createBotSeek(a);
  t.same(code(r), ['rate_limited', 'too_many_seeks']);
  t.equal(r.ok ? 0 : r.error.retryAfterSeconds, 90, 'the first one expires 90 s from now');
  t.ok(lobby.createBotSeek(b).ok, 'per caller');
  lobby.poll(first.seekId, first.secret); // now it lives 120 s more; the others expire in 120 s too
  const r2 = lobby.createBotSeek(a);
  t.equal(r2.ok ? 0 : r2.error.retryAfterSeconds, 120);
  t.ok(value(lobby.cancel(first.seekId, first.secret)) === null);
  t.ok(lobby.createBotSeek(a).ok, 'a cancelled seek frees its slot');
});

t.test('expiry: 2 minutes without a poll; each poll keeps it alive', async (t) => {
  const { lobby, clock, a } = setup();
  const s = value(lobby.createBotSeek(a));
  clock.advance(2 * MIN - 1);
  t.same(value(lobby.poll(s.seekId, s.secret)), OPEN);
  clock.advance(2 * MIN - 1);
  t.same(value(lobby.poll(s.seekId, s.secret)), OPEN);
  t.equal(lobby.list().seeks.length, 1);
  clock.advance(2 * MIN);
  t.same(lobby.list().seeks, []);
  t.same(code(lobby.poll(s.seekId, s.secret)), ['not_found', 'unknown_seek']);
  t.same(code(lobby.cancel(s.seekId, s.secret)), ['conflict', 'seek_not_open']);
  t.same(code(await lobby.acceptAsBot(a, s.seekId)), ['not_found', 'unknown_seek'], 'not even for its owner');
  t.equal(clock.pending(), 0, 'no timers left behind');
});

t.test('guest seeks live 30 seconds without a poll', async (t) => {
  const { lobby, clock } = setup();
  const g = value(lobby.createGuestSeek());
  t.match(g.guestId, /^[0-9A-Za-z]{16}$/);
  t.same(lobby.list().seeks, [{ id: g.seekId, timeControl: FISCHER_600_10, kind: 'Human', name: null }]);
  clock.advance(29 * SEC);
  t.same(value(lobby.poll(g.seekId, g.secret)), OPEN);
  clock.advance(29 * SEC);
  t.equal(lobby.list().seeks.length, 1);
  clock.advance(1 * SEC);
  t.same(lobby.list().seeks, []);
  t.same(code(lobby.poll(g.seekId, g.secret)), ['not_found', 'unknown_seek']);
});

t.test('poll and cancel: unknown id or wrong secret is 404', async (t) => {
  const { lobby, a } = setup();
  const s = value(lobby.createBotSeek(a));
  for (const [id, secret] of [['nope', s.secret], [s.seekId, 'wrong'], [s.seekId, ''], [s.seekId, s.secret + 'x']]) {
    t.same(code(lobby.poll(id!, secret!)), ['not_found', 'unknown_seek']);
    t.same(code(lobby.cancel(id!, secret!)), ['not_found', 'unknown_seek']);
  }
  t.equal(lobby.list().seeks.length, 1, 'wrong secrets change nothing');
});

t.test('cancel: open → done; cancelled or matched → 409 seek_not_open', async (t) => {
  const { lobby, a, b } = setup();
  const s = value(lobby.createBotSeek(a));
  t.same(lobby.cancel(s.seekId, s.secret), { ok: true, value: null });
  t.same(lobby.list().seeks, []);
  t.same(code(lobby.cancel(s.seekId, s.secret)), ['conflict', 'seek_not_open']);
  t.same(code(lobby.poll(s.seekId, s.secret)), ['not_found', 'unknown_seek']);
  t.same(code(await lobby.acceptAsBot(b, s.seekId)), ['not_found', 'unknown_seek']);
  const m = value(lobby.createBotSeek(a));
  value(await lobby.acceptAsBot(b, m.seekId));
  t.same(code(lobby.cancel(m.seekId, m.secret)), ['conflict', 'seek_not_open']);
});

t.test('accept as bot: own seek, unknown, guests refused; a match is reported to the owner', async (t) => {
  const { lobby, games, identity, a, b } = setup();
  const s = value(lobby.createBotSeek(a));
  t.same(code(await lobby.acceptAsBot(a, s.seekId)), ['bad_request', 'own_seek']);
  t.same(code(await lobby.acceptAsBot(b, 'nope')), ['not_found', 'unknown_seek']);
  const guest = identity.authenticate(identity.issueGuestSeatToken('G')) as Principal;
  t.same(code(await lobby.acceptAsBot(guest, s.seekId)), ['forbidden', 'bots_only']);
  t.same(code(lobby.createBotSeek(guest)), ['forbidden', 'bots_only']);

  const r = value(await lobby.acceptAsBot(b, s.seekId));
  t.same(r, { gameId: 'game1' });
  const spec = games.specs[0]!;
  t.same(new Set([spec.white.id, spec.black.id]), new Set([a.id, b.id]));
  t.same(spec.timeControl, FISCHER_600_10);
  t.equal(spec.rated, false);
  const ownerSeat = spec.white.id === a.id ? 'White' : 'Black';
  t.same(value(lobby.poll(s.seekId, s.secret)), { matched: true, gameId: 'game1', seat: ownerSeat });
  t.same(lobby.list().seeks, [], 'a matched seek leaves the lobby');
  t.same(code(await lobby.acceptAsBot(a, s.seekId)), ['bad_request', 'own_seek']);
  const c = setup().a; // an identity from elsewhere: still "taken", not "unknown"
  t.same(code(await lobby.acceptAsBot(c, s.seekId)), ['conflict', 'seek_taken']);
});

t.test('a matched seek stays pollable for 10 minutes after the match', async (t) => {
  const { lobby, clock, a, b } = setup();
  const s = value(lobby.createBotSeek(a));
  clock.advance(MIN);
  value(await lobby.acceptAsBot(b, s.seekId));
  clock.advance(10 * MIN - 1);
  t.equal(value(lobby.poll(s.seekId, s.secret)).matched, true);
  clock.advance(1);
  t.same(code(lobby.poll(s.seekId, s.secret)), ['not_found', 'unknown_seek']);
});

t.test('the first claimer wins: racing accepts start exactly one game', async (t) => {
  const { lobby, games, a, anon } = setup();
  const s = value(lobby.createBotSeek(a));
  const claimers = [anon('p'), anon('q'), anon('r')];
  const results = await Promise.all([
    ...claimers.map((p) => lobby.acceptAsBot(p, s.seekId)),
    lobby.acceptAsGuest(undefined, s.seekId),
  ]);
  t.equal(results.filter((r) => r.ok).length, 1);
  t.same(results.slice(1).map(code), [['conflict', 'seek_taken'], ['conflict', 'seek_taken'], ['conflict', 'seek_taken']]);
  t.equal(games.specs.length, 1);
  t.equal(games.specs[0]!.black.id === claimers[0]!.id || games.specs[0]!.white.id === claimers[0]!.id, true);
});

t.test('while the game is being made the seek is neither open nor matched yet', async (t) => {
  const { lobby, a, b } = setup();
  const s = value(lobby.createBotSeek(a));
  const pending = lobby.acceptAsBot(b, s.seekId);
  t.same(value(lobby.poll(s.seekId, s.secret)), OPEN);
  t.same(code(lobby.cancel(s.seekId, s.secret)), ['conflict', 'seek_not_open']);
  t.same(lobby.list().seeks, []);
  value(await pending);
  t.equal(value(lobby.poll(s.seekId, s.secret)).matched, true);
});

t.test('a failed game creation closes the seek and surfaces as a throw', async (t) => {
  const { lobby, games, a, b } = setup();
  const s = value(lobby.createBotSeek(a));
  games.failNext = new Error('no actor');
  await t.rejects(lobby.acceptAsBot(b, s.seekId), /no actor/);
  t.same(code(lobby.poll(s.seekId, s.secret)), ['not_found', 'unknown_seek']);
  t.same(lobby.list().seeks, []);
});

t.test('colours are random: both occur, owner and accepter always opposite', async (t) => {
  const { lobby, games, a, anon } = setup({ maxOpenSeeksPerCaller: 1000 });
  const seats = new Set<string>();
  const b = anon('b');
  for (let i = 0; i < 64; i++) {
    const s = value(lobby.createBotSeek(a));
    value(await lobby.acceptAsBot(b, s.seekId));
    const seat = value(lobby.poll(s.seekId, s.secret)).seat!;
    const spec = games.specs[i]!;
    t.equal((seat === 'White' ? spec.white : spec.black).id, a.id);
    t.equal((seat === 'White' ? spec.black : spec.white).id, b.id);
    seats.add(seat);
  }
  t.same([...seats].sort(), ['Black', 'White']);
});

t.test('guest offer accepted by a bot: the guest gets its seat token by polling', async (t) => {
  const { lobby, games, identity, b } = setup();
  const g = value(lobby.createGuestSeek({ PerMove: { secondsPerMove: 20 } }));
  value(await lobby.acceptAsBot(b, g.seekId));
  const spec = games.specs[0]!;
  const guestSeat = spec.white.id === `guest:${g.guestId}` ? spec.white : spec.black;
  t.same(guestSeat, { id: `guest:${g.guestId}`, face: { kind: 'Human', name: null }, participant: { Guest: { id: g.guestId } } });
  const botSeat = guestSeat === spec.white ? spec.black : spec.white;
  t.same(botSeat, { id: b.id, face: { kind: 'Bot', name: `anon ${b.name}` }, participant: { Bot: { team: 'anon', name: b.name } } });
  const p1 = value(lobby.poll(g.seekId, g.secret));
  const p2 = value(lobby.poll(g.seekId, g.secret));
  t.equal(p1.matched, true);
  const token = p1.matched ? p1.seatToken! : '';
  t.match(token, /^dcb_[A-Za-z0-9_-]{32}$/);
  t.equal(p2.matched && p2.seatToken, token, 'every poll hands out the same seat token');
  t.same(identity.authenticate(token), { id: `guest:${g.guestId}`, tier: 'guest', team: 'guest', name: g.guestId });
  t.same(p1.matched && p1.seat, guestSeat === spec.white ? 'White' : 'Black');
});

t.test('a matched bot seek carries no seat token', async (t) => {
  const { lobby, a, b } = setup();
  const s = value(lobby.createBotSeek(a));
  value(await lobby.acceptAsBot(b, s.seekId));
  t.notOk('seatToken' in value(lobby.poll(s.seekId, s.secret)));
});

t.test('guest accepts: fresh seat, seat token, own-seek refusal, taken', async (t) => {
  const { lobby, games, identity, a } = setup();
  const s = value(lobby.createBotSeek(a));
  const r = value(await lobby.acceptAsGuest('someGuestId', s.seekId));
  const spec = games.specs[0]!;
  const mine = r.seat === 'White' ? spec.white : spec.black;
  t.equal((r.seat === 'White' ? spec.black : spec.white).id, a.id);
  t.match(mine.id, /^guest:[0-9A-Za-z]{16}$/);
  t.not(mine.id, 'guest:someGuestId', 'the accepter is seated under a fresh guest id');
  t.same(identity.authenticate(r.seatToken)?.id, mine.id);
  t.equal(identity.authenticate(r.seatToken)?.tier, 'guest');
  t.equal(r.gameId, 'game1');
  t.same(code(await lobby.acceptAsGuest(undefined, s.seekId)), ['conflict', 'seek_taken']);
  t.same(code(await lobby.acceptAsGuest(null, 'nope')), ['not_found', 'unknown_seek']);

  const own = value(lobby.createGuestSeek());
  t.same(code(await lobby.acceptAsGuest(own.guestId, own.seekId)), ['bad_request', 'own_seek']);
  t.same(code(await lobby.acceptAsGuest(`guest:${own.guestId}`, own.seekId)), ['bad_request', 'own_seek']);
  const other = value(await lobby.acceptAsGuest(undefined, own.seekId));
  const spec2 = games.specs[1]!;
  t.equal(spec2.white.face.kind, 'Human');
  t.equal(spec2.black.face.kind, 'Human');
  const ownerTok = value(lobby.poll(own.seekId, own.secret));
  t.ok(ownerTok.matched && ownerTok.seatToken && ownerTok.seatToken !== other.seatToken);
  t.not(identity.authenticate(other.seatToken)?.id, identity.authenticate(ownerTok.matched ? ownerTok.seatToken! : '')?.id);
});

t.test('lobby-wide caps per kind', async (t) => {
  const { lobby, clock, anon } = setup({ maxGuestSeeks: 2, maxBotSeeks: 1 });
  value(lobby.createGuestSeek());
  clock.advance(10 * SEC);
  value(lobby.createGuestSeek());
  const r = lobby.createGuestSeek();
  t.same(code(r), ['rate_limited', 'lobby_full']);
  t.equal(r.ok ? 0 : r.error.retryAfterSeconds, 20);
  value(lobby.createBotSeek(anon('x')));
  const r2 = lobby.createBotSeek(anon('y'));
  t.same(code(r2), ['rate_limited', 'lobby_full']);
  t.equal(r2.ok ? 0 : r2.error.retryAfterSeconds, 120);
  clock.advance(20 * SEC);
  t.ok(lobby.createGuestSeek().ok, 'room again once the first guest seek expired');
});

t.test('closed seeks are remembered within a bound', async (t) => {
  const { lobby, a } = setup({ maxClosedSeeks: 2 });
  const made: SeekCreated[] = [];
  for (let i = 0; i < 3; i++) {
    const s = value(lobby.createBotSeek(a));
    value(lobby.cancel(s.seekId, s.secret));
    made.push(s);
  }
  t.same(code(lobby.cancel(made[0]!.seekId, made[0]!.secret)), ['not_found', 'unknown_seek'], 'the oldest is forgotten');
  t.same(code(lobby.cancel(made[2]!.seekId, made[2]!.secret)), ['conflict', 'seek_not_open']);
});

t.test('the list comes a page at a time; a closed seek shifts no cursor', async (t) => {
  const { lobby, anon } = setup({ maxOpenSeeksPerCaller: 10 });
  const bot = anon('pager');
  const made = Array.from({ length: 5 }, () => value(lobby.createBotSeek(bot)));
  const ids = made.map((s) => s.seekId);
  const first = lobby.list(2);
  t.same(first.seeks.map((s) => s.id), ids.slice(0, 2));
  t.ok(first.next !== null, 'more to come');
  value(lobby.cancel(made[1].seekId, made[1].secret)); // the last seek of the page already read closes
  ids.splice(1, 1);
  made.splice(1, 1);
  const second = lobby.list(2, Number(first.next));
  t.same(second.seeks.map((s) => s.id), ids.slice(1, 3), 'the next page starts where the first ended');
  const third = lobby.list(2, Number(second.next));
  t.same(third.seeks.map((s) => s.id), ids.slice(3));
  t.equal(third.next, null, 'the last page has no cursor');
  t.same(lobby.list().seeks.map((s) => s.id), ids, 'without a limit: everything');
});

t.test('open guest seeks are capped per address; other addresses are not affected', async (t) => {
  const { lobby, clock } = setup({ maxOpenGuestSeeksPerAddress: 2 });
  const mine = [value(lobby.createGuestSeek(undefined, 'addr-a')), value(lobby.createGuestSeek(undefined, 'addr-a'))];
  const third = lobby.createGuestSeek(undefined, 'addr-a');
  t.same(code(third), ['rate_limited', 'too_many_seeks'], 'a third open guest seek from one address');
  t.ok(value(lobby.createGuestSeek(undefined, 'addr-b')), 'another address still offers');
  value(lobby.cancel(mine[0].seekId, mine[0].secret));
  t.ok(value(lobby.createGuestSeek(undefined, 'addr-a')), 'a cancelled seek frees its place');
  clock.advance(31 * SEC);
  t.ok(value(lobby.createGuestSeek(undefined, 'addr-a')), 'expired seeks free theirs');
});
