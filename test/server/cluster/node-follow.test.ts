// A node keeps a current replica only of the games it is asked about. Three nats-server and three
// nodes; a bot registered on node P plays White against house/random with its stream and its moves on
// P. A node Y that neither owns the game's shard nor is asked about the game applies none of its
// updates while it is played (its applied-updates counter on /metrics does not move), yet still lists
// it live; a stream opened on Y halfway through starts with a Snapshot of the current version and
// then gets every version +1 up to GameEnded, and Y then shows the game ended.
import t from 'tap';
import { startNodeCluster, type ClusterNodeProc } from '../../helpers/cluster-nodes.js';
import { call } from '../../helpers/cluster-play.js';
import { openLines } from '../../helpers/http.js';
import { EventStream, kindOf, type Ev } from '../../helpers/event-stream.js';
import { randomPath, type Tree } from '../../helpers/play.js';
import { prng } from '../../helpers/prng.js';
import { versionGaps } from '../../helpers/audit.js';
import { eventually } from '../../helpers/nats-cluster.js';
import { shardIndex, shardKey } from '../../../src/shard/protocol/messages.js';
import { connectCluster } from '../../../src/cluster/transport/nats.js';
import { decodeReplies, type ReplyWire } from '../../../src/cluster/transport/nats-transport.js';

type Json = any;
const SHARDS = 6;

const { nats, nodes } = await startNodeCluster(t, 'dc-follow', {
  cluster: { shards: SHARDS, leaseTtlMs: 10_000, followIdleMs: 1_000 },
  limits: { registrationsPerHour: 1000 },
  games: { houseMoveDelayMs: 0, seedGraceMs: 0 },
});

/** A counter or gauge of a node's /metrics (the first sample whose name and labels start with `name`). */
async function metric(node: ClusterNodeProc, name: string): Promise<number> {
  const text = (await call(node, 'GET', '/metrics')).text;
  const line = text.split('\n').find((l) => l.startsWith(name + ' ') || l.startsWith(name + '{'));
  if (line === undefined) throw new Error(`no ${name} on node ${node.name}`);
  return Number(line.slice(line.lastIndexOf(' ') + 1));
}
const APPLIED = 'dicechess_replica_updates_applied_total';

/** Whether GET /games on `node` (the public listing: it follows no game) lists `gameId` live. */
const publicListed = async (node: ClusterNodeProc, gameId: string): Promise<boolean> =>
  (((await call(node, 'GET', '/games')).json as Json)?.games ?? []).some((g: Json) => g.gameId === gameId);

const stream = async (node: ClusterNodeProc, path: string, token?: string): Promise<EventStream> =>
  new EventStream(await openLines(node.url + path, token ? { authorization: `Bearer ${token}` } : {}), 30_000);

/*
 * How long a game lasts is chance: its dice come from a server seed the test cannot see (the nodes are
 * other processes, and the seed is revealed only at the end) and the house plays at random. A game can
 * end before White's third roll: White's rolls from the start position have no legal move about 3 times
 * in 10 (no pawn, no knight: the server plays the pass), and three moves a turn let a side take a king
 * early (in one simulated game White opened d2d4 and Black's bishop went f8e7, then e7b4 and b4e1 on
 * Black's second turn): in a simulation of 20,000 games on the engine with this bot's moves, about one
 * in 430 ended there. So when a game ends before that moment by a captured king, its ending is shown
 * and another game is played, at most GAMES in all; the checks are the same on the game that gets
 * there. Any other early ending (a timeout, an abort) is no chance of the dice: the test fails at once.
 */
const GAMES = 4;

