// The checks after a partition scenario of node-partition.test.ts: the games the bots played (ended,
// streams whole, every acknowledged move once), each game's log read straight from JetStream (every
// counting version written by the last taker, so no game applied by two owners), and for the games
// the cut host lost, that none of its writes counts after the new owner's takeover marker.
import type { Test } from 'tap';
import { connectCluster } from '../../src/cluster/transport/nats.js';
import { jetstreamManager } from '@nats-io/jetstream';
import { GameLog } from '../../src/cluster/log/game-log.js';
import { openLiveIndex } from '../../src/cluster/log/live-index.js';
import { auditLog, type LogAudit } from './cluster-pause.js';
import { call, checkPlayed, type Played } from './cluster-play.js';
import { eventually } from './nats-cluster.js';
import type { ClusterNodeProc } from './cluster-nodes.js';

/** The live games of each shard, as the cluster's live index says. */
export async function liveByShard(urls: string[], shards: number): Promise<Map<number, string[]>> {
  const nc = await connectCluster(urls, 'netns-index');
  try {
    const index = await openLiveIndex(nc, { replicas: 3 });
    const out = new Map<number, string[]>();
    for (let s = 0; s < shards; s++) out.set(s, await index.list(s));
    return out;
  } finally {
    await nc.close();
  }
}

/** The last log sequence of each game (what its owner had written when the fault began). */
export async function lastSeqs(urls: string[], ids: readonly string[]): Promise<Map<string, number>> {
  const nc = await connectCluster(urls, 'netns-seqs');
  try {
    const log = await GameLog.open(nc, { replicas: 3 });
    const out = new Map<string, number>();
    for (const id of ids) out.set(id, await log.lastSeq(id));
    return out;
  } finally {
    await nc.close();
  }
}

/**
 * Every game played: ended, each stream connection began with a Snapshot and counted versions +1,
 * each acknowledged move in the history once; its log shows one owner at a time and ends with the
 * ending. For each game of `lost` (the log sequence it had when its host was cut off), another node's
 * counting takeover marker follows, and nothing `victim` wrote in its old epoch counts after it.
 */
