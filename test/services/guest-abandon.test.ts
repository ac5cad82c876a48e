// Guest games whose guest left: resigned for the guest to move once idle and unwatched for the
// configured time (ManualClock); a move or an open guest stream keeps the game alive.
import t from 'tap';
import { ManualClock } from '../../src/domain/clock.js';
import type { Seat } from '../../src/domain/types.js';
import type { GameHandle } from '../../src/game/types.js';
import { GuestAbandonment } from '../../src/services/guest-abandon.js';

function fakeGame(id: string, white: string, black: string) {
  const g = {
    version: 1,
    activeSeat: 'White' as Seat,
    resigned: [] as Seat[],
    handle: {
      id,
      white: { id: white },
      black: { id: black },
      state: () => ({ version: g.version, activeSeat: g.activeSeat }),
      resign: (seat: Seat) => void g.resigned.push(seat),
    } as unknown as GameHandle,
  };
  return g;
}

const MIN = 60_000;

t.test('an idle, unwatched guest game is resigned for the guest; moves and streams keep it alive', async (t) => {
  const clock = new ManualClock();
  const idle = fakeGame('idle', 'guest:a', 'bot:house:random');
  const moving = fakeGame('moving', 'guest:b', 'bot:house:random');
  const watched = fakeGame('watched', 'guest:c', 'bot:house:random');
  const botToMove = fakeGame('bot', 'guest:d', 'bot:house:random');
  botToMove.activeSeat = 'Black';
  const all = new Map([idle, moving, watched, botToMove].map((g) => [g.handle.id, g.handle]));
  const watch = new GuestAbandonment({ games: { get: (id) => all.get(id) }, clock }, 10 * MIN);
  for (const id of all.keys()) watch.watch(id);
  const release = watch.streamOpened('watched');
  for (let m = 0; m < 9; m++) {
    clock.advance(MIN);
    moving.version++;
  }
  t.same(idle.resigned, [], 'not before the limit');
  for (let m = 0; m < 5; m++) {
    clock.advance(MIN);
    moving.version++;
  }
  t.same(idle.resigned, ['White'], 'the idle guest game is resigned for its guest');
  t.same(moving.resigned, [], 'a game that moves is kept');
  t.same(watched.resigned, [], 'a game whose guest watches it is kept');
  t.same(botToMove.resigned, [], 'when the bot is to move, nothing is done');
  release();
  clock.advance(15 * MIN);
  t.same(watched.resigned, ['White'], 'once the guest’s stream closed, the limit runs from then');
  t.same(moving.resigned, ['White'], 'and the game that stopped moving meanwhile');
  t.equal(watch.ended, 3);
});
