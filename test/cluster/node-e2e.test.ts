// A whole cluster of real processes: three nats-server (one JetStream cluster, R3) and three
// `dicechess serve --cluster … --node NAME`. Bots registered on one node authenticate on the others;
// games are created through one node, their GameStart read on another's account stream, their moves
// posted to a second node and their game streams read from a third; every game plays to its end
// with contiguous versions, and every node then shows the same ended game.
import t from 'tap';
import { startNodeCluster, type ClusterNodeProc } from '../helpers/cluster-nodes.js';
import { openLines, request, type HttpResult } from '../helpers/http.js';
import { EventStream, kindOf, type Ev } from '../helpers/event-stream.js';
import { randomPath, type Tree } from '../helpers/play.js';
import { prng } from '../helpers/prng.js';
import { versionGaps } from '../helpers/audit.js';
import { eventually } from '../helpers/nats-cluster.js';

type Json = any;
const GAMES = 12;

const { nodes } = await startNodeCluster(t, 'dc-nodes', {
  cluster: { shards: 8, leaseTtlMs: 10_000 },
  limits: { registrationsPerHour: 1000 },
  games: { houseMoveDelayMs: 0, seedGraceMs: 0 },
  ladder: { ratingBatchMs: 500 },
});

const call = (node: ClusterNodeProc, method: string, path: string, token?: string, body?: unknown): Promise<HttpResult> =>
  request(method, node.url + path, {
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

const stream = async (node: ClusterNodeProc, path: string, token: string): Promise<EventStream> =>
  new EventStream(await openLines(node.url + path, { authorization: `Bearer ${token}` }), 30_000);

const logs = (): string => nodes.map((n) => `--- ${n.name}\n${n.log.slice(-15).join('\n')}`).join('\n');

interface Played {
  i: number;
  gameId: string;
  events: Ev[];
  /** The events of each connection of the game stream. */
  segments: Ev[][];
  verdicts: number;
}

/** One bot plays White against house/random: created on node x, streamed from y, moves posted to z. */
async function playOne(i: number): Promise<Played> {
  const [x, y, z] = [nodes[i % 3], nodes[(i + 1) % 3], nodes[(i + 2) % 3]];
  const reg = await call(x, 'POST', '/bot/register', undefined, { team: `e2e${i}`, name: 'p' });
  if (reg.status !== 201 && reg.status !== 200) throw new Error(`register: ${reg.status} ${reg.text}`);
  const token = (reg.json as Json).token as string;
  // The bot's registration reaches the other nodes through the bots bucket.
  if (!(await eventually(async () => (await call(z, 'GET', '/bot/games', token)).status === 200))) throw new Error('the token never worked on another node');
  const account = await stream(z, '/bot/stream/event', token);
  const ch = await call(x, 'POST', '/bot/challenge', token, { team: 'house', name: 'random' });
  if (ch.status !== 201) throw new Error(`challenge: ${ch.status} ${ch.text}`);
  const start = await account.until((e) => kindOf(e) === 'GameStart', 'GameStart');
  account.close();
  const gameId = start.GameStart.gameId as string;
  const seat = 'White'; // the challenger plays White
  const random = prng(1000 + i);
  const events: Ev[] = [];
  const segments: Ev[][] = [];
  let verdicts = 0;
  const act = async (v: number, inline: Tree | null): Promise<void> => {
    let tree = inline;
    if (tree === null) tree = ((await call(y, 'GET', `/games/${gameId}/moves`)).json as Json).legalMoves as Tree;
    if (Object.keys(tree).length === 0) return;
    const moves = randomPath(tree, random);
    for (let attempt = 0; ; attempt++) {
      const r = await call(z, 'POST', `/bot/game/${gameId}/move`, token, { moves, version: v });
      // 202: taken, its verdict still on its way (the TurnPlayed on the stream tells).
      if (r.status === 200 || r.status === 202) {
        verdicts++;
        return;
      }
      if (attempt > 150 || (r.status !== 429 && r.status !== 503)) throw new Error(`move v${v}: ${r.status} ${r.text}`);
      await new Promise((res) => setTimeout(res, 200));
    }
  };
  // A stream the server ends before GameEnded (its replica saw a gap, or the game moved to another
  // node at a version it had not shown) is opened again: it starts over with a Snapshot.
  for (let k = 0; k < 20 && kindOf(events.at(-1) ?? { none: 1 }) !== 'GameEnded'; k++) {
    const game = await stream(y, `/bot/game/stream/${gameId}`, token);
    const seg: Ev[] = [];
    segments.push(seg);
    for (let ev = await game.next(); ev; ev = await game.next()) {
      events.push(ev);
      seg.push(ev);
      const s = ev.Snapshot?.state;
      if (s && 'Active' in s.status && s.dicePending && s.activeSeat === seat) await act(s.version, s.legalMoves ?? null);
      if (ev.DiceRolled?.seat === seat) await act(ev.DiceRolled.v, ev.DiceRolled.legalMoves ?? null);
    }
    game.close();
  }
  return { i, gameId, events, segments, verdicts };
}

t.test('bots on three nodes play whole games across them', async (t) => {
  let played: Played[];
  try {
    played = await Promise.all(Array.from({ length: GAMES }, (_, i) => playOne(i)));
  } catch (e) {
    console.error(logs());
    console.error(nodes.map((n) => n.log.filter((l) => /"level":[45]0/.test(l)).slice(-10).join('\n')).join('\n'));
    t.fail((e as Error).message);
    return;
  }
  for (const p of played) {
    const last = p.events.at(-1)!;
    t.equal(kindOf(last), 'GameEnded', `${p.gameId}: its stream ended with GameEnded`);
    t.same(p.segments.flatMap((seg) => versionGaps(seg)), [], `${p.gameId}: versions strictly +1 on each connection of its stream (${p.segments.length})`);
    t.ok(p.segments.every((seg) => seg.length > 0 && kindOf(seg[0]) === 'Snapshot'), `${p.gameId}: each connection began with a Snapshot`);
    t.ok(p.verdicts > 0, `${p.gameId}: the bot's moves were applied (${p.verdicts})`);
    for (const n of nodes) {
      const h = (await call(n, 'GET', `/games/${p.gameId}/history`)).json as Json;
      t.same(h?.status, { Ended: { over: last.GameEnded.over } }, `${p.gameId}: node ${n.name} shows the same end`);
      // The bot's result line is in the cluster's store: every node's profile lists the game.
      const listed = await eventually(async () => {
        const prof = (await call(n, 'GET', `/bots/e2e${p.i}/p`)).json as Json;
        return prof?.recent?.some((r: Json) => r.gameId === p.gameId) === true;
      });
      t.ok(listed, `${p.gameId}: node ${n.name} lists it in the bot's results`);
    }
  }
});
