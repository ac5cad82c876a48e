// kill -9 of a node mid-play. Three nats-server, three `dicechess serve --cluster` nodes; bots play
// house games with their streams and moves spread over the nodes, and node b is killed -9 while the
// games run. Its shards' leases expire, the others take its games over from the log, and every game
// ends: each bot's streams reconnect to a live node (a Snapshot first), each version a stream shows
// follows the one before, every move the server acknowledged is in the final history, in order, and
// none is applied twice.
import t from 'tap';
import { eventually, startNatsCluster } from '../helpers/nats-cluster.js';
import { settingsFile, settled, startNode, type ClusterNodeProc } from '../helpers/cluster-nodes.js';
import { openLines, request, type HttpResult } from '../helpers/http.js';
import { EventStream, kindOf, type Ev } from '../helpers/event-stream.js';
import { randomPath, type Tree } from '../helpers/play.js';
import { prng } from '../helpers/prng.js';
import { versionGaps } from '../helpers/audit.js';

type Json = any;
const GAMES = 9;
const SHARDS = 6;
const QUIET_MS = 6000;

const nats = await startNatsCluster({ name: 'dc-kill' });
const settings = settingsFile({
  cluster: { shards: SHARDS, leaseTtlMs: 3000 },
  limits: { registrationsPerHour: 1000 },
  games: { houseMoveDelayMs: 150, seedGraceMs: 0 },
});
const nodes: ClusterNodeProc[] = [];
t.teardown(async () => {
  await Promise.all(nodes.map((n) => n.stop()));
  await nats.stop();
  settings.remove();
});
for (const name of ['a', 'b', 'c']) nodes.push(await startNode(name, nats.urls, settings.file));
if (!(await eventually(() => settled(nodes, SHARDS), 60_000))) throw new Error('the shards never settled');
const victim = nodes[1];
const alive = (): ClusterNodeProc[] => nodes.filter((n) => n.child.exitCode === null && n.child.signalCode === null);

