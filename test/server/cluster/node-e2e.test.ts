// A whole cluster of real processes: three nats-server (one JetStream cluster, R3) and three
// `dicechess serve --cluster … --node NAME`, shared by the scenarios below (none kills or pauses
// anything, so one cluster serves them all, one after the other).
// - Whole games across nodes: bots registered on one node authenticate on the others; games are
//   created through one node, their GameStart read on another's account stream, their moves posted to
//   a second node and their game streams read from a third; every game plays to its end with
//   contiguous versions, and every node then shows the same ended game.
// - State that used to live in one node's memory: a challenge made on one node reaches the target's
//   stream on another and is accepted on a third (both get GameStart), and a stream opened after the
//   challenge (or after the game started) on any node replays it first; an anonymous token minted on
//   one node works on another; a guest seek made on one node is listed on another, taken on a third,
//   and the guest's seat token works on a node that did not issue it.
// - The ladder: two bots registered on different nodes join the ladder; its scheduler (a singleton,
//   on whichever node holds its lease) pairs them, they play by polling, each request going to the
//   next node; the rating batch (another singleton) rates every game once, and every node shows the
//   same ratings, counts and rating history.
import t from 'tap';
import { startNodeCluster, type ClusterNodeProc } from '../../helpers/cluster-nodes.js';
import { openLines, request, type HttpResult } from '../../helpers/http.js';
import { EventStream, kindOf, type Ev } from '../../helpers/event-stream.js';
import { randomPath, type Tree } from '../../helpers/play.js';
import { prng } from '../../helpers/prng.js';
import { versionGaps } from '../../helpers/audit.js';
import { eventually } from '../../helpers/nats-cluster.js';
import { DEFAULT_RATING } from '../../../src/domain/records.js';

type Json = any;
const GAMES = 12;
/** Ladder games each ladder bot plays before leaving the ladder: one mirror pair (two bots are not paired again at once). */
const LADDER_GAMES = 2;

