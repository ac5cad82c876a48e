// The load process of the game-throughput benchmarks (bench/throughput.ts, bench/persistence.ts), a
// separate process so that its CPU is not the server's: N bot pairs play complete games against a
// running server over HTTP, as fast as they can, for a fixed time.
//
//   node load-driver.js --url http://127.0.0.1:PORT --pairs N --duration-ms MS
//
// Each pair mints two anonymous bots once, then loops: White challenges Black, Black accepts (the
// driver hands it the challenge id instead of running an account stream), each bot opens its own
// game stream and, when a roll is its own, submits a random root-to-leaf path of the legal-move
// tree (fetching GET /games/{id}/moves when the inline tree is null; an empty tree is a forced pass
// the server plays). When the time is up the games still running are resigned. The last stdout
// line is a JSON summary (see LoadSummary in procs.ts); when forked, 'start' and 'stop' messages
// mark the measurement window for the parent, and the driver exits if the parent goes away.
import http from 'node:http';
import { parseArgs } from 'node:util';
import { lineSplitter, randomPath, requester, type Answer, type Tree } from './driver-common.js';

type Seat = 'White' | 'Black';
interface Bot {
  token: string;
  team: string;
  name: string;
}

const REQUEST_TIMEOUT_MS = 10_000;
/** After the window: how long resigned games get to end and their streams to close. */
const WIND_DOWN_MS = 5_000;
/** A game with no event for this long at the end of the window counts as stalled. */
const STALL_MS = 5_000;

const { values: opt } = parseArgs({
  options: {
    url: { type: 'string' },
    pairs: { type: 'string', default: '8' },
    'duration-ms': { type: 'string', default: '15000' },
  },
});
if (!opt.url) {
  console.error('usage: load-driver --url http://127.0.0.1:PORT [--pairs N] [--duration-ms MS]');
  process.exit(2);
}
const base = new URL(opt.url);
const PAIRS = Number(opt.pairs);
const DURATION_MS = Number(opt['duration-ms']);
process.once('disconnect', () => process.exit(1));

const agent = new http.Agent({ keepAlive: true, maxSockets: 4 * PAIRS + 16 });

// ---------------------------------------------------------------------------------------------
// Counters.

let stopping = false;
let windowStart = 0;
let windowEnd = 0;
const inWindow = (): boolean => !stopping;
const latencies: number[] = [];
const statuses: Record<string, number> = {};
const problems: Record<string, number> = {};
const problemSamples: string[] = [];
let turns = 0;
let passes = 0;
let moves = 0;
let gamesStarted = 0;
let gamesCompleted = 0;
let gamesResignedAtEnd = 0;
/** Verdicts that arrived after the window closed (not counted in statuses or moves). */
let afterWindow = 0;

function problem(kind: string, detail = ''): void {
  problems[kind] = (problems[kind] ?? 0) + 1;
  if (problemSamples.length < 10) problemSamples.push(`${kind}${detail ? `: ${detail.slice(0, 300)}` : ''}`);
}

// ---------------------------------------------------------------------------------------------
// HTTP.

const request = requester(base, agent, REQUEST_TIMEOUT_MS);

async function expectJson<T>(what: string, want: number, p: Promise<Answer>): Promise<T | undefined> {
  try {
    const a = await p;
    if (a.status === want) return JSON.parse(a.text) as T;
    problem(`${what} ${a.status}`, a.text);
  } catch (e) {
    problem(`${what} failed`, (e as Error).message);
  }
  return undefined;
}

const openStreams = new Set<http.ClientRequest>();

