// Edge feeds (docs/ARCHITECTURE.md, "Edge threads"): with several HTTP threads a game stream's lines
// after its Snapshot come from the game's shard straight to the edge thread holding the stream, to
// that thread only, and read exactly as on one thread (same lines, same order, the close after
// GameEnded). Each stream is opened on a fresh connection so the kernel may put it on either thread;
// the threads' request counters say which one took it.
import t from 'tap';
import { bootApp, type TestApp } from '../helpers/app.js';
import { Bot } from '../helpers/bot.js';
import { fullTree, seededGame } from '../helpers/games.js';
import { openLines, request, type LineReader, type Teardown } from '../helpers/http.js';
import { randomPath, type Tree } from '../helpers/play.js';
import { until } from '../helpers/poll.js';
import { prng as rng } from '../helpers/prng.js';

const HOLD = { 'games.seedGraceMs': 600_000 };

function threads(app: TestApp) {
  const th = app.server.httpThreads;
  if (th === undefined) throw new Error('the server has no edge threads');
  return th;
}

/** Streams of a live game on main (a look inside its replica). */
const subscribers = (app: TestApp, gameId: string): number =>
  (app.server.games.get(gameId) as unknown as { subscriberCount: number } | undefined)?.subscriberCount ?? -1;

/** A public game stream on a fresh connection, and the edge thread that took it (-1 with one thread). */
async function watch(app: TestApp, gameId: string): Promise<{ s: LineReader; thread: number }> {
  const th = app.server.httpThreads;
  const before = th?.requestsPerThread() ?? [];
  const s = await openLines(`${app.base}/games/${gameId}/stream`);
  const thread = th === undefined ? -1 : th.requestsPerThread().findIndex((n, i) => n > before[i]);
  return { s, thread };
}

/** Every line until the stream closes (keep-alives dropped), and whether it ended cleanly. */
async function rest(s: LineReader): Promise<{ lines: string[]; complete: boolean }> {
  const lines: string[] = [];
  for (let l = await s.next(); l !== undefined; l = await s.next()) if (l !== '') lines.push(l);
  return { lines, complete: (await s.closed).complete };
}

/**
 * One seeded game played the same way on a server with `count` threads: a stream from the start, a
 * second one opened after three turns, three more turns, then a resignation.
 */
async function playWatched(t: Teardown, count: number) {
  const app = await bootApp(t, { overrides: { ...HOLD, 'http.threads': count } });
  const white = await Bot.anon(app, 'white');
  const black = await Bot.anon(app, 'black');
  const { gameId } = await seededGame(app, white, black);
  const first = await watch(app, gameId);
  const random = rng(11);
  const play = async (turns: number) => {
    for (let done = 0; done < turns; ) {
      const m = await fullTree(app, gameId);
      if (!m.dicePending) continue;
      const mover = m.dfen.split(' ')[1] === 'w' ? white : black;
      if ((await mover.move(gameId, randomPath(m.legalMoves as Tree, random))).status === 200) done++;
    }
  };
  await play(3);
  const second = await watch(app, gameId);
  await play(3);
  if ((await white.resign(gameId)).status !== 202) throw new Error('the resignation was refused');
  const a = await rest(first.s);
  const b = await rest(second.s);
  // What differs between two servers by chance: the game's id and the anonymous bots' name suffixes.
  const anon = (lines: string[]) => lines.map((l) => l.split(gameId).join('<game>').replace(/"anon (\w+)-[0-9a-f]+"/g, '"anon $1"'));
  return { app, gameId, first: { ...a, lines: anon(a.lines), thread: first.thread }, second: { ...b, lines: anon(b.lines), thread: second.thread } };
}

