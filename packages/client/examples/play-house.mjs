// A whole bot on dicechess-client: it challenges house/random, plays the first legal turn of every
// roll it gets, and prints how the game ended. Run it against a server:
//   node node_modules/dicechess-client/examples/play-house.mjs http://127.0.0.1:8080
import { Client, unwrap } from 'dicechess-client';

const client = new Client({ url: process.argv[2] ?? 'http://127.0.0.1:8080', userAgent: 'play-house-example' });
client.token = unwrap(await client.account.mintAnonymous({ name: 'example' })).token;
unwrap(await client.challenges.create({ team: 'house', name: 'random' })); // the challenger plays White
let id;
while (!(id = unwrap(await client.games.mine()).games[0]?.gameId)) await new Promise((r) => setTimeout(r, 250)); // the house accepts in a moment
for await (const e of client.streams.game(id)) {
  if ('GameEnded' in e) console.log(JSON.stringify(e.GameEnded.over));
  const state = 'Snapshot' in e ? e.Snapshot.state : undefined; // the roll may come before the stream opens
  if (!('DiceRolled' in e ? e.DiceRolled.seat === 'White' : state?.dicePending && state.activeSeat === 'White')) continue;
  const roll = unwrap(await client.games.legalMoves(id));
  const moves = [];
  for (let t = roll.legalMoves, k = Object.keys(t); k.length; t = t[k[0]], k = Object.keys(t)) moves.push(k[0]);
  // `version` makes the move safe to retry; a roll with no legal turn is passed by sending no moves.
  if (moves.length) await client.games.move(id, { moves, version: roll.version });
}
