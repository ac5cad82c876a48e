// Restart of the whole cluster. Three nats-server, three `dicechess serve --cluster` nodes; bots play
// house games with their streams and moves spread over the nodes. Mid-play every node is killed -9,
// then every nats-server, and everything starts again: the servers on their own store dirs, the
// nodes with the same names and settings. Every game that was live resumes from the log and ends;
// every acknowledged move is in its history once, in order; each game's log versions are
// contiguous, every counting version written by the node that took the game over last; the bots'
// streams reconnect and each new connection starts with a Snapshot.
import t from 'tap';
import { connectCluster, openBucket } from '../../../src/cluster/transport/nats.js';
import { GameLog } from '../../../src/cluster/log/game-log.js';
import { openLiveIndex } from '../../../src/cluster/log/live-index.js';
import { kindOf } from '../../helpers/event-stream.js';
import { eventually } from '../../helpers/nats-cluster.js';
import { checkPlayed, playHouseGame, type Played } from '../../helpers/cluster-play.js';
import { auditLog, startRestartableCluster } from '../../helpers/cluster-pause.js';

const GAMES = 6;
const SHARDS = 6;

const cluster = await startRestartableCluster(t, 'dc-restart', {
  // Finished games' logs kept (not trimmed once archived): the test audits each game's whole log.
  cluster: { shards: SHARDS, leaseTtlMs: 5000, keepFinishedLogs: true },
  limits: { registrationsPerHour: 1000 },
  games: { houseMoveDelayMs: 50, seedGraceMs: 0 },
});
const { nats, nodes } = cluster;

