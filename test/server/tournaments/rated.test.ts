// Rated events and the ladder over HTTP: event games lost on time never count toward the ladder's
// "lost 4 ladder games in a row on time" removal (the host chose that time control, not the ladder),
// and in a rated event only games between registered bots move ratings: games against a house bot
// are played unrated.
import t from 'tap';
import { ManualClock } from '../../../src/domain/clock.js';
import { bootApp, diskStore, type TestApp } from '../../helpers/app.js';
import { Bot, type Json } from '../../helpers/bot.js';
import { fullTree, gameState } from '../../helpers/games.js';
import { randomPath, type Tree } from '../../helpers/play.js';
import { prng } from '../../helpers/prng.js';
import { HOUSE_RANDOM, ResigningBot, UNLIMITED, waitEvent } from '../../helpers/tournaments.js';

const face = (b: Bot) => ({ team: b.creds.team, name: b.creds.name });
const pause = () => new Promise((r) => setTimeout(r, 10));

/**
 * Plays a pair so that `loser` loses both games on time: `mover` plays a random legal turn whenever
 * its roll is pending; the clock jumps a second only once two looks in a row find both games
 * unchanged with no roll of `mover`'s pending. A roll of `mover`'s still being written during a jump
 * costs it that second, which the increment it earns with every turn more than pays back.
 */
async function loseBothOnTime(app: TestApp, clock: ManualClock, pair: Json, loser: Bot, mover: Bot): Promise<void> {
  const random = prng(pair.index + 1);
  const whiteOf = (game: number) => pair.players[game === 0 ? 0 : 1].name as string;
  let settled = '';
  for (let step = 0; step < 400; step++) {
    await pause();
    const states = await Promise.all(pair.games.map((g: string) => gameState(app, g)));
    if (states.every((s) => 'Ended' in s.status)) return;
    let moved = false;
    for (const [game, s] of states.entries()) {
      if ('Ended' in s.status || !s.dicePending) continue;
      const white = whiteOf(game);
      const seated = s.activeSeat === 'White' ? white : white === loser.creds.name ? mover.creds.name : loser.creds.name;
      if (seated !== mover.creds.name) continue;
      const tree = await fullTree(app, pair.games[game]);
      const r = await mover.move(pair.games[game], randomPath(tree.legalMoves as Tree, random));
      if (r.status !== 200) throw new Error(`move: ${r.status} ${r.text}`);
      moved = true;
    }
    const look = JSON.stringify(states.map((s) => [s.version, s.dicePending]));
    if (moved || look !== settled) {
      settled = moved ? '' : look;
      continue;
    }
    clock.advance(1_000);
    settled = '';
  }
  throw new Error(`pair ${pair.index} did not end`);
}

t.test('event games lost on time do not take a bot off the ladder', async (t) => {
  const clock = new ManualClock(undefined, { runDueTimers: true });
  const app = await bootApp(t, { clock, store: await diskStore(t) });
  const host = await Bot.register(app, 'hosts', 'boss');
  const alpha = await Bot.register(app, 'acme', 'alpha');
  const beta = await Bot.register(app, 'acme', 'beta');
  t.equal((await alpha.req('POST', '/bot/ladder/join')).status, 200);
  const created = await host.req('POST', '/events', {
    name: 'blitz', format: 'match', players: [face(alpha), face(beta)], timeControl: { Fischer: { initialSeconds: 3, incrementSeconds: 10 } },
    pairsPerEncounter: 2, rated: true,
  });
  const id = (created.json as Json).eventId as string;
  for (const b of [alpha, beta]) t.equal((await b.req('POST', `/events/${id}/accept`)).status, 200, `${b.creds.name} accepts`);
  for (let i = 0; i < 2; i++) {
    const ev = await waitEvent(app, id, (e) => e.pairs.length > i);
    await loseBothOnTime(app, clock, ev.pairs[i], alpha, beta);
  }
  const ev = await waitEvent(app, id);
  t.equal(ev.standings.find((r: Json) => r.name === 'alpha').timeLosses, 4, 'alpha lost all four games on time');

  const profile = (await app.req('GET', '/bots/acme/alpha')).json as Json;
  t.equal(profile.onLadder, true, 'alpha is still on the ladder');
  t.equal(profile.offLadderReason, null);
  t.equal(app.server.store.getBot(alpha.id)!.ladderTimeLosses ?? 0, 0, 'no run of ladder time losses began');

  await app.server.ratings.runBatch();
  const rated = (await app.req('GET', '/bots/acme/alpha')).json as Json;
  t.ok(rated.rating < 1500, `a rated event between registered bots still moves ratings (${rated.rating})`);
  t.ok(rated.recent.every((g: Json) => g.rated === true), 'its games are rated');
});

t.test('in a rated event, games against a house bot move no rating', async (t) => {
  const app = await bootApp(t, { store: await diskStore(t) });
  const host = await Bot.register(app, 'hosts', 'boss');
  // Alpha resigns each game the moment it starts, so it loses them all.
  const alpha = await new ResigningBot(await Bot.register(app, 'acme', 'alpha'), 'none').start();
  t.teardown(() => alpha.close());
  const created = await host.req('POST', '/events', {
    name: 'rated vs house', format: 'match', players: [face(alpha.bot), HOUSE_RANDOM], timeControl: UNLIMITED, pairsPerEncounter: 2, rated: true,
  });
  t.equal((created.json as Json).state, 'pending', created.text);
  const id = (created.json as Json).eventId as string;
  t.equal((await alpha.bot.req('POST', `/events/${id}/accept`)).status, 200, 'alpha accepts the rated event');
  const ev = await waitEvent(app, id);
  t.equal(ev.state, 'finished');
  t.equal(ev.rated, true, 'the event is rated');
  t.equal(ev.standings.find((r: Json) => r.name === 'alpha').losses, 4, 'alpha lost every game');
  await app.server.ratings.runBatch();
  const profile = (await app.req('GET', '/bots/acme/alpha')).json as Json;
  t.equal(profile.rating, 1500, 'four losses to a house bot left the rating alone');
  t.equal(profile.rd, 350);
  t.equal(profile.recent.length, 4);
  t.ok(profile.recent.every((g: Json) => g.rated === false), 'each game was played unrated');
});
