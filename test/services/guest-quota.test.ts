// Guest games per address: a place is held while a game is made, kept by the game, and given back
// when it ends or is not made; guest clocks are bounded.
import t from 'tap';
import { GuestQuota } from '../../src/services/guest-quota.js';

t.test('an address holds at most gamesPerAddress live guest games', async (t) => {
  const q = new GuestQuota({ gamesPerAddress: 2 });
  const a = q.reserve('a');
  const b = q.reserve('a');
  t.ok(a.ok && b.ok);
  const c = q.reserve('a');
  t.equal(c.ok, false, 'a third is refused');
  if (!c.ok) t.match(c.error, { kind: 'rate_limited', code: 'too_many_games' });
  t.ok(q.reserve('other').ok, 'another address is not affected');
  if (!a.ok || !b.ok) return;
  a.value.started('g1');
  a.value.release(); // after started: the place stays the game's
  b.value.release(); // never made: its place comes back
  t.equal(q.countFor('a'), 1);
  t.ok(q.reserve('a').ok, 'a place freed by a game not made');
  t.equal(q.reserve('a').ok, false);
  q.gameEnded('g1');
  q.gameEnded('g1');
  t.equal(q.countFor('a'), 1, 'an ended game gives its place back once');
  q.gameEnded('not-a-guest-game');
  t.equal(q.countFor('a'), 1);
});

t.test('guest clocks are bounded', async (t) => {
  const q = new GuestQuota({ maxInitialSeconds: 600, maxIncrementSeconds: 10, maxSecondsPerMove: 60 });
  t.ok(q.checkClock(undefined).ok);
  t.ok(q.checkClock({ Unlimited: {} }).ok);
  t.ok(q.checkClock({ Fischer: { initialSeconds: 600, incrementSeconds: 10 } }).ok);
  for (const tc of [
    { SuddenDeath: { initialSeconds: 86_400 } },
    { Fischer: { initialSeconds: 601, incrementSeconds: 0 } },
    { Fischer: { initialSeconds: 60, incrementSeconds: 11 } },
    { PerMove: { secondsPerMove: 61 } },
  ]) {
    const r = q.checkClock(tc);
    t.equal(r.ok ? null : r.error.code, 'clock_too_long', JSON.stringify(tc));
  }
});