t.test('every live game resumes and ends after kill -9 of every node and every nats-server', async (t) => {
  let acked = 0;
  let listed = 0;
  // `nodes` is the cluster's own list: restarted nodes replace the dead ones in it, and the bots
  // (which wait while no node runs) find them there.
  const playing = Promise.all(Array.from({ length: GAMES }, (_, i) => playHouseGame(nodes, 'restart', i, () => acked++, () => listed++)));
  t.ok(await eventually(() => listed === GAMES && acked >= GAMES * 2, 60_000), 'games are under way');

  // The nodes' lines before the kill (the restarted nodes log afresh), for a failure's explanation.
  const linesAtKill = nodes.map((n) => ({ name: n.name, lines: [...n.log] }));
  await Promise.all(nodes.map((n) => n.kill9()));
  const killedAt = Date.now();
  const ackedAtKill = acked;
  // Which games were live when the nodes died, as the cluster's live index says.
  const nc = await connectCluster(nats.urls, 'restart-test');
  const index = await openLiveIndex(nc, { replicas: 3 });
  const liveAtKill: string[] = [];
  for (let s = 0; s < SHARDS; s++) liveAtKill.push(...(await index.list(s)));
  // The last entry of each in the log when everything died.
  const killLog = await GameLog.open(nc, { replicas: 3 });
  const lastAtKill = new Map<string, number>();
  // A game whose ending was in its log already is still listed until its owner drops the key: if
  // the owner died in between, its bot may have seen the whole game on its first stream.
  const endedAtKill = new Set<string>();
  for (const id of liveAtKill) {
    lastAtKill.set(id, await killLog.lastSeq(id));
    const final = (await auditLog(killLog, id)).final;
    if (final && 'Ended' in final.rec.status) endedAtKill.add(id);
  }
  await nc.close();
  t.ok(liveAtKill.length > endedAtKill.size, `${liveAtKill.length} games listed live when every node was killed -9, ${endedAtKill.size} of them with their ending logged (after ${ackedAtKill} acknowledged moves)`);

  for (let i = 0; i < nats.servers.length; i++) await nats.kill9(i);
  // All three at once: none of them serves JetStream before a majority is back.
  await Promise.all(nats.servers.map((_, i) => nats.start(i)));
  await Promise.all(nodes.map((_, i) => cluster.restart(i)));
  t.ok(await cluster.settle(), 'every shard is served again after the restart');

  let played: Played[];
  try {
    played = await playing;
  } catch (e) {
    console.error(nodes.map((n) => `--- ${n.name}\n${n.log.slice(-20).join('\n')}`).join('\n'));
    t.fail((e as Error).message);
    return;
  }
  // A game that never ended: what its log holds and what every node said of it, before and after.
  const lost = played.filter((p) => p.ended === undefined);
  if (lost.length > 0) {
    const nc3 = await connectCluster(nats.urls, 'restart-explain');
    const log3 = await GameLog.open(nc3, { replicas: 3 });
    // Whether the live index still names each lost game now: a key gone from the bucket and a key
    // there that the new owner's listing missed are different faults.
    const index3 = await openLiveIndex(nc3, { replicas: 3 });
    const listedNow = new Set<string>();
    for (let s = 0; s < SHARDS; s++) for (const id of await index3.list(s)) listedNow.add(id);
    // And whether its key reads by name (a listing that misses a key the stream still holds).
    const live3 = await openBucket(nc3, { bucket: 'dc-live', replicas: 3 });
    const readNow = new Map<string, string>();
    for (const p of lost) {
      for (let s = 0; s < SHARDS; s++) {
        const e = await live3.get(`s${s}.${p.gameId}`).catch((err: Error) => ({ operation: `error ${err.message}`, revision: 0 }));
        if (e) readNow.set(p.gameId, `s${s} ${e.operation} rev ${e.revision}`);
      }
    }
    for (const p of lost) {
      const entries = (await auditLog(log3, p.gameId)).entries.map((e) => `${e.seq}:${e.kind}${e.kind === 'takeover' ? `(${e.node})` : ''}<-${e.after}${e.counts ? '' : ' (not counting)'}`);
      const said = (lines: string[]) => lines.filter((l) => l.includes(p.gameId)).slice(-15);
      console.error(
        `--- ${p.gameId}: never ended; in the live index at the kill: ${liveAtKill.includes(p.gameId)}, now: ${listedNow.has(p.gameId)}, read by name: ${readNow.get(p.gameId) ?? 'absent'}; log: ${entries.join(' ') || 'empty'}\n` +
          linesAtKill.map((n) => `before the kill, ${n.name}:\n${said(n.lines).join('\n')}`).join('\n') +
          '\n' +
          nodes.map((n) => `after the restart, ${n.name}:\n${said(n.log).join('\n')}`).join('\n'),
      );
    }
    await nc3.close();
  }
  for (const p of played) await checkPlayed(t, nodes, p);
  for (const id of liveAtKill) {
    const p = played.find((x) => x.gameId === id);
    t.ok(p, `${id}: a bot's game`);
    if (!p) continue;
    if (endedAtKill.has(id)) continue;
    // The connection that saw the end was opened after the kill. (A bot whose first connection was
    // still being answered when every node died has only that one: it is still a reconnection.)
    const last = p.segments.length - 1;
    const seg = p.segments[last] ?? [];
    t.ok(
      last >= 0 && p.openedAt[last] > killedAt && seg.length > 0 && kindOf(seg[0]) === 'Snapshot',
      `${id}: its stream reconnected after the restart and began with a Snapshot (events per connection: ${p.segments.map((x) => x.length).join(' ')}; opened ${p.openedAt.map((x) => x - killedAt).join(' ')} ms from the kill)`,
    );
  }

  const nc2 = await connectCluster(nats.urls, 'restart-audit');
  t.teardown(() => nc2.close());
  const log = await GameLog.open(nc2, { replicas: 3 });
  for (const p of played) {
    const a = await auditLog(log, p.gameId);
    t.same(a.problems, [], `${p.gameId}: each counting version by the last taker, writes numbered without gaps, versions never back (${a.versions.length} writes)`);
    t.ok(a.final && 'Ended' in a.final.rec.status, `${p.gameId}: the log ends with the ending`);
    if (liveAtKill.includes(p.gameId)) {
      t.ok(
        a.entries.some((e) => e.kind === 'takeover' && e.counts && e.seq > (lastAtKill.get(p.gameId) ?? 0)),
        `${p.gameId}: taken over from the log after the restart (a takeover marker after its last entry at the kill)`,
      );
    }
  }
  const index2 = await openLiveIndex(nc2, { replicas: 3 });
  const left = async (): Promise<string[]> => {
    const out: string[] = [];
    for (let s = 0; s < SHARDS; s++) out.push(...(await index2.list(s)));
    return out;
  };
  await eventually(async () => (await left()).length === 0, 20_000);
  t.same(await left(), [], 'no live game left in the index');
});