export async function checkRound(
  t: Test,
  nodes: readonly ClusterNodeProc[],
  urls: string[],
  played: readonly Played[],
  victim: string,
  lost: ReadonlyMap<string, number>,
): Promise<void> {
  // The history is read from a node that was not cut off (the first of the list); that the cut one
  // shows every ending too is checked apart, below.
  const readers = [...nodes.filter((n) => n.name !== victim), ...nodes.filter((n) => n.name === victim)];
  for (const p of played) await checkPlayed(t, readers, p);
  const behind = async (): Promise<string[]> => {
    const out: string[] = [];
    for (const n of nodes) {
      for (const p of played) {
        const h = (await call(n, 'GET', `/games/${p.gameId}/history`)).json as { status?: object } | undefined;
        if (!(typeof h?.status === 'object' && 'Ended' in h.status)) out.push(`${n.name}:${p.gameId}`);
      }
    }
    return out;
  };
  await eventually(async () => (await behind()).length === 0, 30_000);
  const stale = await behind();
  // The node that was cut off missed the endings announced while it was away (core NATS, at most
  // once): it asks every live replica's owner again once it loses a lease (replica-recheck.ts).
  t.same(stale, [], `every node shows every game ended (node:game not showing it: ${stale.join(' ') || 'none'})`);
  const reconnected = played.filter((p) => p.segments.length > 1).length;
  t.comment(`${reconnected} of ${played.length} bots reconnected their stream at least once`);
  // A replay that hangs (seen once after a heal: the test's own consumer never answered) is tried
  // again on a fresh connection, so the test fails on what the log holds, not on its reader.
  let nc = await connectCluster(urls, 'netns-audit');
  let log = await GameLog.open(nc, { replicas: 3 });
  const audit = async (id: string): Promise<LogAudit> => {
    for (let attempt = 0; ; attempt++) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), 30_000)));
      // Just after a heal JetStream may refuse a request for a moment (its groups electing leaders):
      // the read is tried again, as a node's own would be.
      const got = await Promise.race([auditLog(log, id), late])
        .catch((e: Error) => `refused: ${e.message}` as const)
        .finally(() => clearTimeout(timer));
      if (got !== 'late' && typeof got !== 'string') return got;
      t.comment(`${id}: the log's replay ${got === 'late' ? 'did not answer in 30 s' : `was ${got}`}; reading it again on a new connection`);
      if (attempt >= 2) throw new Error(`${id}: the log's replay never answered (${got})`);
      await new Promise((r) => setTimeout(r, 2000));
      void nc.close();
      nc = await connectCluster(urls, 'netns-audit');
      log = await GameLog.open(nc, { replicas: 3 });
    }
  };
  try {
    for (const p of played) {
      const a = await audit(p.gameId);
      t.same(a.problems, [], `${p.gameId}: each counting version by the last taker, writes numbered without gaps, versions never back (${a.versions.length} writes)`);
      const endsEnded = a.final !== undefined && 'Ended' in a.final.rec.status;
      if (!endsEnded || a.problems.length > 0) t.comment(`${p.gameId}: the log as each server shows it: ${await logViews(urls, p.gameId)}`);
      t.ok(endsEnded, `${p.gameId}: the log ends with the ending (${a.entries.length} entries read, last at ${a.entries.at(-1)?.seq ?? 0})`);
      // Owner epochs only go up: each counting takeover follows the one before it.
      const markers = a.entries.filter((e) => e.kind === 'takeover' && e.counts).map((e) => e.seq);
      t.ok(markers.every((s, k) => k === 0 || s > markers[k - 1]), `${p.gameId}: ${markers.length} takeovers, epochs increasing`);
    }
    for (const [id, from] of lost) {
      const { entries, final } = await audit(id);
      const marker = entries.find((e) => e.kind === 'takeover' && e.counts && e.seq > from && e.node !== victim);
      if (!marker) {
        // No takeover: right only for a game that ended under its owner in the moment between the
        // listing of its games and the cut (seen once): its ending is then the owner's last write.
        const before = entries.filter((e) => e.counts && e.seq <= from).pop();
        const ownEpoch = before === undefined ? 0 : before.kind === 'takeover' ? before.seq : before.epoch;
        const last = entries.filter((e) => e.counts).pop();
        const endedUnderOwner = final !== undefined && 'Ended' in final.rec.status && last?.kind === 'version' && last.epoch === ownEpoch;
        const seen = entries.filter((e) => e.kind === 'takeover').map((e) => `${e.seq}${e.kind === 'takeover' ? `:${e.node}` : ''}${e.counts ? '' : '(not counting)'}`);
        t.ok(endedUnderOwner, `${id}: another node's takeover marker follows what ${victim} wrote before the fault (seq ${from}), or ${victim} ended the game before the cut (markers: ${seen.join(' ') || 'none'}; last counting entry ${last?.seq ?? 0}, ${last?.kind === 'version' ? `epoch ${last.epoch}` : last?.kind ?? 'none'}, the owner's epoch ${ownEpoch}; the log folds to ${final ? Object.keys(final.rec.status)[0] : 'nothing'})`);
        continue;
      }
      t.pass(`${id}: another node's takeover marker follows what ${victim} wrote before the fault`);
      const prior = entries.filter((e) => e.counts && e.seq < marker.seq).pop();
      const oldEpoch = prior === undefined ? 0 : prior.kind === 'takeover' ? prior.seq : prior.epoch;
      const late = entries.filter((e) => e.seq > marker.seq && e.kind === 'version' && e.epoch === oldEpoch);
      t.same(
        late.filter((e) => e.counts).map((e) => e.seq),
        [],
        `${id}: none of ${victim}'s writes counts after the takeover (${late.length} stored and not counting)`,
      );
    }
  } finally {
    await nc.close();
  }
}

/**
 * For a failure's message: the game's log read through each server alone (its last sequence, the
 * entries a replay reads, the version they fold to) and the stream's leader and last sequence as
 * that server says, 5 s after the failing read, to tell a read served stale from entries lost.
 */
async function logViews(urls: string[], id: string): Promise<string> {
  await new Promise((r) => setTimeout(r, 5000));
  const out: string[] = [];
  for (const url of urls) {
    let nc: Awaited<ReturnType<typeof connectCluster>> | undefined;
    try {
      nc = await connectCluster([url], 'netns-view');
      const log = await GameLog.open(nc, { replicas: 3 });
      const info = await (await jetstreamManager(nc)).streams.info(log.stream);
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), 20_000)));
      const a = await Promise.race([auditLog(log, id), late]).finally(() => clearTimeout(timer));
      const markers = a === 'late' ? [] : a.entries.filter((e) => e.kind === 'takeover').map((e) => e.seq);
      const read = a === 'late' ? 'replay unanswered' : `${a.entries.length} entries to seq ${a.entries.at(-1)?.seq ?? 0}, markers at ${markers.join(',') || 'none'}, ${a.problems.length} problems, folding to version ${a.final?.rec.version ?? 0} (${a.final ? Object.keys(a.final.rec.status)[0] : 'none'})`;
      out.push(`${url}: last ${await log.lastSeq(id)}; ${read}; stream last ${info.state.last_seq}, leader ${info.cluster?.leader ?? '?'}`);
    } catch (e) {
      out.push(`${url}: ${(e as Error).message}`);
    } finally {
      await nc?.close().catch(() => {});
    }
  }
  return out.join(' | ');
}
