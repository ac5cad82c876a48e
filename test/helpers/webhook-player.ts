// A webhook bot for tests: answers each yourTurn with a random complete turn, from the inline tree or,
// when the state carries none (over the inline cap), from GET /games/{id}/moves.
import type { Answer, Delivery } from './webhook-receiver.js';
import { randomPath, type Tree } from './play.js';
import { request } from './http.js';

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