t.test('a node asked nothing about a game applies none of its updates; a stream opened there later is whole', async (t) => {
  const P = nodes[0];
  const reg = await call(P, 'POST', '/bot/register', undefined, { team: 'follow', name: 'p' });
  t.equal(reg.status, 201, 'registered on P');
  const token = (reg.json as Json).token as string;
  const random = prng(77);
  const played = new Set<string>();

  /** One game against house/random from P's stream; at White's third roll, checks Y and opens a stream on it. */
  const play = async () => {
    const ch = await call(P, 'POST', '/bot/challenge', token, { team: 'house', name: 'random' });
    t.equal(ch.status, 201, 'challenged house/random');
    let gameId = '';
    await eventually(async () => {
      const games = ((await call(P, 'GET', '/bot/games', token)).json as Json)?.games ?? [];
      gameId = games.find((g: Json) => !played.has(g.gameId))?.gameId ?? '';
      return gameId !== '';
    });
    t.not(gameId, '', 'the game is listed on P');
    played.add(gameId);
    // Shard s is served by the node at s mod 3 of the sorted names (the cluster settled so).
    const owner = nodes[shardIndex(shardKey(gameId, null), SHARDS) % 3];
    const Y = nodes.find((n) => n !== owner && n !== P)!;
    t.comment(`game ${gameId}: owner ${owner.name}, player's node ${P.name}, idle node ${Y.name}`);
    // Y still knows the game is live (its start reached every node): the public listing, which
    // follows nothing, shows it.
    t.ok(await eventually(async () => await publicListed(Y, gameId)), 'Y lists the game live');
    const appliedBefore = await metric(Y, APPLIED);
    const followsBefore = await metric(Y, 'dicechess_replica_follows{kind="started"}');

    const mine = await stream(P, `/bot/game/stream/${gameId}`, token);
    const seen: Ev[] = [];
    let whiteRolls = 0;
    let watcher: EventStream | undefined;
    let ended = false;
    const act = async (v: number, inline: Tree | null): Promise<void> => {
      const tree = inline ?? (((await call(P, 'GET', `/games/${gameId}/moves`)).json as Json).legalMoves as Tree);
      if (Object.keys(tree).length === 0) return;
      const r = await call(P, 'POST', `/bot/game/${gameId}/move`, token, { moves: randomPath(tree, random), version: v });
      if (r.status !== 200 && r.status !== 202) throw new Error(`move v${v}: ${r.status} ${r.text}`);
    };
    while (!ended) {
      const ev = await mine.next();
      if (ev === undefined) break; // ended early: the checks below fail
      seen.push(ev);
      if (ev.GameEnded) ended = true;
      const st = ev.Snapshot?.state;
      const roll = ev.DiceRolled?.seat === 'White' ? { v: ev.DiceRolled.v as number, tree: (ev.DiceRolled.legalMoves ?? null) as Tree | null } : st && 'Active' in st.status && st.dicePending && st.activeSeat === 'White' ? { v: st.version as number, tree: (st.legalMoves ?? null) as Tree | null } : null;
      if (roll === null) continue;
      whiteRolls++;
      // At White's third roll the game waits for White: nobody has asked Y about it yet.
      if (whiteRolls === 3 && watcher === undefined) {
        t.ok(roll.v > 2, `the game was played to version ${roll.v} through P`);
        t.equal(await metric(Y, APPLIED), appliedBefore, 'Y applied none of its updates meanwhile');
        t.ok((await metric(P, APPLIED)) > 0, 'P (asked about it) applied its updates');
        watcher = await stream(Y, `/games/${gameId}/stream`);
      }
      await act(roll.v, roll.tree);
    }
    mine.close();
    t.ok(ended, "P's stream ended with GameEnded");
    t.same(versionGaps(seen), [], "P's stream: versions +1");
    const end = seen.at(-1)?.GameEnded;
    const ending = `${JSON.stringify(end?.over)} at version ${end?.v}, after ${whiteRolls} White rolls on P's stream, seeds ${JSON.stringify({ server: end?.seed, ...end?.clientSeeds })}`;
    return { gameId, Y, watcher, ending, byChance: end?.over?.termination === 'KingCaptured', appliedBefore, followsBefore };
  };

  let game: Awaited<ReturnType<typeof play>>;
  do {
    game = await play();
    if (!game.watcher) t.comment(`game ${game.gameId} ended before White's third roll: ${game.ending}`);
  } while (!game.watcher && game.byChance && played.size < GAMES);
  const { gameId, Y, watcher, appliedBefore, followsBefore } = game;
  t.ok(watcher, `a game lasted until White's third roll (game ${played.size}, at most ${GAMES})`);
  if (!watcher) return;
  const late: Ev[] = [];
  for (;;) {
    const ev = await watcher.next();
    if (ev === undefined) break;
    late.push(ev);
    if (ev.GameEnded) break;
  }
  watcher.close();
  t.equal(kindOf(late[0]), 'Snapshot', "Y's stream opened with a Snapshot");
  t.ok(late[0].Snapshot.state.version >= 6, `its Snapshot is the game as played so far (version ${late[0].Snapshot.state.version})`);
  t.same(versionGaps(late), [], "Y's stream: every version +1 after it");
  t.equal(kindOf(late[late.length - 1]), 'GameEnded', "Y's stream ended with GameEnded");
  t.ok((await metric(Y, APPLIED)) > appliedBefore, 'Y applied its updates once asked about it');
  t.ok((await metric(Y, 'dicechess_replica_follows{kind="started"}')) > followsBefore, 'Y followed the game');
  const h = (await call(Y, 'GET', `/games/${gameId}/history`)).json as Json;
  t.ok(h?.status && 'Ended' in h.status, 'Y shows the game ended');
});

