// The live-game guard on its own: the cap per identity by tier, house bots exempt, the server-wide
// cap, and holds that count from the moment they are taken until released (so racing creations
// cannot all slip through while a store write is pending).
import t from 'tap';
import type { Principal } from '../../src/domain/types.js';
import { GameAdmission } from '../../src/services/game-admission.js';

/** Live games as the registry would count them: a list of [white, black] pairs. */
class Live {
  games: [string, string][] = [];
  liveCount(): number {
    return this.games.length;
  }
  liveCountFor(id: string): number {
    return this.games.filter(([w, b]) => w === id || b === id).length;
  }
}

const tierOf = (id: string): Principal['tier'] =>
  id.startsWith('guest:') ? 'guest' : id.startsWith('bot:team:house:') ? 'static' : id.startsWith('bot:team:anon:') ? 'anonymous' : 'registered';

const ANON = 'bot:team:anon:a-1';
const ANON2 = 'bot:team:anon:b-2';
const REG = 'bot:team:acme:alpha';
const GUEST = 'guest:g1';
const HOUSE = 'bot:team:house:random';

function setup(maxLiveGames = 100) {
  const live = new Live();
  const guard = new GameAdmission({ live, tierOf }, { perIdentity: { anonymous: 2, registered: 3, guest: 1 }, maxLiveGames, retryAfterSeconds: 7 });
  return { live, guard };
}

t.test('each tier has its own cap; the refusal is a 429 value naming the player', async (t) => {
  const { live, guard } = setup();
  live.games = [[ANON, HOUSE], [ANON, HOUSE]];
  const r = guard.check([ANON2, ANON]);
  t.notOk(r.ok);
  if (!r.ok) {
    t.equal(r.error.kind, 'rate_limited');
    t.equal(r.error.code, 'too_many_games');
    t.equal(r.error.retryAfterSeconds, 7);
    t.match(r.error.detail, /^bot anon\/a-1 already plays 2 live games/);
  }
  t.ok(guard.check([ANON2, REG]).ok, 'other players are not affected');
  live.games = [[REG, HOUSE], [REG, HOUSE]];
  t.ok(guard.check([REG]).ok, 'a registered bot has room for a third');
  live.games.push([REG, ANON2]);
  t.equal(guard.check([REG]).ok, false, 'but not a fourth');
  live.games = [[GUEST, ANON2]];
  const g = guard.check([ANON2, GUEST]);
  t.equal(g.ok, false, 'a guest: one game');
  if (!g.ok) t.match(g.error.detail, /^the human guest/, 'a guest is not named by its id');
});

t.test('house bots are exempt', async (t) => {
  const { live, guard } = setup();
  live.games = Array.from({ length: 50 }, (_, i): [string, string] => [`bot:team:anon:p-${i}`, HOUSE]);
  t.ok(guard.check([ANON, HOUSE]).ok, 'fifty live games do not stop house/random');
  t.ok(guard.reserve([HOUSE, HOUSE]).ok, 'nor holds');
});

t.test('a hold counts until released, once', async (t) => {
  const { guard } = setup();
  const a = guard.reserve([ANON, HOUSE]);
  const b = guard.reserve([ANON, REG]);
  t.ok(a.ok && b.ok, 'two places for a cap of two');
  const c = guard.reserve([ANON, HOUSE]);
  t.equal(c.ok, false, 'the third is refused while the first two are still being created');
  t.equal(guard.heldCount(), 2);
  if (a.ok) {
    a.value.release();
    a.value.release(); // a second release gives back nothing more
  }
  t.equal(guard.heldCount(), 1);
  t.ok(guard.reserve([ANON, HOUSE]).ok, 'a released place is free again');
  t.equal(guard.reserve([ANON, HOUSE]).ok, false, 'and only one');
  t.equal(guard.check([REG, REG]).ok, true, 'one player on both seats counts once');
});

t.test('the server-wide cap: a 503 value, whoever asks', async (t) => {
  const { live, guard } = setup(3);
  live.games = [[ANON, HOUSE], [REG, HOUSE]];
  const h = guard.reserve([GUEST, HOUSE]);
  t.ok(h.ok, 'the third game');
  const r = guard.check([ANON2, HOUSE]);
  t.notOk(r.ok, 'a fourth is refused: two live and one held');
  if (!r.ok) {
    t.equal(r.error.kind, 'unavailable');
    t.equal(r.error.code, 'server_full');
    t.equal(r.error.retryAfterSeconds, 7);
  }
  t.equal(guard.check([HOUSE]).ok, false, 'house bots too: the server cap is about the server');
  if (h.ok) h.value.release();
  t.ok(guard.check([ANON2, HOUSE]).ok, 'room again once the hold is released');
});

t.test('several places are held all or none', async (t) => {
  const { guard } = setup();
  const one = guard.reserve([REG, HOUSE]);
  t.ok(one.ok, 'one of three places taken');
  const pair = guard.reserveGames([REG, HOUSE], 2);
  t.ok(pair.ok && pair.value.length === 2, 'both games of a pair fit the two left');
  t.equal(guard.heldCount(), 3);
  if (pair.ok) for (const h of pair.value) h.release();
  if (one.ok) one.value.release();
  t.ok(guard.reserve([REG, HOUSE]).ok && guard.reserve([REG, HOUSE]).ok, 'two of three taken');
  const refused = guard.reserveGames([REG, HOUSE], 2);
  t.equal(refused.ok, false, 'a pair with one place left is refused');
  if (!refused.ok) t.equal(refused.error.code, 'too_many_games', 'with the refusal of the place that did not fit');
  t.equal(guard.heldCount(), 2, 'and the place its first game took is given back');
});
