// A bot on the typed client, without the bridge: it challenges house/random and plays the first
// legal turn of every roll until the game ends. Build with `make build` (the main tsconfig compiles
// examples/), then: node dist/examples/client-bot.js http://127.0.0.1:8080
import { Client, unwrap } from 'dicechess/client';

const client = new Client({ url: process.argv[2] ?? 'http://127.0.0.1:8080' });
client.token = unwrap(await client.mintAnonymous({ name: 'client-bot' })).token;
const { id } = unwrap(await client.createChallenge({ team: 'house', name: 'random' }));
console.log(`challenged house/random (${id})`);

// The house accepts at once; the game starts on the account stream.
const account = client.streamAccountEvents();
let gameId: string | undefined;
for await (const event of account) {
  if ('GameStart' in event) {
    gameId = event.GameStart.gameId;
    break;
  }
}
account.close();

for await (const event of client.streamGameEvents(gameId!)) {
  if ('DiceRolled' in event && event.DiceRolled.seat === 'White') {
    // The challenger plays White. A null tree is too big to inline: fetch it.
    let tree = event.DiceRolled.legalMoves ?? unwrap(await client.getLegalMoves(gameId!)).legalMoves;
    const moves: string[] = [];
    for (let keys = Object.keys(tree); keys.length; keys = Object.keys(tree)) {
      moves.push(keys[0]!);
      tree = tree[keys[0]!]!;
    }
    if (moves.length) await client.submitMove(gameId!, { moves, version: event.DiceRolled.v });
  }
  if ('GameEnded' in event) console.log(`game ${gameId} ended:`, JSON.stringify(event.GameEnded.over));
}
