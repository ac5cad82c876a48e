// A bot on the typed client, without the bridge: it challenges house/random and plays the first
// legal turn of every roll it gets until the game ends. `make build` compiles it (the main tsconfig
// includes examples/); run it with: node dist/examples/client-bot.js http://127.0.0.1:8080
import { Client, unwrap } from 'dicechess/client';
const c = new Client({ url: process.argv[2] ?? 'http://127.0.0.1:8080' });
c.token = unwrap(await c.account.mintAnonymous({ name: 'ten-liner' })).token;
unwrap(await c.challenges.create({ team: 'house', name: 'random' })); // the challenger plays White
let id: string | undefined;
while (!(id = unwrap(await c.games.mine()).games[0]?.gameId)) await new Promise((r) => setTimeout(r, 250)); // the house accepts in a moment
for await (const e of c.streams.game(id)) {
  if ('GameEnded' in e) console.log(JSON.stringify(e.GameEnded.over));
  const state = 'Snapshot' in e ? e.Snapshot.state : undefined; // the roll may precede the stream
  if (!('DiceRolled' in e ? e.DiceRolled.seat === 'White' : state?.dicePending && state.activeSeat === 'White')) continue;
  const roll = unwrap(await c.games.legalMoves(id)), moves: string[] = [];
  for (let t = roll.legalMoves, k = Object.keys(t); k.length; t = t[k[0]!]!, k = Object.keys(t)) moves.push(k[0]!);
  if (moves.length) await c.games.move(id, { moves, version: roll.version }); // {} is a forced pass
}
