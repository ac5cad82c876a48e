// A webhook bot for tests: answers each yourTurn with a random complete turn, from the inline tree or,
// when the state carries none (over the inline cap), from GET /games/{id}/moves.
import type { TestApp } from './app.js';
import { Bot } from './bot.js';
import { startReceiver, type Answer, type Delivery, type Receiver } from './webhook-receiver.js';
import { randomPath, type Tree } from './play.js';
import { prng } from './prng.js';
import { request, type Teardown } from './http.js';

export function randomTurns(base: string, random: () => number): (d: Delivery) => Promise<Answer> {
  return async (d) => {
    let tree = d.json.state.legalMoves as Tree | null;
    if (tree === null) {
      const r = await request('GET', `${base}/games/${d.json.gameId}/moves`);
      tree = (r.json as { legalMoves: Tree }).legalMoves;
    }
    return { status: 200, json: { moves: randomPath(tree, random) } };
  };
}

/** Problems with the yourTurn deliveries a receiver got: unsigned, repeated rolls, wrong seat. */
export function deliveryProblems(deliveries: readonly Delivery[], seatOf: (gameId: string) => string): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const d of deliveries) {
    if (d.json.type !== 'yourTurn') continue;
    if (d.signatureOk !== true) out.push(`unsigned delivery v${d.json.state?.version}`);
    const key = `${d.json.gameId}@${d.json.state.version}`;
    if (seen.has(key)) out.push(`two deliveries for the roll ${key}`);
    seen.add(key);
    const seat = seatOf(d.json.gameId);
    if (d.json.seat !== seat || d.json.state.activeSeat !== seat || d.json.state.dicePending !== true) {
      out.push(`${key}: delivered to ${d.json.seat}, active ${d.json.state.activeSeat}, pending ${d.json.state.dicePending}`);
    }
  }
  return out;
}

/** Registers the receiver's URL as `bot`'s webhook (verified on the spot) and gives the receiver the secret. */
export async function registerWebhook(bot: Bot, rx: Receiver): Promise<void> {
  const r = await bot.req('POST', '/bot/webhook', { url: rx.url });
  if (r.status !== 201) throw new Error(`webhook registration: ${r.status} ${r.text}`);
  rx.setSecret((r.json as { secret: string }).secret);
}

/** A registered bot whose webhook answers every turn with a random legal one (RNG seeded by `seed`). */
export async function webhookBot(t: Teardown, app: TestApp, team: string, name: string, seed: number): Promise<{ bot: Bot; rx: Receiver }> {
  const bot = await Bot.register(app, team, name);
  const rx = await startReceiver(t);
  rx.onTurn = randomTurns(app.base, prng(seed));
  await registerWebhook(bot, rx);
  return { bot, rx };
}
