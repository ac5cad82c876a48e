// State that used to live in one node's memory, across three real nodes: a challenge made on one node
// reaches the target's stream on another and is accepted on a third (both get GameStart); an
// anonymous token minted on one node works on another; a guest seek made on one node is listed on
// another, taken on a third, and the guest's seat token works on a node that did not issue it.
import t from 'tap';
import { eventually } from '../helpers/nats-cluster.js';
import { startNodeCluster, type ClusterNodeProc } from '../helpers/cluster-nodes.js';
import { openLines, request, type HttpResult } from '../helpers/http.js';
import { EventStream, kindOf } from '../helpers/event-stream.js';

type Json = any;
const { nodes } = await startNodeCluster(t, 'dc-shared', { cluster: { shards: 8, leaseTtlMs: 4000 }, limits: { registrationsPerHour: 1000 }, games: { houseMoveDelayMs: 0, seedGraceMs: 0 } });
const call = (node: ClusterNodeProc, method: string, path: string, token?: string, body?: unknown): Promise<HttpResult> =>
  request(method, node.url + path, {
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
const stream = async (node: ClusterNodeProc, path: string, token: string) => new EventStream(await openLines(node.url + path, { authorization: `Bearer ${token}` }), 30_000);

t.test('a bot challenged on one node, streaming on another, accepting on a third', async (t) => {
  const [a, b, c] = nodes;
  const reg = async (n: ClusterNodeProc, name: string) => ((await call(n, 'POST', '/bot/register', undefined, { team: 'sh', name })).json as Json).token as string;
  const target = await reg(a, 'target');
  const challenger = await reg(b, 'challenger');
  t.ok(await eventually(async () => (await call(c, 'GET', '/bot/games', target)).status === 200 && (await call(c, 'GET', '/bot/games', challenger)).status === 200));
  const targetStream = await stream(b, '/bot/stream/event', target);
  const challengerStream = await stream(a, '/bot/stream/event', challenger);
  await new Promise((r) => setTimeout(r, 500));
  const ch = await call(c, 'POST', '/bot/challenge', challenger, { team: 'sh', name: 'target' });
  t.equal(ch.status, 201, ch.text);
  t.equal((ch.json as Json).targetOnline, true, 'the target streams on another node: online');
  const got = await targetStream.until((e) => kindOf(e) === 'ChallengeReceived', 'ChallengeReceived');
  t.equal(got.ChallengeReceived.id, (ch.json as Json).id);
  const listed = await call(a, 'GET', '/bot/challenges', target);
  t.equal((listed.json as Json).in.length, 1, 'listed on another node');
  const acc = await call(a, 'POST', `/bot/challenge/${(ch.json as Json).id}/accept`, target);
  t.equal(acc.status, 201, acc.text);
  const s1 = await targetStream.until((e) => kindOf(e) === 'GameStart', 'GameStart');
  const s2 = await challengerStream.until((e) => kindOf(e) === 'GameStart', 'GameStart');
  t.equal(s1.GameStart.gameId, (acc.json as Json).gameId);
  t.equal(s2.GameStart.gameId, (acc.json as Json).gameId);
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
