// The public-stream places: per game, per address and in all, with the top of the total kept for
// addresses that watch nothing yet, so a few addresses cannot take every place.
import t from 'tap';
import { SpectatorSeats } from '../../src/edge/spectators.js';

const limits = { maxPerGame: 100, maxTotal: 10, maxPerAddress: 4, reservedForNewAddresses: 3 };

t.test('one address holds at most maxPerAddress streams; others are not affected', async (t) => {
  const seats = new SpectatorSeats(limits);
  const mine = Array.from({ length: 4 }, (_, i) => seats.take(`g${i}`, 'a'));
  t.ok(mine.every((r) => typeof r === 'function'), 'four places for one address');
  t.equal(seats.take('g9', 'a'), 'address', 'the fifth is refused');
  t.type(seats.take('g9', 'b'), 'function', 'another address is served');
  (mine[0] as () => void)();
  t.type(seats.take('g9', 'a'), 'function', 'a closed stream gives the address its place back');
});

t.test('addresses already watching cannot take the reserved places; a new address can', async (t) => {
  const seats = new SpectatorSeats(limits);
  // Two addresses with streams open take everything below the reserve (10 - 3 = 7).
  for (let i = 0; i < 4; i++) t.type(seats.take('g', 'a'), 'function');
  for (let i = 0; i < 3; i++) t.type(seats.take('g', 'b'), 'function');
  t.equal(seats.take('g', 'b'), 'total', 'an address already watching waits once only the reserve is left');
  t.equal(seats.open, 7);
  for (const fresh of ['c', 'd', 'e']) t.type(seats.take('g', fresh), 'function', `new address ${fresh} gets a reserved place`);
  t.equal(seats.take('g', 'f'), 'total', 'a full server refuses even a new address');
  t.equal(seats.open, 10);
});

t.test('the per-game cap still holds, and a release counts once', async (t) => {
  const seats = new SpectatorSeats({ ...limits, maxPerGame: 2 });
  const r1 = seats.take('g', 'a') as () => void;
  t.type(seats.take('g', 'b'), 'function');
  t.equal(seats.take('g', 'c'), 'game');
  r1();
  r1();
  t.equal(seats.open, 1, 'releasing twice frees one place');
  t.type(seats.take('g', 'c'), 'function');
});
