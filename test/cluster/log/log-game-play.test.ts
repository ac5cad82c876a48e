// Games played by real game actors on a LogGameStore, on a real three-server cluster: a single game and
// a mirror pair are played a few turns on node a, node b takes the shard over mid-game and resumes
// them exactly where the log has them (a's next write is refused), and plays them to the end; each
// ending reaches the archive once, with the final record the log folds to.
import t from 'tap';
import { ManualClock } from '../../../src/domain/clock.js';
import type { GameRecord, ResultRecord } from '../../../src/domain/records.js';
import { connectCluster } from '../../../src/cluster/transport/nats.js';
import { GameLog, type LogEntry } from '../../../src/cluster/log/game-log.js';
import { openLiveIndex } from '../../../src/cluster/log/live-index.js';
import { FencedError, LogGameStore } from '../../../src/cluster/log/log-game-store.js';
import { foldVersion, type Folded } from '../../../src/cluster/log/record-codec.js';
import { DEFAULT_GAME_CONFIG } from '../../../src/game/game-config.js';
import { GameRegistry } from '../../../src/game/game-registry.js';
import type { GameHandle } from '../../../src/game/types.js';
import { shardIndex } from '../../../src/shard/protocol/messages.js';
import { Logs, bot, playRandom, rng } from '../../helpers/game.js';
import { eventually, startNatsCluster } from '../../helpers/nats-cluster.js';

const SHARDS = 4;
const SHARD = 2;
const cluster = await startNatsCluster({ name: 'dc-lgp' });
const nc = await connectCluster(cluster.urls, 'lgp-test');
t.teardown(async () => {
  await nc.close();
  await cluster.stop();
});
const log = await GameLog.open(nc, { replicas: 3, timeoutMs: 3000 });
const index = await openLiveIndex(nc, { replicas: 3, timeoutMs: 3000 });

let counter = 0;
function idOn(shard: number): string {
  for (;;) {
    const id = `p${process.pid}x${counter++}`;
    if (shardIndex(id, SHARDS) === shard) return id;
  }
}

async function node(name: string) {
  // What the log held when the ending was archived (it is trimmed right after).
  const finished: { game: GameRecord; results: ResultRecord[]; entries: LogEntry[] }[] = [];
  const fenced: string[] = [];
  const store = await LogGameStore.open(log, {
    node: name,
    shard: SHARD,
    shards: SHARDS,
    index,
    onFenced: (id) => fenced.push(id),
    onFinished: async (game, results) => void finished.push({ game, results, entries: await log.replay(game.id) }),
  });
  const logs = new Logs();
  const registry = new GameRegistry({
    store,
    clock: new ManualClock(1_700_000_000_000, { runDueTimers: true }),
    config: DEFAULT_GAME_CONFIG,
    log: logs,
    listeners: [],
    newId: () => idOn(SHARD),
  });
  return { store, registry, finished, fenced, logs };
}

/** Plays random turns (sparing kings while `spare`) on every handle until `stop` holds. */
async function play(handles: GameHandle[], random: () => number, stop: () => boolean, spare: boolean): Promise<void> {
  for (let i = 0; i < 2000 && !stop(); i++) {
    const pending = handles.filter((h) => h.isActive() && h.state().dicePending);
    if (pending.length === 0) {
      await new Promise((r) => setTimeout(r, 5));
      continue;
    }
    for (const h of pending) await playRandom(h, random, { spareKing: spare });
  }
}

function foldEntries(entries: LogEntry[]): Folded | undefined {
  let s: Folded | undefined;
  for (const e of entries) if (e.counts && e.kind === 'version') s = foldVersion(s, e.data);
  return s;
}

async function folded(id: string): Promise<Folded | undefined> {
  return foldEntries(await log.replay(id));
}

t.test('games move from node a to node b mid-game and end there, nothing lost or doubled', async (t) => {
  const a = await node('node-a');
  const spec = { white: bot('w'), black: bot('b'), timeControl: { Unlimited: {} }, rated: false } as const;
  const single = await a.registry.create(spec);
  const x = idOn(SHARD);
  const pair = await a.registry.createMirrorPair({ ...spec, rated: true }, [x, `${x}z`]);
  const all = [single, ...pair];
  for (const h of all) {
    h.seed('White', 'white-seed-0123456789');
    h.seed('Black', 'black-seed-0123456789');
  }
  const random = rng(7);
  await play(all, random, () => all.every((h) => h.record().history.length >= 6), true);
  await Promise.all(all.map((h) => h.idle()));
  const before = new Map(all.map((h) => [h.id, a.store.getGame(h.id)!]));
  t.ok([...before.values()].every((r) => 'Active' in r.status && r.history.length >= 6), 'three games under way');

  // Node b takes the shard over: every game comes back as a last committed it.
  const b = await node('node-b');
  const resumed = new Map(b.store.listLiveGames().map((r) => [r.id, r]));
  t.strictSame(resumed, before, 'every live game, every field');

  // a's next write is refused: its game aborts in memory only (the node discards that), never in the log.
  const h0 = single;
  if (h0.state().dicePending) await playRandom(h0, random, { spareKing: true });
  await h0.idle();
  t.ok(a.fenced.length === 1 && a.store.fenced(), 'a was told it is fenced');
  t.ok(a.logs.lines.some((l) => String(l.obj.err).includes(FencedError.name) || String(l.obj.err).includes('taken over')));
  t.strictSame((await folded(single.id))?.rec, before.get(single.id), 'the log holds nothing of a after the takeover');

  // b resumes and plays everything to the end.
  await b.registry.resumeRecords([...resumed.values()]);
  const mine = [...resumed.keys()].map((id) => b.registry.get(id)!);
  await play(mine, random, () => mine.every((h) => !h.isActive()), false);
  t.ok(await eventually(() => b.finished.length === 3), 'three endings reach the archive');
  t.strictSame(b.finished.map((f) => f.game.id).sort(), [...before.keys()].sort(), 'each once');
  for (const f of b.finished) {
    const end = foldEntries(f.entries);
    t.strictSame(end?.rec, f.game, `${f.game.id}: the log, as the archive was written, folds to the archived final record`);
    t.strictSame(end?.results, f.results, `${f.game.id}: with its result lines`);
    t.ok(await eventually(async () => (await log.replay(f.game.id)).length === 0), `${f.game.id}: then its log is trimmed`);
    const numbers: number[] = [];
    let s: Folded | undefined;
    for (const e of f.entries) {
      if (!e.counts || e.kind !== 'version') continue;
      s = foldVersion(s, e.data);
      numbers.push(s.rec.version);
    }
    // (A seed is a write without a new version: versions repeat, they never go back.)
    t.ok(numbers.every((v, i) => i === 0 || v >= numbers[i - 1]), `${f.game.id}: versions never go back: ${numbers.join(' ')}`);
  }
  t.strictSame(await index.list(SHARD), [], 'no live game left in the index');
  t.strictSame(b.fenced, []);
  t.strictSame(b.logs.errors(), [], 'b logged no error');
  await b.registry.stop();
  await a.registry.stop();
});