t.test('a game nobody asks about any more is dropped after followIdleMs, and followed again on the next read', async (t) => {
  const P = nodes[1];
  const reg = await call(P, 'POST', '/bot/register', undefined, { team: 'follow', name: 'q' });
  const token = (reg.json as Json).token as string;
  t.equal((await call(P, 'POST', '/bot/challenge', token, { team: 'house', name: 'random' })).status, 201, 'challenged house/random');
  let gameId = '';
  await eventually(async () => {
    gameId = (((await call(P, 'GET', '/bot/games', token)).json as Json)?.games ?? [])[0]?.gameId ?? '';
    return gameId !== '';
  });
  const owner = nodes[shardIndex(shardKey(gameId, null), SHARDS) % 3];
  const Y = nodes.find((n) => n !== owner && n !== P)!;
  const dropped = await metric(Y, 'dicechess_replica_follows{kind="dropped"}');
  const read = await call(Y, 'GET', `/games/${gameId}`);
  t.equal(read.status, 200, 'Y answers a read of the game');
  t.ok(await eventually(async () => (await metric(Y, 'dicechess_replica_follows{kind="dropped"}')) > dropped, 10_000), 'Y dropped it once idle');
  t.equal((await call(Y, 'GET', `/games/${gameId}`)).status, 200, 'a read after the drop is answered (followed again)');
  t.ok(await eventually(async () => (await metric(Y, 'dicechess_replica_follows{kind="dropped"}')) > dropped + 1, 10_000), 'and dropped again once idle');
  t.equal((await call(P, 'POST', `/bot/game/${gameId}/resign`, token)).status, 202, 'resigned through P');
  // The public listing reads Y's record of the game without following it: the ending reached Y anyway.
  t.ok(await eventually(async () => !(await publicListed(Y, gameId)), 10_000), 'Y no longer lists it live');
  const h = (await call(Y, 'GET', `/games/${gameId}/history`)).json as Json;
  t.ok(h?.status && 'Ended' in h.status, 'Y shows it ended');
});