const call = (node: ClusterNodeProc, method: string, path: string, token?: string, body?: unknown): Promise<HttpResult> =>
  request(method, node.url + path, {
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

/** Tries the nodes from `first` on until one answers (a dead node refuses the connection). */
async function anyNode(first: number, f: (n: ClusterNodeProc) => Promise<HttpResult>): Promise<HttpResult> {
  for (let attempt = 0; ; attempt++) {
    const list = alive();
    const n = list[(first + attempt) % list.length];
    try {
      return await f(n);
    } catch (e) {
      if (attempt > 20) throw e;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

/** The next event, or 'quiet' after QUIET_MS without one (the stream is then given up). */
async function nextOrQuiet(s: EventStream): Promise<Ev | undefined | 'quiet'> {
  let timer: NodeJS.Timeout | undefined;
  const quiet = new Promise<'quiet'>((r) => (timer = setTimeout(() => r('quiet'), QUIET_MS)));
  try {
    return await Promise.race([s.next().catch(() => undefined), quiet]);
  } finally {
    clearTimeout(timer);
  }
}

interface Played {
  gameId: string;
  token: string;
  /** The events of each stream the bot held, one list per connection. */
  segments: Ev[][];
  acked: { version: number; moves: string[] }[];
  submitted: Set<number>;
  ended: Ev | undefined;
}

let turnsSeen = 0;

async function playOne(i: number): Promise<Played> {
  const reg = await anyNode(i, (n) => call(n, 'POST', '/bot/register', undefined, { team: `kill${i}`, name: 'p' }));
  const token = (reg.json as Json).token as string;
  await eventually(async () => (await anyNode(i + 2, (n) => call(n, 'GET', '/bot/games', token))).status === 200);
  const ch = await anyNode(i, (n) => call(n, 'POST', '/bot/challenge', token, { team: 'house', name: 'random' }));
  if (ch.status !== 201) throw new Error(`challenge: ${ch.status} ${ch.text}`);
  let gameId = '';
  await eventually(async () => {
    const games = ((await anyNode(i, (n) => call(n, 'GET', '/bot/games', token))).json as Json)?.games ?? [];
    gameId = games[0]?.gameId ?? '';
    return gameId !== '';
  });
  if (gameId === '') throw new Error(`game ${i} never listed`);
  const random = prng(5000 + i);
  const p: Played = { gameId, token, segments: [], acked: [], submitted: new Set(), ended: undefined };
  const act = async (v: number, inline: Tree | null): Promise<void> => {
    const tree = inline ?? (((await anyNode(i, (n) => call(n, 'GET', `/games/${gameId}/moves`))).json as Json).legalMoves as Tree);
    if (Object.keys(tree).length === 0) return;
    const moves = randomPath(tree, random);
    p.submitted.add(v);
    for (let attempt = 0; attempt < 60; attempt++) {
      const r = await anyNode(i + 1 + attempt, (n) => call(n, 'POST', `/bot/game/${gameId}/move`, token, { moves, version: v }));
      if (r.status === 200) {
        p.acked.push({ version: v, moves: (r.json as Json).moves ?? moves });
        turnsSeen++;
        return;
      }
      if (r.status === 202 || r.status === 409) return; // taken (the stream tells), or no longer this roll
      await new Promise((res) => setTimeout(res, 250));
    }
  };
  for (let k = 0; p.ended === undefined && k < 200; k++) {
    const nodesNow = alive();
    const node = nodesNow[(i + 2 + k) % nodesNow.length];
    let s: EventStream;
    try {
      s = new EventStream(await openLines(`${node.url}/bot/game/stream/${gameId}`, { authorization: `Bearer ${token}` }), 60_000);
    } catch {
      continue;
    }
    const seg: Ev[] = [];
    p.segments.push(seg);
    for (;;) {
      const ev = await nextOrQuiet(s);
      if (ev === undefined || ev === 'quiet') break;
      seg.push(ev);
      const st = ev.Snapshot?.state;
      if (st && 'Active' in st.status && st.dicePending && st.activeSeat === 'White') await act(st.version, st.legalMoves ?? null);
      if (ev.DiceRolled?.seat === 'White') await act(ev.DiceRolled.v, ev.DiceRolled.legalMoves ?? null);
      if (ev.GameEnded) p.ended = ev;
    }
    s.close();
  }
  return p;
}

t.test('every game ends after kill -9 of a node mid-play, losing no acknowledged move', async (t) => {
  const playing = Promise.all(Array.from({ length: GAMES }, (_, i) => playOne(i)));
  // Mid-play: once the bots have had some moves acknowledged.
  t.ok(await eventually(() => turnsSeen >= GAMES * 2, 60_000), 'games are under way');
  await victim.kill9();
  t.pass(`node ${victim.name} killed -9 after ${turnsSeen} acknowledged moves`);
  let played: Played[];
  try {
    played = await playing;
  } catch (e) {
    console.error(alive().map((n) => `--- ${n.name}\n${n.log.slice(-20).join('\n')}`).join('\n'));
    t.fail((e as Error).message);
    return;
  }
  for (const p of played) {
    t.ok(p.ended, `${p.gameId}: ended (${p.segments.length} stream connections)`);
    t.ok(p.segments.every((seg) => seg.length === 0 || kindOf(seg[0]) === 'Snapshot'), `${p.gameId}: every connection began with a Snapshot`);
    t.same(p.segments.flatMap((seg) => versionGaps(seg)), [], `${p.gameId}: within each connection, versions +1`);
    const h = (await anyNode(0, (n) => call(n, 'GET', `/games/${p.gameId}/history`))).json as Json;
    t.ok(h?.status && 'Ended' in h.status, `${p.gameId}: a live node shows it ended`);
    const white: string[][] = (h?.history ?? []).filter((e: Json) => e.seat === 'White' && e.moves.length > 0).map((e: Json) => e.moves);
    // Every acknowledged move is in the history, in the order of its versions.
    let at = 0;
    const lost: number[] = [];
    for (const a of [...p.acked].sort((x, y) => x.version - y.version)) {
      while (at < white.length && JSON.stringify(white[at]) !== JSON.stringify(a.moves)) at++;
      if (at === white.length) lost.push(a.version);
      else at++;
    }
    t.same(lost, [], `${p.gameId}: no acknowledged move lost (${p.acked.length} acknowledged)`);
    t.ok(white.length <= p.submitted.size, `${p.gameId}: no move applied twice (${white.length} played, ${p.submitted.size} rolls answered)`);
  }
});
