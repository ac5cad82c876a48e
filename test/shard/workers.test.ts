// Game shards in real worker threads: a shard that dies (an uncaught error in its worker) is started
// again, its live games resumed from the store and counted in /metrics, while the other shard's
// games keep being served; a mirror pair shares one shard. On the memory store (whose writes travel
// to the main thread) and on LMDB (which each worker opens itself).
import t from 'tap';
import { bootApp, diskStore, type TestApp } from '../helpers/app.js';
import { Bot } from '../helpers/bot.js';
import { directGame, fullTree, gameState, pendingOrOver } from '../helpers/games.js';
import { randomPath } from '../helpers/play.js';
import { until } from '../helpers/poll.js';
import { shardIndex, shardKey } from '../../src/shard/protocol/messages.js';
import type { Store } from '../../src/store/types.js';

const SHARDS = 2;

async function metric(app: TestApp, name: string): Promise<number> {
  const text = (await app.req('GET', '/metrics')).text;
  const line = text.split('\n').find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
  return line ? Number(line.split(' ').at(-1)) : NaN;
}

/** Plays the pending roll of `gameId` for whichever bot is to move; resolves with its verdict. */
async function playOnce(app: TestApp, gameId: string, bots: { White: Bot; Black: Bot }): Promise<{ status: number; json: any }> {
  const s = await pendingOrOver(app, gameId);
  const tree = await fullTree(app, gameId);
  const r = await bots[s.activeSeat as 'White' | 'Black'].move(gameId, randomPath(tree.legalMoves));
  return { status: r.status, json: r.json };
}

/** Live games until there is one on each shard. */
async function oneGamePerShard(app: TestApp, alice: Bot, bob: Bot): Promise<string[]> {
  const byShard: (string | undefined)[] = new Array(SHARDS).fill(undefined);
  for (let i = 0; i < 40 && byShard.some((g) => g === undefined); i++) {
    const id = await directGame(app, alice, bob);
    byShard[shardIndex(shardKey(id, null), SHARDS)] ??= id;
  }
  if (byShard.some((g) => g === undefined)) throw new Error('no game landed on some shard');
  return byShard as string[];
}

for (const kind of ['memory', 'lmdb'] as const) {
  t.test(`${kind}: a crashed shard restarts, resumes its games, and is counted; the other shard keeps serving`, async (t) => {
    const store: Store | undefined = kind === 'lmdb' ? await diskStore(t) : undefined;
    // A freshly restarted worker compiles everything again; on a loaded machine its first verdicts can
    // take longer than the default 3 s wait (then the answer is 202, which is not what this test is
    // about), so the wait is raised here.
    const app = await bootApp(t, { rules: 'workers', store, overrides: { shards: SHARDS, 'games.verdictWaitMs': 30_000 } });
    const alice = await Bot.anon(app, 'alice');
    const bob = await Bot.anon(app, 'bob');
    const bots = { White: alice, Black: bob };
    const [onCrashed, onOther] = await oneGamePerShard(app, alice, bob);
    for (const id of [onCrashed, onOther]) await pendingOrOver(app, id);
    const first = await playOnce(app, onCrashed, bots);
    t.equal(first.status, 200, 'a turn is played on the shard about to crash');
    const stream = await alice.gameStream(onCrashed);
    t.equal((await stream.next())?.Snapshot !== undefined, true, 'a stream of that game is open');
    t.equal(await metric(app, 'dicechess_shard_restarts_total'), 0);

    app.server.games.crash(0);
    await until(async () => ((await metric(app, 'dicechess_shard_restarts_total')) === 1 ? true : undefined), 'the restart', 20_000);
    const rest = await stream.rest();
    t.notOk(rest.some((e) => 'GameEnded' in e), 'the stream of the crashed shard’s game was closed without an ending');

    // The other shard never stopped.
    const other = await playOnce(app, onOther, bots);
    t.equal(other.status, 200, 'the other shard’s game is served');
    // The crashed shard's game came back where the store had it, and goes on.
    const before = await until(async () => {
      const s = await gameState(app, onCrashed);
      return s.dicePending ? s : undefined;
    }, 'the resumed game’s pending roll', 20_000);
    t.ok(before.version >= first.json.version, `resumed at version ${before.version} (the acknowledged turn was v${first.json.version})`);
    const again = await playOnce(app, onCrashed, bots);
    t.equal(again.status, 200, 'the resumed game accepts a turn');
    t.ok(again.json.applied, 'and applies it');
    t.ok(again.json.version > before.version);
    const history = ((await app.req('GET', `/games/${onCrashed}/history`)).json as { history: unknown[] }).history;
    t.ok(history.length >= 2, `both turns are in its history (${history.length} entries)`);
  });
}

// One server with worker shards for the two checks below (each only reads, or adds its own games).
t.test('worker shards of one server', async (t) => {
  const app = await bootApp(t, { rules: 'workers', overrides: { shards: SHARDS } });

  t.test('a mirror pair shares one shard and plays the same dice in worker threads', async (t) => {
    const alice = await Bot.anon(app, 'alice');
    const bob = await Bot.anon(app, 'bob');
    const [a, b] = await app.server.games.createMirrorPair({ white: alice.seat, black: bob.seat, timeControl: { Unlimited: {} }, rated: false });
    t.equal(shardIndex(shardKey(a.id, b.id), SHARDS), shardIndex(shardKey(b.id, a.id), SHARDS), 'one shard for both');
    const [sa, sb] = await Promise.all([pendingOrOver(app, a.id), pendingOrOver(app, b.id)]);
    t.equal(sa.dfen, sb.dfen, 'the opening position and roll are the same in both games');
    t.equal(a.white.id, b.black.id, 'colours are swapped');
  });

  t.test('/metrics shows the V8 heap of the main thread and of every shard', async (t) => {
    const heap = (thread: string, kind: string): Promise<number> => metric(app, `dicechess_thread_heap_bytes{thread="${thread}",kind="${kind}"}`);
    t.ok((await heap('main', 'used')) > 0, 'main thread heap in use');
    for (let i = 0; i < SHARDS; i++) {
      // A shard reports with its stats, once a second.
      const used = await until(async () => ((await heap(`shard-${i}`, 'used')) > 0 ? heap(`shard-${i}`, 'used') : undefined), `shard-${i}'s heap`, 20_000);
      const total = await heap(`shard-${i}`, 'total');
      t.ok(used > 0 && total >= used, `shard-${i}: ${used} of ${total} bytes`);
    }
  });
});