t.test("a game's lines come from its shard to the edge thread holding its stream, as on one thread", async (t) => {
  const one = await playWatched(t, 1);
  const two = await playWatched(t, 2);
  t.ok(two.first.complete && two.second.complete, 'both streams end cleanly after GameEnded');
  t.match(two.first.lines.at(-1), /^\{"GameEnded"/, 'the last line is GameEnded');
  t.same(two.first.lines, one.first.lines, 'the first stream reads byte for byte as with one thread');
  t.same(two.second.lines, one.second.lines, 'so does the one opened mid-game');
  t.same(two.second.lines.slice(1), two.first.lines.slice(-(two.second.lines.length - 1)), 'the second, past its Snapshot, is the tail of the first');
  const fed = threads(two.app).feedUpdatesPerThread();
  t.comment(`streams on threads ${two.first.thread}, ${two.second.thread}; updates received per thread: ${fed.join(', ')}`);
  for (const thread of [two.first.thread, two.second.thread]) t.ok(fed[thread] > 0, `thread ${thread}, which holds a stream, received the game's updates`);
});

t.test('an edge thread with no stream of a game receives none of its updates', async (t) => {
  const app = await bootApp(t, { overrides: { ...HOLD, 'http.threads': 2 } });
  const white = await Bot.anon(app, 'white');
  const black = await Bot.anon(app, 'black');
  const { gameId } = await seededGame(app, white, black);
  // Streams until one is on each thread; then the one on thread 1 is closed.
  const held = new Map<number, LineReader>();
  await until(async () => {
    const { s, thread } = await watch(app, gameId);
    if (held.has(thread)) s.destroy();
    else held.set(thread, s);
    return held.size === 2 ? true : undefined;
  }, 'a stream on each thread', 200);
  const kept = held.get(0)!;
  held.get(1)!.destroy();
  // Main hears of the close in the same turn as the shard hears thread 1 let the game go.
  await until(async () => (subscribers(app, gameId) === 1 ? true : undefined), 'thread 1\'s stream to close');
  const before = threads(app).feedUpdatesPerThread();
  // Moves, each refused and published as a Rejected line, until thread 0's stream has them all.
  const idle = (await fullTree(app, gameId)).dfen.split(' ')[1] === 'w' ? black : white;
  for (let i = 0; i < 5; i++) t.equal((await idle.move(gameId, ['a7a6'])).status, 409, 'refused: not its turn');
  let rejected = 0;
  while (rejected < 5) {
    const line = await kept.next();
    if (line === undefined) throw new Error('the kept stream closed');
    if (line.startsWith('{"Rejected"')) rejected++;
  }
  const after = threads(app).feedUpdatesPerThread();
  t.ok(after[0] - before[0] >= 5, `thread 0 received the updates (${after[0] - before[0]})`);
  t.equal(after[1], before[1], 'thread 1, with no stream of the game, received none');
  kept.destroy();
});

t.test('with shard worker threads too: the ports reach the workers, and a stream reads its game to the end', async (t) => {
  const app = await bootApp(t, { rules: 'workers', overrides: { 'http.threads': 2 } });
  const white = await Bot.anon(app, 'white');
  const black = await Bot.anon(app, 'black');
  const gameId = await white.playAgainst(black);
  const { s, thread } = await watch(app, gameId);
  const random = rng(3);
  for (let done = 0; done < 2; ) {
    const m = await fullTree(app, gameId);
    if (!m.dicePending) continue;
    const mover = m.dfen.split(' ')[1] === 'w' ? white : black;
    if ((await mover.move(gameId, randomPath(m.legalMoves as Tree, random))).status === 200) done++;
  }
  t.equal((await black.resign(gameId)).status, 202, 'Black resigns');
  const { lines, complete } = await rest(s);
  t.ok(complete, 'the stream ends cleanly');
  const vs = lines.map((l) => (Object.values(JSON.parse(l) as Record<string, { v: number }>)[0]).v);
  t.same(vs, vs.map((_, i) => vs[0] + i), `versions go up by one: ${vs.join(', ')}`);
  t.match(lines.at(-1), /^\{"GameEnded"/);
  t.ok(threads(app).feedUpdatesPerThread()[thread] > 0, `thread ${thread} received the game's updates from the worker`);
});

t.test('the stream caps hold across threads for followed streams, and a closed one gives its place back', async (t) => {
  const app = await bootApp(t, { overrides: { ...HOLD, 'http.threads': 2, 'limits.streamsPerIdentity': 2, 'spectators.maxPerGame': 2 } });
  const white = await Bot.anon(app, 'white');
  const black = await Bot.anon(app, 'black');
  const watcher = await Bot.anon(app, 'watcher');
  const { gameId } = await seededGame(app, white, black);
  const auth = { authorization: `Bearer ${watcher.token}` };
  /** A stream on a fresh connection: its status, the refusal's code, and the thread that took it. */
  const open = async (path: string, headers?: Record<string, string>) => {
    const before = threads(app).requestsPerThread();
    const s = await openLines(`${app.base}${path}`, headers);
    const thread = threads(app).requestsPerThread().findIndex((n, i) => n > before[i]);
    return { s, thread };
  };
  for (const [path, headers, code] of [
    [`/bot/game/stream/${gameId}`, auth, 'too_many_streams'],
    [`/games/${gameId}/stream`, undefined, 'too_many_spectators'],
  ] as const) {
    const held = [await open(path, headers), await open(path, headers)];
    t.same(held.map((h) => h.s.status), [200, 200], `${path}: two streams open (threads ${held.map((h) => h.thread).join(', ')})`);
    const refusedOn = new Set<number>();
    await until(async () => {
      const r = await open(path, headers);
      r.s.destroy();
      t.equal(r.s.status, 429, `refused on thread ${r.thread}`);
      refusedOn.add(r.thread);
      return refusedOn.size === 2 ? true : undefined;
    }, 'a refusal on each thread', 200);
    t.match((await request('GET', `${app.base}${path}`, { headers })).json, { code }, `the refusal is ${code}`);
    held[0].s.destroy();
    await until(async () => {
      const r = await open(path, headers);
      if (r.s.status === 200) held[0] = r;
      else r.s.destroy();
      return r.s.status === 200 ? true : undefined;
    }, 'the place to come back', 200);
    t.pass('a closed stream gave its place back');
    // The streams held are followed on their threads: a refused move reaches each of them from the shard.
    const before = threads(app).feedUpdatesPerThread();
    const idle = (await fullTree(app, gameId)).dfen.split(' ')[1] === 'w' ? black : white;
    t.equal((await idle.move(gameId, ['a7a6'])).status, 409);
    for (const h of held) {
      for (let line = await h.s.next(); line !== undefined && !line.startsWith('{"Rejected"'); line = await h.s.next());
    }
    const after = threads(app).feedUpdatesPerThread();
    for (const h of held) t.ok(after[h.thread] > before[h.thread], `the stream on thread ${h.thread} was fed by the shard`);
    for (const h of held) h.s.destroy();
    await until(async () => (subscribers(app, gameId) === 0 ? true : undefined), 'the streams to close');
  }
});
