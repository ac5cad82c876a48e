// A ladder mirror pair through HTTP: two registered bots on the ladder with account streams are
// paired by a scheduler round, both get GameStart for both games, and while one game waits for the
// other, every public and authenticated route and stream of both games is walked: none shows the
// server seed, the client seeds or the roll that is not yet published. Then the first game to end
// withholds its reveal and the later one reveals both.
import t from 'tap';
import { withDice } from '../../src/engine/index.js';
import { hexToSeed, rollDice } from '../../src/fair/index.js';
import { bootApp, type TestApp } from '../helpers/app.js';
import { Bot } from '../helpers/bot.js';
import { EventStream, kindOf, type Ev } from '../helpers/event-stream.js';
import { randomPath, type Tree } from '../helpers/play.js';
import { prng as rng } from '../helpers/prng.js';

async function ladderBot(app: TestApp, name: string): Promise<Bot> {
  const b = await Bot.register(app, 'ladder', name);
  const j = await b.req('POST', '/bot/ladder/join');
  if (j.status !== 200) throw new Error(`join: ${j.status}`);
  const store = app.server.store;
  await store.updateBot({ ...store.getBot(b.id)!, capacity: 2 });
  return b;
}

t.test('mid-pair, no route or stream leaks the seed or an unpublished roll; the later end reveals', async (t) => {
  const app = await bootApp(t);
  const random = rng(21);
  const alpha = await ladderBot(app, 'alpha');
  const beta = await ladderBot(app, 'beta');
  const watcher = await Bot.anon(app, 'watcher');
  const acctA = await alpha.accountStream();
  const acctB = await beta.accountStream();
  t.equal(await app.server.scheduler.round(), 1, 'one mirror pair');

  const starts = async (s: EventStream) => {
    const ids = [];
    for (let i = 0; i < 2; i++) ids.push((await s.until((e) => kindOf(e) === 'GameStart')).GameStart.gameId as string);
    return ids.sort();
  };
  const ids = await starts(acctA);
  t.same(await starts(acctB), ids, 'both bots get GameStart for both games');
  const recs = ids.map((id) => app.server.games.find(id)!.record());
  const g1 = recs.find((r) => r.white.id === alpha.id)!.id; // alpha White
  const g2 = recs.find((r) => r.white.id === beta.id)!.id; // beta White
  const rec = app.server.games.find(g1)!.record();
  const secrets = [rec.serverSeed, rec.clientSeeds.white!, rec.clientSeeds.black!];

  const streams: EventStream[] = [];
  for (const id of [g1, g2]) for (const b of [alpha, beta, watcher]) streams.push(await b.gameStream(id));

  // The mover of g1 plays its first decision (forced passes before it are played by the server in
  // both games alike); g1 then waits for g2 to reach the same roll.
  const tree = (await app.req('GET', `/games/${g1}/moves`)).json as { legalMoves: Tree; dicePending: boolean };
  t.ok(tree.dicePending, 'g1 has a roll pending');
  const before = app.server.games.find(g1)!.record();
  const mover = before.activeSeat === 'White' ? alpha : beta;
  const played = await mover.move(g1, randomPath(tree.legalMoves, random));
  t.equal(played.status, 200, `the mover played in g1: ${played.text}`);
  const after = app.server.games.find(g1)!.record();
  if ('Ended' in after.status) return t.fail('king captured at once (choose another rng seed)');
  const [s0, cw, cb] = secrets;
  const future = withDice(after.fen, rollDice(hexToSeed(s0)!, cw, cb, before.ply));
  if (!future.ok) throw new Error('bad dfen');
  const g1State = (await app.req('GET', `/games/${g1}`)).json as { dicePending: boolean };
  t.notOk(g1State.dicePending, 'g1 waits: its roll 1 is not published');

  const leaks = (label: string, text: string): void => {
    for (const s of [...secrets, future.value]) {
      if (text.includes(s)) t.fail(`${label} leaks ${s.slice(0, 24)}…`);
    }
  };
  const walk = async (tag: string) => {
    for (const token of [alpha.token, beta.token, watcher.token, undefined]) {
      const who = `${tag} ${token === alpha.token ? 'alpha' : token === beta.token ? 'beta' : token ? 'watcher' : 'public'}`;
      const gets = ['/games', '/bot/games', '/bot/account', '/leaderboard', '/bots/ladder/alpha', '/metrics', '/lobby/seeks', '/bot/challenges'];
      for (const id of [g1, g2]) gets.push(`/games/${id}`, `/games/${id}/moves`, `/games/${id}/history`);
      for (const path of gets) leaks(`${who} GET ${path}`, (await app.req('GET', path, { token })).text);
      for (const id of [g1, g2]) {
        const posts: [string, unknown][] = [
          [`/bot/game/${id}/seed`, { seed: 'a-client-seed-of-my-own' }],
          [`/bot/game/${id}/seed`, { seed: 'short' }],
          [`/bot/game/${id}/move`, { moves: ['a1a1'] }],
          [`/bot/game/${id}/move`, { moves: 'nonsense' }],
        ];
        for (const [path, body] of posts) leaks(`${who} POST ${path}`, (await app.req('POST', path, { token, body })).text);
      }
    }
  };
  await walk('mid-pair');
  t.notOk(((await app.req('GET', `/games/${g1}`)).json as { dicePending: boolean }).dicePending, 'still waiting after the walk');
  // Each game stream has received everything published so far once it shows the walk's last refusal.
  // (beta's refused move is the last event the walk causes in each game).
  for (const [i, s] of streams.entries()) {
    const betaSeat = i < 3 ? 'Black' : 'White';
    await s.until((e: Ev) => kindOf(e) === 'Rejected' && e.Rejected.seat === betaSeat && !/seed/.test(e.Rejected.reason), 'the walk’s refusals');
  }
  for (const s of [...streams, acctA, acctB]) leaks('a stream', JSON.stringify(s.seen));
  t.same(app.server.games.find(g1)!.record().clientSeeds, after.clientSeeds, 'submitted client seeds were ignored');

  // g1 ends first: its reveal is withheld everywhere.
  t.equal((await alpha.resign(g1)).status, 202);
  const endedG1 = (await streams[2].until((e) => kindOf(e) === 'GameEnded')).GameEnded;
  t.same([endedG1.seed, endedG1.clientSeeds], [null, null], 'GameEnded of the first game withholds the reveal');
  await walk('g1 ended');
  for (const s of streams.slice(0, 3)) leaks('g1 stream', JSON.stringify(s.seen));

  // g2 ends: its GameEnded reveals, and both games show the reveal on GET /games/{id} and /history.
  t.equal((await beta.resign(g2)).status, 202);
  const endedG2 = (await streams[5].until((e) => kindOf(e) === 'GameEnded')).GameEnded;
  t.equal(endedG2.seed, s0, 'the later GameEnded carries the seed');
  t.same(endedG2.clientSeeds, { white: cw, black: cb }, 'and the server-chosen client seeds');
  for (const id of [g1, g2]) {
    const st = (await app.req('GET', `/games/${id}`)).json as { seed: string | null };
    const hist = (await app.req('GET', `/games/${id}/history`)).json as { seed: string | null; clientSeeds: unknown };
    t.equal(st.seed, s0, `GET /games/${id === g1 ? 'g1' : 'g2'} reveals`);
    t.same([hist.seed, hist.clientSeeds], [s0, { white: cw, black: cb }], `its /history reveals`);
  }
  for (const s of [acctA, acctB, ...streams]) s.close();
});
