// The smallest whole-service check: a bot mints a token, challenges house/random, plays its turns
// from the game stream's legal-move trees until the game ends, and reads the reveal.
import t from 'tap';
import { anonBot, bootApp } from '../helpers/app.js';

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
  for (let line = await stream.next(); line !== undefined; line = await stream.next()) {
    if (line === '') continue;
    const ev = JSON.parse(line) as Record<string, { seat?: string; legalMoves?: Record<string, object> | null }>;
    const rolled = ev.DiceRolled;
    if (rolled && rolled.seat === 'White' && rolled.legalMoves && Object.keys(rolled.legalMoves).length) {
      let tree = rolled.legalMoves as Record<string, object>;
      const moves: string[] = [];
      while (Object.keys(tree).length) {
        const k = Object.keys(tree)[0];
        moves.push(k);
        tree = tree[k] as Record<string, object>;
      }
      const v = await app.req('POST', `/bot/game/${gameId}/move`, { token: bot.token, body: { moves } });
      t.equal(v.status, 200, 'a root-to-leaf path is applied');
      turns++;
    }
    if (ev.GameEnded) ended = true;
  }
  t.ok(ended, 'the stream ended with GameEnded');
  t.ok(turns > 0, 'the bot played turns');
  const final = await app.req('GET', `/games/${gameId}`);
  const state = final.json as { seed: string | null; status: Record<string, unknown> };
  t.ok('Ended' in state.status, 'the game is over');
  t.match(state.seed, /^[0-9a-f]{64}$/, 'the server seed is revealed');
});