const { nodes } = await startNodeCluster(t, 'dc-nodes', {
  cluster: { shards: 8, leaseTtlMs: 10_000 },
  limits: { registrationsPerHour: 1000 },
  games: { houseMoveDelayMs: 0, seedGraceMs: 0 },
  ladder: { ratingBatchMs: 500, pairIntervalMs: 1000 },
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

t.test('a bot challenged on one node, streaming on another, accepting on a third', async (t) => {
  const [a, b, c] = nodes;
  const reg = async (n: ClusterNodeProc, name: string) => ((await call(n, 'POST', '/bot/register', undefined, { team: 'sh', name })).json as Json).token as string;
  const target = await reg(a, 'target');
  const challenger = await reg(b, 'challenger');
  t.ok(await eventually(async () => (await call(c, 'GET', '/bot/games', target)).status === 200 && (await call(c, 'GET', '/bot/games', challenger)).status === 200));
  const targetStream = await stream(b, '/bot/stream/event', target);
  const challengerStream = await stream(a, '/bot/stream/event', challenger);
  // The target's presence reaches node c over the cluster shortly after its stream opened on b. An
  // account event is live only, on core NATS: one published before the servers carry b's new
  // subscription (moments, longer on a loaded machine) reaches no stream, as an event sent before a
  // stream opens. So a first challenge only shows the target online; it is declined, and the
  // challenge checked is made after.
  const probe = await call(c, 'POST', '/bot/challenge', challenger, { team: 'sh', name: 'target' });
  t.equal(probe.status, 201, probe.text);
  const online = await eventually(async () => ((await call(c, 'GET', '/bot/challenges', challenger)).json as Json)?.out?.[0]?.targetOnline === true);
  t.ok(online, 'the target streams on another node: online');
  t.equal((await call(a, 'POST', `/bot/challenge/${(probe.json as Json).id}/decline`, target)).status, 200, 'the first challenge declined');
  const ch = await call(c, 'POST', '/bot/challenge', challenger, { team: 'sh', name: 'target' });
  t.equal(ch.status, 201, ch.text);
  const got = await targetStream.until((e) => kindOf(e) === 'ChallengeReceived' && e.ChallengeReceived.id === (ch.json as Json).id, 'ChallengeReceived');
  t.equal(got.ChallengeReceived.id, (ch.json as Json).id);
  const listed = await call(a, 'GET', '/bot/challenges', target);
  t.equal((listed.json as Json).in.length, 1, 'listed on another node');
  // A stream opened after the challenge was made, on a node that need not hold the challenges: its
  // catch-up asks the holder, so the challenge comes first.
  const late = await stream(c, '/bot/stream/event', target);
  t.same(await late.next(), { ChallengeReceived: { id: (ch.json as Json).id, challenger: { Bot: { team: 'sh', name: 'challenger' } }, timeControl: { Unlimited: {} }, color: 'white' } }, 'replayed on a late stream');
  late.close();
  const acc = await call(a, 'POST', `/bot/challenge/${(ch.json as Json).id}/accept`, target);
  t.equal(acc.status, 201, acc.text);
  const s1 = await targetStream.until((e) => kindOf(e) === 'GameStart', 'GameStart');
  const s2 = await challengerStream.until((e) => kindOf(e) === 'GameStart', 'GameStart');
  t.equal(s1.GameStart.gameId, (acc.json as Json).gameId);
  t.equal(s2.GameStart.gameId, (acc.json as Json).gameId);
  t.match(s2.GameStart, { color: 'White', opponent: { id: 'bot:team:sh:target', kind: 'Bot', name: 'sh target' } });
  // The game is owned by one node's shard; a stream opened afterwards on each node replays it.
  for (const n of nodes) {
    const after = await stream(n, '/bot/stream/event', challenger);
    const first = await after.next();
    t.equal(first?.GameStart?.gameId, (acc.json as Json).gameId, `GameStart replayed on node ${n.name}`);
    after.close();
  }
  targetStream.close();
  challengerStream.close();
});

t.test('an anonymous bot minted on one node plays on another; lobby across nodes', async (t) => {
  const [a, b, c] = nodes;
  const anon = (await call(a, 'POST', '/bot/anon', undefined, {})).json as Json;
  t.ok(await eventually(async () => (await call(b, 'GET', '/bot/account', anon.token)).status === 200), 'anon token works on b');
  const seek = await call(c, 'POST', '/lobby/seeks', undefined, {});
  t.equal(seek.status, 201, seek.text);
  const list = await call(a, 'GET', '/lobby/seeks');
  t.ok(((list.json as Json).seeks as Json[]).some((s: Json) => s.id === (seek.json as Json).seekId), 'the guest seek is listed on another node');
  const acc = await call(b, 'POST', `/bot/seeks/${(seek.json as Json).seekId}/accept`, anon.token);
  t.equal(acc.status, 201, acc.text);
  const poll = await call(a, 'GET', `/lobby/seeks/${(seek.json as Json).seekId}?secret=${(seek.json as Json).secret}`);
  t.equal((poll.json as Json).matched, true, poll.text);
  const seatToken = (poll.json as Json).seatToken;
  // A resignation taken (202) with the seat token on a node that neither issued it nor holds the lobby.
  const resigned = await eventually(async () => [200, 202].includes((await call(c, 'POST', `/bot/game/${(acc.json as Json).gameId}/resign`, seatToken)).status));
  t.ok(resigned, 'the guest seat token works on a third node');
});

interface LadderBot {
  team: string;
  token: string;
  games: Set<string>;
}

async function register(node: ClusterNodeProc, team: string): Promise<LadderBot> {
  const r = await call(node, 'POST', '/bot/register', undefined, { team, name: 'p' });
  const token = (r.json as Json).token as string;
  t.ok(await eventually(async () => (await call(nodes[2], 'GET', '/bot/games', token)).status === 200), `${team}: known on every node`);
  t.equal((await call(node, 'POST', '/bot/capacity', token, { capacity: 2 })).status, 200, `${team}: capacity 2`);
  t.equal((await call(nodes[(nodes.indexOf(node) + 1) % 3], 'POST', '/bot/ladder/join', token)).status, 200, `${team}: joined on another node`);
  return { team, token, games: new Set() };
}

/** Polls its games on the nodes in turn and answers every roll of its own, until it has seen LADDER_GAMES end. */
async function play(bot: LadderBot, seed: number): Promise<void> {
  const random = prng(seed);
  let k = seed;
  const node = (): ClusterNodeProc => nodes[k++ % nodes.length];
  const deadline = Date.now() + 120_000;
  let last: Json[] = [];
  let left = false;
  while (Date.now() < deadline) {
    const live = (((await call(node(), 'GET', '/bot/games', bot.token)).json as Json)?.games ?? []) as Json[];
    last = live;
    for (const g of live) bot.games.add(g.gameId);
    const ended = [...bot.games].filter((id) => !live.some((g) => g.gameId === id));
    if (!left && bot.games.size >= LADDER_GAMES) {
      left = true; // enough pairs started: no more after these
      await call(node(), 'POST', '/bot/ladder/leave', bot.token);
    }
    if (left && live.length === 0 && ended.length === bot.games.size) return;
    for (const g of live) {
      if (g.activeSeat !== g.seat || !g.dicePending) continue;
      const m = (await call(node(), 'GET', `/games/${g.gameId}/moves`)).json as Json;
      if (!m?.dicePending || m.version !== g.version) continue;
      const tree = m.legalMoves as Tree;
      if (Object.keys(tree).length === 0) continue;
      await call(node(), 'POST', `/bot/game/${g.gameId}/move`, bot.token, { moves: randomPath(tree, random), version: m.version });
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  console.error(nodes.map((n) => `--- ${n.name}\n${n.log.filter((l) => !l.includes('serving shard')).slice(-12).join('\n')}`).join('\n'));
  throw new Error(`${bot.team}: still playing at the deadline; games ${[...bot.games].join(',')}; live ${JSON.stringify(last)}`);
}

t.test('ladder games across nodes are rated once, the same on every node', async (t) => {
  const x = await register(nodes[0], 'ladx');
  const y = await register(nodes[2], 'lady');
  await Promise.all([play(x, 1), play(y, 2)]);
  const profile = async (n: ClusterNodeProc, team: string): Promise<Json> => (await call(n, 'GET', `/bots/${team}/p`)).json;
  for (const bot of [x, y]) {
    const n = bot.games.size;
    // Every game finished is rated by a batch: the counts reach the number of games on every node.
    const rated = await eventually(async () => {
      for (const node of nodes) if ((await profile(node, bot.team))?.games !== n) return false;
      return true;
    }, 60_000);
    const views = await Promise.all(nodes.map((node) => profile(node, bot.team)));
    t.ok(rated, `${bot.team}: ${n} rated games counted on every node (${views.map((v) => v?.games).join(', ')})`);
    t.ok(views[0].ratingHistory.length >= 1, `${bot.team}: a rating history`);
    // Its rating may stay at 1500 (a mirror pair split one win each way leaves equal ratings where they
    // were); its deviation narrows with any rated game.
    t.ok(views[0].rd < DEFAULT_RATING.rd, `${bot.team}: rated (deviation ${views[0].rd} from ${DEFAULT_RATING.rd})`);
    for (const v of views.slice(1)) {
      t.same([v.rating, v.rd, v.games, v.wins, v.draws, v.losses, v.ratingHistory], [views[0].rating, views[0].rd, views[0].games, views[0].wins, views[0].draws, views[0].losses, views[0].ratingHistory], `${bot.team}: the same on every node`);
    }
    t.equal(views[0].wins + views[0].draws + views[0].losses, n, `${bot.team}: each game counted once`);
  }
});
