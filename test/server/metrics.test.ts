// GET /metrics while a game is played over HTTP: every service metric moves by exactly what happened
// (games started and ended by termination, turns applied, verdicts, streams open by kind, legal-move
// trees built in the shards, store writes, 429s by route).
import t from 'tap';
import { bootApp, type TestApp } from '../helpers/app.js';
import { Bot, type Json } from '../helpers/bot.js';
import { fullTree, pendingOrOver } from '../helpers/games.js';
import { randomPath } from '../helpers/play.js';
import { until } from '../helpers/poll.js';
import { prng as rng } from '../helpers/prng.js';

type Sample = Map<string, number>;

/** The exposition as `name{labels}` → value (label order as the server writes it). */
async function scrape(app: TestApp): Promise<Sample> {
  const r = await app.req('GET', '/metrics');
  if (r.status !== 200) throw new Error(`/metrics: ${r.status}`);
  const out: Sample = new Map();
  for (const line of r.text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const cut = line.lastIndexOf(' ');
    out.set(line.slice(0, cut), Number(line.slice(cut + 1)));
  }
  return out;
}

const at = (s: Sample, key: string): number => s.get(key) ?? 0;
const moved = (before: Sample, after: Sample, key: string): number => at(after, key) - at(before, key);

t.test('playing a game moves every service metric by what happened', async (t) => {
  const app = await bootApp(t, { overrides: { 'limits.registrationsPerHour': 1 } });
  const random = rng(8);
  const alice = await Bot.anon(app, 'alice');
  const bob = await Bot.anon(app, 'bob');
  const before = await scrape(app);
  for (const name of [
    'dicechess_live_games', 'dicechess_turns_applied_total', 'dicechess_games_started_total',
    'dicechess_verdict_seconds_count', 'dicechess_open_streams{kind="account"}', 'dicechess_open_streams{kind="game"}',
    'dicechess_tree_seconds_count',
  ]) t.ok(before.has(name), `${name} is exposed from the start`);
  const heapUsed = at(before, 'dicechess_thread_heap_bytes{thread="main",kind="used"}');
  const heapTotal = at(before, 'dicechess_thread_heap_bytes{thread="main",kind="total"}');
  t.ok(heapUsed > 0 && heapTotal >= heapUsed, `the main thread's V8 heap: ${heapUsed} used of ${heapTotal}`);
  t.notOk(before.has('dicechess_rules_queue_depth'), 'no rules queue: a tree is a synchronous call in the shard');

  const account = await alice.accountStream();
  const gameId = await alice.playAgainst(bob);
  const watch = await bob.gameStream(gameId);
  const during = await scrape(app);
  t.equal(at(during, 'dicechess_open_streams{kind="account"}'), 1, 'one account stream open');
  t.equal(at(during, 'dicechess_open_streams{kind="game"}'), 1, 'one game stream open');
  t.equal(at(during, 'dicechess_live_games'), 1, 'one live game');
  t.equal(moved(before, during, 'dicechess_games_started_total'), 1, 'one game started');

  // Eight turns by whoever is to move, plus one refused move; then White resigns.
  let verdicts = 0;
  let applied = 0;
  // The dice come from the server seed, not from the test: three moves a turn can take a king within
  // eight turns. Such a game is counted under its own termination instead of a resignation.
  let endedEarly = false;
  for (let turn = 0; turn < 8; turn++) {
    const s = await pendingOrOver(app, gameId);
    if ('Ended' in s.status) {
      endedEarly = true;
      break;
    }
    const mover = s.activeSeat === 'White' ? alice : bob;
    if (turn === 3) {
      t.equal((await mover.move(gameId, ['a1a1'])).status, 409, 'an illegal move is refused');
      verdicts++;
    }
    const path = randomPath((await fullTree(app, gameId)).legalMoves, random);
    const r = await mover.move(gameId, path);
    t.equal(r.status, 200, `turn ${turn} applied`);
    verdicts++;
    applied++;
  }
  // The last move sent may itself have ended the game (a king captured): then there is nothing to resign.
  if (!endedEarly) endedEarly = 'Ended' in ((await app.req('GET', `/games/${gameId}`)).json as Json).status;
  if (!endedEarly) t.equal((await alice.resign(gameId)).status, 202);
  const over = await until(async () => {
    const h = (await app.req('GET', `/games/${gameId}/history`)).json as Json;
    return 'Ended' in h.status ? h : undefined;
  }, 'the game to end');
  const turns = (over.history as unknown[]).length;
  t.ok(turns >= applied, `the history has ${turns} turns (${applied} sent, forced passes on top)`);

  // The game stream ends with the game; the account stream when its client leaves.
  await watch.rest();
  account.close();
  const after = await until(async () => {
    const s = await scrape(app);
    return at(s, 'dicechess_open_streams{kind="account"}') === 0 && at(s, 'dicechess_open_streams{kind="game"}') === 0 ? s : undefined;
  }, 'both streams to be counted closed');

  t.equal(moved(before, after, 'dicechess_turns_applied_total'), turns, 'turns applied: one per history entry');
  t.equal(moved(before, after, 'dicechess_games_started_total'), 1);
  const termination = (over.status as Json).Ended.over.termination as string;
  // A resignation that came a moment after the last move ended the game on the board changes nothing
  // (had it been ignored on a live game, the wait for the end above would have failed).
  if (endedEarly || termination !== 'Resign') t.notOk(['Resign', 'Timeout', 'Aborted'].includes(termination), `the game ended on the board (${termination}) before the resignation`);
  else t.equal(termination, 'Resign', 'the game ended by resignation');
  t.equal(moved(before, after, `dicechess_games_ended_total{termination="${termination}"}`), 1, `one game ended, counted under ${termination}`);
  t.equal(at(after, 'dicechess_games_ended_total{termination="Timeout"}'), 0, 'and none on time');
  t.equal(at(after, 'dicechess_live_games'), 0);
  t.equal(moved(before, after, 'dicechess_verdict_seconds_count'), verdicts, 'one verdict timing per move answered');
  const rollsTimed = moved(before, after, 'dicechess_tree_seconds_count');
  t.ok(rollsTimed >= turns, `a tree timed in the shard per roll at least (${rollsTimed} for ${turns} turns)`);
  t.ok(at(after, 'dicechess_tree_seconds_sum') > 0, 'the shards measured them');
  t.equal(moved(before, after, 'dicechess_store_write_seconds_count{op="finishGame"}'), 1, 'the final record written once');
  t.ok(moved(before, after, 'dicechess_store_write_seconds_count{op="putGame"}') >= turns, 'a game write per turn at least');

  // A 429 is counted under its route.
  t.equal((await app.req('POST', '/bot/register', { body: { team: 'met', name: 'one' } })).status, 201);
  t.equal((await app.req('POST', '/bot/register', { body: { team: 'met', name: 'two' } })).status, 429);
  const last = await scrape(app);
  t.equal(moved(after, last, 'dicechess_rate_limited_total{route="POST /bot/register"}'), 1, 'one refusal on POST /bot/register');
  t.equal(moved(after, last, 'dicechess_store_write_seconds_count{op="createBot"}'), 1, 'one bot created');
});
