// A ladder of two or three bots keeps playing. The pairing never let two bots meet twice in a row,
// with no way back, so two bots on the ladder got one pairing each and then idled for ever. Now a
// new opponent still comes first, and the same two meet again once both have waited
// `ladder.rematchAfterMs` (on the injected clock) with nobody new free. Bots, rounds and resignations
// all go over HTTP; the test ends each game itself once it has seen it.
import t from 'tap';
import type { ManualClock } from '../../src/domain/clock.js';
import { bootApp, diskStore } from '../helpers/app.js';
import type { Bot } from '../helpers/bot.js';
import { ladderBot, ladderGame, liveGames, pairingRound, resignAndWait, type LadderGame } from '../helpers/ladder.js';

const PAIR_MS = 1_000;
const REMATCH_MS = 3_000;

/** Runs `rounds` pairing rounds; after each, every new game is ended by its Black player resigning. */
async function play(app: Parameters<typeof ladderBot>[0], bots: Bot[], rounds: number): Promise<(LadderGame & { at: number })[]> {
  const byFace = new Map(bots.map((b) => [`${b.creds.team} ${b.creds.name}`, b]));
  const seen: (LadderGame & { at: number })[] = [];
  for (let r = 0; r < rounds; r++) {
    await pairingRound(app, bots, PAIR_MS);
    const ids = new Set<string>();
    for (const b of bots) for (const id of await liveGames(b)) ids.add(id);
    for (const id of ids) {
      const g = await ladderGame(app, id);
      seen.push({ ...g, at: app.clock.now() });
      await resignAndWait(app, byFace.get(g.black)!, id);
    }
  }
  return seen;
}

t.test('two bots on the ladder play pair after pair, each rematch after the wait', async (t) => {
  // On disk: profiles need persistence.
  const app = await bootApp(t, { store: await diskStore(t), overrides: { 'ladder.pairIntervalMs': PAIR_MS, 'ladder.rematchAfterMs': REMATCH_MS } });
  const bots = [await ladderBot(app, 'duo', 'fir', 2), await ladderBot(app, 'duo', 'yew', 2)];
  const games = await play(app, bots, 16);
  const starts = [...new Set(games.map((g) => g.at))];
  t.ok(games.every((g) => g.kind === 'mirror'), 'mirror pairs only (capacity 2 each)');
  t.equal(games.length, 2 * starts.length, 'two games a pairing');
  t.ok(starts.length >= 3, `${starts.length} pairs in 16 rounds (before: 1, then nothing)`);
  for (let i = 1; i < starts.length; i++) {
    // Paired at `starts[i-1]`, free again at the next round, a rematch only REMATCH_MS after that.
    t.ok(starts[i] - starts[i - 1] >= PAIR_MS + REMATCH_MS, `pair ${i + 1} came ${starts[i] - starts[i - 1]} ms after pair ${i}: it waited`);
  }
  const profile = (await app.req('GET', '/bots/duo/fir')).json as { ladder: unknown };
  t.same(profile.ladder, { pairs: starts.length, singles: 0 }, 'the profile counts the pairs');
});

t.test('three bots of capacity 1 rotate: everyone keeps playing, nobody waits for a rematch', async (t) => {
  const app = await bootApp(t, { overrides: { 'ladder.pairIntervalMs': PAIR_MS, 'ladder.rematchAfterMs': 60_000 } });
  const bots = [await ladderBot(app, 'trio', 'ash'), await ladderBot(app, 'trio', 'elm'), await ladderBot(app, 'trio', 'oak')];
  const games = await play(app, bots, 9);
  t.ok(games.every((g) => g.kind === 'single'), 'single games (capacity 1)');
  for (const b of bots) {
    const face = `trio ${b.creds.name}`;
    const mine = games.filter((g) => g.white === face || g.black === face).length;
    t.ok(mine >= 4, `${b.creds.name} played ${mine} games in 9 rounds`);
  }
  const meetings = games.map((g) => [g.white, g.black].sort().join(' v '));
  t.equal(new Set(meetings).size, 3, 'every two of them met');
});

t.test('the wait is configurable: ladder.rematchAfterMs 0 rematches at the next round', async (t) => {
  const app = await bootApp(t, { overrides: { 'ladder.pairIntervalMs': PAIR_MS, 'ladder.rematchAfterMs': 0 } });
  const bots = [await ladderBot(app, 'now', 'fir'), await ladderBot(app, 'now', 'yew')];
  const games = await play(app, bots, 4);
  t.equal(games.length, 4, 'a single game every round');
});
