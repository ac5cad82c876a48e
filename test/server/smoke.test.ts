// The smallest whole-service check: a bot mints a token, challenges house/random, plays its turns
// from the game stream's legal-move trees until the game ends, and reads the reveal.
import t from 'tap';
import { anonBot, bootApp } from '../helpers/app.js';
import { randomPath, type Tree } from '../helpers/play.js';



t.test('a bot plays a whole game against house/random', async (t) => {
  const app = await bootApp(t);
  const bot = await anonBot(app, 'smoke');
  const ch = await app.req('POST', '/bot/challenge', { token: bot.token, body: { team: 'house', name: 'random' } });
  t.equal(ch.status, 201);
  let gameId: string | undefined;
  for (let i = 0; i < 50 && !gameId; i++) {
    const games = await app.req('GET', '/bot/games', { token: bot.token });
    gameId = (games.json as { games: { gameId: string }[] }).games[0]?.gameId;
  }
  t.ok(gameId, 'the house bot accepted and the game is listed');
  const stream = await app.stream(`/bot/game/stream/${gameId}`, bot.token);
  let ended = false;
  let turns = 0;
  const play = async (inline: Tree | null | undefined) => {
    // Inline trees over 1000 leaves are null: the full tree is always at /games/{id}/moves.
    const tree = inline ?? ((await app.req('GET', `/games/${gameId}/moves`)).json as { legalMoves: Tree }).legalMoves;
    if (!Object.keys(tree).length) return;
    const v = await app.req('POST', `/bot/game/${gameId}/move`, { token: bot.token, body: { moves: randomPath(tree) } });
    t.equal(v.status, 200, 'a root-to-leaf path is applied');
    turns++;
  };
  for (let line = await stream.next(); line !== undefined; line = await stream.next()) {
    if (line === '') continue;
    const ev = JSON.parse(line);
    if (ev.Snapshot?.state.dicePending && ev.Snapshot.state.activeSeat === 'White') await play(ev.Snapshot.state.legalMoves);
    if (ev.DiceRolled?.seat === 'White') await play(ev.DiceRolled.legalMoves);
    if (ev.GameEnded) ended = true;
  }
  t.ok(ended, 'the stream ended with GameEnded');
  t.ok(turns > 0, 'the bot played turns');
  const final = await app.req('GET', `/games/${gameId}`);
  const state = final.json as { seed: string | null; status: Record<string, unknown> };
  t.ok('Ended' in state.status, 'the game is over');
  t.match(state.seed, /^[0-9a-f]{64}$/, 'the server seed is revealed');
});