/** An ndjson stream on its own connection; resolves when it is over. */
function stream(path: string, token: string, onLine: (line: string) => void): Promise<void> {
  return new Promise((resolve) => {
    const req = http.get(
      { host: base.hostname, port: base.port, path, headers: { authorization: `Bearer ${token}` }, agent: false },
      (res) => {
        if (res.statusCode !== 200) problem(`stream ${res.statusCode}`);
        res.setEncoding('utf8');
        res.on('data', lineSplitter(onLine));
        res.on('error', () => undefined);
        res.on('close', () => resolve());
      },
    );
    openStreams.add(req);
    req.on('error', (e) => {
      if (!stopping) problem('stream failed', e.message);
      resolve();
    });
    req.on('close', () => {
      openStreams.delete(req);
      resolve();
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Playing.

interface Game {
  id: string;
  white: Bot;
  ended: boolean;
  lastEvent: number;
}

const active = new Set<Game>();

/** One seat's bot: answers its own rolls once each (a roll can show up in the Snapshot and nowhere else). */
async function playSeat(game: Game, seat: Seat, bot: Bot): Promise<void> {
  let acted = -1;
  let sawEnd = false;
  const act = async (v: number, inline: Tree | null): Promise<void> => {
    if (stopping || v <= acted) return;
    acted = v;
    let tree = inline;
    if (tree === null) {
      const full = await expectJson<{ version: number; legalMoves: Tree }>('GET moves', 200, request('GET', `/games/${game.id}/moves`));
      if (!full) return;
      if (full.version !== v) problem('moves version mismatch', `roll v${v}, /moves v${full.version}`);
      tree = full.legalMoves;
    }
    if (Object.keys(tree).length === 0) return; // forced pass: the server plays it
    const t0 = performance.now();
    let a: Answer;
    try {
      a = await request('POST', `/bot/game/${game.id}/move`, bot.token, { moves: randomPath(tree) });
    } catch (e) {
      problem('move lost', (e as Error).message);
      return;
    }
    latencies.push(performance.now() - t0);
    if (stopping) {
      // In flight when the window closed: the game may have been resigned under it (409 game over).
      afterWindow++;
      return;
    }
    statuses[a.status] = (statuses[a.status] ?? 0) + 1;
    if (a.status === 200) moves++;
    else if (a.status === 202) problem('verdict late (202)');
    else problem(`move ${a.status}`, a.text);
  };
  const onLine = (line: string): void => {
    game.lastEvent = performance.now();
    let ev: Record<string, Record<string, unknown>>;
    try {
      ev = JSON.parse(line) as typeof ev;
    } catch {
      problem('bad ndjson line', line);
      return;
    }
    const run = (p: Promise<void>) => p.catch((e: unknown) => problem('bot error', String(e)));
    if (ev.Snapshot) {
      const st = ev.Snapshot.state as { version: number; activeSeat: Seat; dicePending: boolean; legalMoves: Tree | null };
      if (st.dicePending && st.activeSeat === seat) void run(act(st.version, st.legalMoves));
    } else if (ev.DiceRolled) {
      const d = ev.DiceRolled as { v: number; seat: Seat; legalMoves: Tree | null };
      if (d.seat === seat) void run(act(d.v, d.legalMoves));
    } else if (ev.TurnPlayed) {
      if (seat === 'White' && inWindow()) {
        turns++;
        if ((ev.TurnPlayed.moves as string[]).length === 0) passes++;
      }
    } else if (ev.GameEnded) {
      sawEnd = true;
      game.ended = true;
      if (seat === 'White' && inWindow()) gamesCompleted++;
    } else if (ev.Rejected) {
      if (!stopping) problem('Rejected event', JSON.stringify(ev.Rejected));
    }
  };
  await stream(`/bot/game/stream/${game.id}`, bot.token, onLine);
  if (!sawEnd && !stopping) {
    problem('game stream closed before GameEnded');
    await request('POST', `/bot/game/${game.id}/resign`, bot.token).catch(() => undefined);
  }
}

async function mint(label: string): Promise<Bot | undefined> {
  return expectJson<Bot>('mint', 201, request('POST', `/bot/anon?name=${label}`));
}

async function pair(i: number): Promise<void> {
  const white = await mint(`w${i}`);
  const black = await mint(`b${i}`);
  if (!white || !black) return;
  while (!stopping) {
    const ch = await expectJson<{ id: string }>('challenge', 201, request('POST', '/bot/challenge', white.token, { team: black.team, name: black.name }));
    const created = ch && (await expectJson<{ gameId: string }>('accept', 201, request('POST', `/bot/challenge/${ch.id}/accept`, black.token)));
    if (!created) {
      await new Promise((r) => setTimeout(r, 100)); // a refused set-up is reported; do not spin on it
      continue;
    }
    if (stopping) {
      await request('POST', `/bot/game/${created.gameId}/resign`, white.token).catch(() => undefined);
      break;
    }
    gamesStarted++;
    const game: Game = { id: created.gameId, white, ended: false, lastEvent: performance.now() };
    active.add(game);
    await Promise.all([playSeat(game, 'White', white), playSeat(game, 'Black', black)]);
    active.delete(game);
  }
}

function pct(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(sorted.length * p) - 1))];
}

async function main(): Promise<void> {
  windowStart = performance.now();
  const cpu0 = process.cpuUsage();
  process.send?.({ event: 'start' });
  const loops = Promise.all(Array.from({ length: PAIRS }, (_, i) => pair(i)));
  await new Promise((r) => setTimeout(r, DURATION_MS));
  stopping = true;
  windowEnd = performance.now();
  const cpu = process.cpuUsage(cpu0);
  process.send?.({ event: 'stop' });
  let stalled = 0;
  for (const g of active) {
    if (g.ended) continue;
    if (windowEnd - g.lastEvent > STALL_MS) stalled++;
    gamesResignedAtEnd++;
    void request('POST', `/bot/game/${g.id}/resign`, g.white.token).catch((e: unknown) => problem('resign failed', String(e)));
  }
  if (stalled) problem('games stalled at the end', `${stalled} without an event for ${STALL_MS} ms`);
  const settled = await Promise.race([loops.then(() => true), new Promise<false>((r) => setTimeout(() => r(false), WIND_DOWN_MS))]);
  const unfinished = [...active].filter((g) => !g.ended).length;
  if (!settled) problem('games not ended after resign', `${unfinished} still open ${WIND_DOWN_MS} ms after resigning`);
  for (const req of openStreams) req.destroy();
  const windowS = (windowEnd - windowStart) / 1000;
  const sorted = latencies.sort((a, b) => a - b);
  const summary = {
    pairs: PAIRS,
    windowS,
    turns,
    turnsPerS: turns / windowS,
    moves,
    movesPerS: moves / windowS,
    passes,
    gamesStarted,
    gamesCompleted,
    gamesPerS: gamesCompleted / windowS,
    gamesResignedAtEnd,
    gamesUnfinished: unfinished,
    verdictMs: { count: sorted.length, p50: pct(sorted, 0.5), p99: pct(sorted, 0.99), max: sorted[sorted.length - 1] ?? 0 },
    statuses,
    verdictsAfterWindow: afterWindow,
    driverCpuPct: ((cpu.user + cpu.system) / 1000 / (windowEnd - windowStart)) * 100,
    problems,
    problemSamples,
  };
  process.stdout.write(`${JSON.stringify(summary)}\n`, () => process.exit(0));
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