t.test('game routes name the node that owns the game, which takes its commands itself; answers go only to the node that asked', async (t) => {
  // What crosses the shards' subjects meanwhile, heard by a client of the test's own.
  const nc = await connectCluster(nats.urls, 'follow-test-listener');
  t.teardown(() => nc.close());
  const heard: { subject: string; w: ReplyWire }[] = [];
  const listen = (subject: string) =>
    nc.subscribe(subject, {
      callback: (err, m) => {
        if (err !== null || m.headers?.get('Dc-Part')) return; // a reply in parts: not one of these
        try {
          heard.push({ subject: m.subject, w: decodeReplies(m.data) });
        } catch {
          // not a reply batch
        }
      },
    });
  listen('dc.out.>');
  listen('dc.node.>');
  await nc.flush();

  const P = nodes[2];
  const reg = await call(P, 'POST', '/bot/register', undefined, { team: 'follow', name: 'owner' });
  const token = (reg.json as Json).token as string;
  t.equal((await call(P, 'POST', '/bot/challenge', token, { team: 'house', name: 'random' })).status, 201, 'challenged house/random on P');
  let gameId = '';
  await eventually(async () => {
    gameId = (((await call(P, 'GET', '/bot/games', token)).json as Json)?.games ?? [])[0]?.gameId ?? '';
    return gameId !== '';
  });
  const shard = shardIndex(shardKey(gameId, null), SHARDS);
  const owner = nodes[shard % 3];
  const Y = nodes.find((n) => n !== owner && n !== P) ?? nodes.find((n) => n !== owner)!;
  t.comment(`game ${gameId} on shard ${shard}: owner ${owner.name}, player's node ${P.name}, reader ${Y.name}`);

  for (const n of nodes) {
    const r = await call(n, 'GET', `/games/${gameId}`);
    t.equal(r.status, 200, `${n.name} answers the game`);
    t.equal(r.headers['dicechess-node'], n.name, `${n.name} names itself`);
    t.equal(r.headers['dicechess-owner'], owner.name, `${n.name} names the owner, ${owner.name}`);
    t.match(r.headers['access-control-expose-headers'], /Dicechess-Owner/, 'a web page may read it');
  }
  t.notOk((await call(P, 'GET', '/games')).headers['dicechess-owner'], 'a route about no one game names no owner');

  // Sent to the owner, a command is taken there: no batch of the owner's goes to another node.
  const batches = async (taken: string) => metric(owner, `dicechess_cluster_shard_batches_total{taken="${taken}"}`).catch(() => NaN);
  const [here, elsewhere] = [await batches('here'), await batches('elsewhere')];
  const resigned = await call(owner, 'POST', `/bot/game/${gameId}/resign`, token);
  t.equal(resigned.status, 202, 'resigned through the owner');
  t.equal(resigned.headers['dicechess-owner'], owner.name, 'the command route names the owner too');
  // The 202 may be written before the batch's answer is counted: wait for the count, never for time.
  t.ok(await eventually(async () => (await batches('here')) > here), 'the owner took the batch itself');
  t.equal(await batches('elsewhere'), elsewhere, 'and forwarded none');
  t.ok(await eventually(async () => heard.some(({ w }) => w.r.some((r) => r.t === 'ended' && r.rec.id === gameId))), 'the ending was announced');

  // Every answer went to its asker's own subject, none to the subjects every node hears.
  const named = (to: string) => to !== '' && !to.startsWith('!');
  const broadcastAnswers = heard.filter(({ subject, w }) => subject.startsWith('dc.out.') && w.to.some(named));
  t.same(broadcastAnswers.map(({ subject, w }) => `${subject}: ${w.r.map((r) => r.t).join(',')}`), [], 'no answer on dc.out');
  const direct = heard.filter(({ subject }) => subject.startsWith('dc.node.'));
  t.ok(direct.length > 0, 'answers came on the nodes\' own subjects');
  t.ok(direct.every(({ subject, w }) => w.to.every((to) => subject.split('.')[2] === to)), "each on its asker's subject");
  t.ok(direct.some(({ subject, w }) => subject === `dc.node.${Y.name}.${shard}` && w.r.some((r) => r.t === 'synced' && r.rec.id === gameId)), `the game's state asked by ${Y.name} went to ${Y.name} only`);
  t.ok(direct.some(({ subject, w }) => subject === `dc.node.${owner.name}.${shard}` && w.r.some((r) => r.t === 'answer')), "the resign's answer went to the owner only");
  t.ok(heard.every(({ subject, w }) => !subject.startsWith('dc.out.') || w.r.every((r) => r.t !== 'synced' && r.t !== 'answer' && r.t !== 'done' && r.t !== 'failed')), 'no sync answer, command answer or failure on dc.out');
});
