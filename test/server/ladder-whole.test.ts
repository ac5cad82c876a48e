// A whole ladder through HTTP. Six registered bots register, set their capacity and join over HTTP
// (capacities from 2 to 4, so rounds make mirror pairs only: a bot with one seat left waits for another);
// three hold their account stream and play from game streams, three only poll (GET /bot/games, then
// GET /games/{id}). All play random legal turns (a bot resigns past a turn limit, to keep the file
// short). The test runs the scheduler's rounds and the rating batches itself (no timer fires: the
// intervals are a day and the clock stays still while games run), then checks every ladder game as
// the API recorded it, and the leaderboard and profiles against the reference Glicko-2 of
// test/helpers/glicko2-reference.ts.
//
// A gate holds every bot's moves while a round runs, so the live games seen right after a round are
// exactly those the round saw: a bot's live ladder games only grow at a round, so checking them
// after each round checks them at every moment.
import t from 'tap';
import type { ManualClock } from '../../src/domain/clock.js';
import { bootApp, diskStore, type TestApp } from '../helpers/app.js';
import { referenceUpdate, type Ref } from '../helpers/glicko2-reference.js';
import { Bot, type Json } from '../helpers/bot.js';
import { EventStream, type Ev } from '../helpers/event-stream.js';
import { fullTree } from '../helpers/games.js';
import { randomPath, type Tree } from '../helpers/play.js';
import { prng as rng } from '../helpers/prng.js';

const TEAM = 'whole';
const BOTS = [
  { name: 'ada', poll: false, capacity: 2 },
  { name: 'bea', poll: false, capacity: 4 },
  { name: 'cyd', poll: false, capacity: 4 },
  { name: 'dot', poll: true, capacity: 3 },
  { name: 'eve', poll: true, capacity: 4 },
  { name: 'fay', poll: true, capacity: 2 },
];
/** A bot resigns instead of playing its turn number TURN_LIMIT of a game. */
const TURN_LIMIT = 50;
const FISCHER = { Fischer: { initialSeconds: 300, incrementSeconds: 3 } };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---- a gate that holds the bots' moves while the test runs a round -----------------------------------

class Gate {
  private shut: Promise<void> | null = null;
  private reopen: (() => void) | null = null;
  private busy = 0;
  private idle: (() => void)[] = [];

  /** Runs a bot action unless the gate is shut (then waits for it to open). */
  async pass<T>(action: () => Promise<T>): Promise<T> {
    while (this.shut) await this.shut;
    this.busy++;
    try {
      return await action();
    } finally {
      if (--this.busy === 0) for (const w of this.idle.splice(0)) w();
    }
  }

  /** Shuts the gate and waits for the actions already past it. */
  async close(): Promise<void> {
    this.shut ??= new Promise((r) => (this.reopen = r));
    while (this.busy > 0) await new Promise<void>((r) => this.idle.push(r));
  }

  open(): void {
    const r = this.reopen;
    this.shut = null;
    this.reopen = null;
    r?.();
  }
}

// ---- the bots ---------------------------------------------------------------------------------------

interface Player {
  bot: Bot;
  face: string;
  capacity: number;
  poll: boolean;
  /** Turns played per game, for the resign limit. */
  turns: Map<string, number>;
  /** Dice of each roll this bot saw on a game stream, by ply (stream bots). */
  rolls: Map<string, Map<number, number[]>>;
  problems: string[];
}

/** Plays one turn of `seat` in a game, or resigns at the turn limit. */
async function turn(app: TestApp, gate: Gate, p: Player, gameId: string, inline: Tree | null, random: () => number): Promise<void> {
  await gate.pass(async () => {
    const tree = inline ?? (await fullTree(app, gameId)).legalMoves;
    if (Object.keys(tree).length === 0) return; // a forced pass: the server plays it
    const n = (p.turns.get(gameId) ?? 0) + 1;
    p.turns.set(gameId, n);
    const r = n >= TURN_LIMIT ? await p.bot.resign(gameId) : await p.bot.move(gameId, randomPath(tree, random));
    if (r.status !== 200 && r.status !== 202) p.problems.push(`${p.face} in ${gameId}: ${r.status} ${r.text}`);
  });
}

/** A stream bot's game: plays its seat from the game stream until the game ends. */
async function playStream(app: TestApp, gate: Gate, p: Player, gameId: string, random: () => number): Promise<void> {
  const stream = new EventStream(await app.stream(`/bot/game/stream/${gameId}`, p.bot.token), 60_000);
  const rolls = new Map<number, number[]>();
  p.rolls.set(gameId, rolls);
  let seat: string | null = null;
  let ply = 0;
  for (let ev = await stream.next(); ev; ev = await stream.next()) {
    const snap = ev.Snapshot?.state;
    if (snap) {
      seat = snap.players.white.name === p.face ? 'White' : 'Black';
      ply = ev.Snapshot.history.length + (snap.dicePending ? 1 : 0);
      if ('Active' in snap.status && snap.dicePending && snap.activeSeat === seat) await turn(app, gate, p, gameId, snap.legalMoves, random);
    }
    if (ev.DiceRolled) {
      rolls.set(ply++, ev.DiceRolled.dice);
      if (ev.DiceRolled.seat === seat) await turn(app, gate, p, gameId, ev.DiceRolled.legalMoves, random);
    }
  }
}

/** A stream bot: starts a game player for every GameStart on its account stream. */
async function runStreamBot(app: TestApp, gate: Gate, p: Player, acct: EventStream, random: () => number): Promise<void> {
  const games: Promise<void>[] = [];
  for (let ev: Ev | undefined = await acct.next(); ev; ev = await acct.next()) {
    if (ev.GameStart) games.push(playStream(app, gate, p, ev.GameStart.gameId, random));
  }
  await Promise.all(games);
}

/** A polling bot: lists its games, reads each game it must move in, plays, until told to stop. */
async function runPollingBot(app: TestApp, gate: Gate, p: Player, random: () => number, stop: () => boolean): Promise<void> {
  // Idle polls back off (1, 2, 4, … 32 ms) until the bot has something to do: a fixed 5 ms poll of
  // three bots spent much of the file's CPU on empty game lists while the others played.
  let idle = 1;
  for (;;) {
    const mine = await p.bot.myGames();
    if (mine.length === 0 && stop()) return;
    let acted = false;
    for (const g of mine) {
      if (g.seat !== g.activeSeat || !g.dicePending) continue;
      const s = (await app.req('GET', `/games/${g.gameId}`)).json as Json;
      if (s.version !== g.version || !s.dicePending) continue;
      await turn(app, gate, p, g.gameId, s.legalMoves, random);
      acted = true;
    }
    if (acted) idle = 1;
    else {
      await sleep(idle); // nothing to do: do not spin
      idle = Math.min(idle * 2, 32);
    }
  }
}

// ---- the reference Glicko-2 (test/helpers/glicko2-reference.ts), checked on the paper's example ------

const TAU = 0.5;
const glicko2 = (me: Ref, results: { opp: Ref; score: number }[]): Ref => referenceUpdate(me, results.map(({ opp, score }) => ({ opp, s: score })), TAU);

t.test('the reference reproduces the paper’s worked example', async (t) => {
  const out = glicko2({ r: 1500, rd: 200, vol: 0.06 }, [
    { opp: { r: 1400, rd: 30, vol: 0.06 }, score: 1 },
    { opp: { r: 1550, rd: 100, vol: 0.06 }, score: 0 },
    { opp: { r: 1700, rd: 300, vol: 0.06 }, score: 0 },
  ]);
  // The paper prints 1464.06 / 151.52 / 0.05999 from intermediate values rounded by hand.
  t.ok(Math.abs(out.r - 1464.06) < 0.01 && Math.abs(out.rd - 151.52) < 0.01 && Math.abs(out.vol - 0.05999) < 1e-5, `${out.r} / ${out.rd} / ${out.vol}`);
});

// ---- the test ---------------------------------------------------------------------------------------

interface LadderGame {
  id: string;
  kind: string;
  round: number;
  batch: number;
  white: string;
  black: string;
  /** White's score: 1, 0.5 or 0. */
  score: number;
  hist: Json;
}

t.test('six bots (streams and polling) play a ladder; ratings agree with a reference Glicko-2', async (t) => {
  const app = await bootApp(t, {
    store: await diskStore(t),
    random: rng(7),
    overrides: { 'ladder.pairIntervalMs': 86_400_000, 'ladder.ratingBatchMs': 86_400_000, 'limits.registrationsPerHour': 20 },
  });
  const clock = app.clock as ManualClock;
  const gate = new Gate();
  const players: Player[] = [];
  for (const b of BOTS) {
    const bot = await Bot.register(app, TEAM, b.name);
    t.same((await bot.req('POST', '/bot/capacity', { capacity: b.capacity })).json, { capacity: b.capacity, inGames: 0 });
    t.equal((await bot.req('POST', '/bot/ladder/join')).status, 200);
    players.push({ bot, face: `${TEAM} ${b.name}`, capacity: b.capacity, poll: b.poll, turns: new Map(), rolls: new Map(), problems: [] });
  }
  const byFace = new Map(players.map((p) => [p.face, p]));
  let stopping = false;
  // The account stream may stay quiet while a bot waits for a round: a long watchdog.
  const accounts = await Promise.all(players.map(async (p) => (p.poll ? null : new EventStream(await app.stream('/bot/stream/event', p.bot.token), 600_000))));
  const polling: Promise<void>[] = [];
  const streaming: Promise<void>[] = [];
  players.forEach((p, i) => {
    const acct = accounts[i];
    if (acct) streaming.push(runStreamBot(app, gate, p, acct, rng(100 + i)));
    else polling.push(runPollingBot(app, gate, p, rng(100 + i), () => stopping));
  });

  const games = new Map<string, { round: number; batch: number; rated: unknown; timeControl: unknown; kind: string }>();
  const pairsOf = new Map<string, string[]>(players.map((p) => [p.face, []])); // opponents in pairing order
  let round = 0;
  let batch = 0;
  let mostLive = 0;
  const liveGames = async (): Promise<Json[]> => ((await app.req('GET', '/games')).json as Json).games;

  /** One round with every move held: records its games and checks every bot's live games against its capacity. */
  const runRound = async (): Promise<number> => {
    await gate.close();
    round++;
    const made = await app.server.scheduler.round();
    const live = await liveGames();
    const fresh = live.filter((g) => !games.has(g.gameId));
    const kindOf = new Map<string, string>();
    for (const g of fresh) kindOf.set(g.gameId, ((await app.req('GET', `/games/${g.gameId}`)).json as Json).ladder);
    const kinds = [...kindOf.values()];
    const mirrors = kinds.filter((k) => k === 'mirror').length;
    const singles = kinds.filter((k) => k === 'single').length;
    t.equal(mirrors + singles, fresh.length, `round ${round}: every new game says its ladder kind`);
    t.equal(mirrors / 2 + singles, made, `round ${round}: ${made} pairings, ${mirrors / 2} mirror pairs and ${singles} single games`);
    for (const g of fresh) games.set(g.gameId, { round, batch, rated: g.rated, timeControl: g.timeControl, kind: kindOf.get(g.gameId)! });
    // One pairing per bot and round: the new games of a bot are its mirror pair, or its single game.
    for (const p of players) {
      const inGames = live.filter((g) => g.players.white.name === p.face || g.players.black.name === p.face).length;
      mostLive = Math.max(mostLive, inGames);
      t.ok(inGames <= p.capacity, `round ${round}: ${p.face} in ${inGames} ladder games, capacity ${p.capacity}`);
      t.same((await p.bot.req('GET', '/bot/capacity')).json, { capacity: p.capacity, inGames }, `${p.face}: GET /bot/capacity agrees`);
      const mine = fresh.filter((g) => g.players.white.name === p.face || g.players.black.name === p.face);
      if (mine.length === 0) continue;
      const opp = mine.map((g) => (g.players.white.name === p.face ? g.players.black.name : g.players.white.name));
      if (kindOf.get(mine[0].gameId) === 'single') {
        t.equal(mine.length, 1, `round ${round}: ${p.face} got one single game`);
        // A single game only against a bot that can never hold a pair (capacity 1): none here.
        const capacity = (face: string) => players.find((x) => x.face === face)!.capacity;
        t.ok(capacity(p.face) < 2 || capacity(opp[0]) < 2, `round ${round}: ${p.face} v ${opp[0]} is single because one holds no pair`);
      } else {
        t.equal(mine.length, 2, `round ${round}: ${p.face} got one mirror pair`);
        t.equal(opp[0], opp[1], `round ${round}: ${p.face} meets one opponent twice`);
      }
      pairsOf.get(p.face)!.push(opp[0]);
    }
    gate.open();
    return made;
  };
  const waitUntil = async (what: string, done: (live: Json[]) => boolean): Promise<void> => {
    // Polls back off from 10 ms to 50 ms: the games take seconds, and each poll lists every live game.
    for (let i = 0, wait = 10; i < 20_000; i++, wait = Math.min(wait + 10, 50)) {
      if (done(await liveGames())) return;
      await sleep(wait);
    }
    throw new Error(`gave up waiting for ${what}`);
  };
  const batchSizes: number[] = [];
  const batchTimes: string[] = [];
  /** Waits for every ladder game to end, then runs a batch: it rates the games of the rounds since the last. */
  const countBatch = async () => {
    await waitUntil('every ladder game to end', (live) => live.length === 0);
    clock.advance(1_000); // distinct batch times (no timer falls due)
    batchTimes.push(new Date(clock.now()).toISOString());
    const n = [...games.values()].filter((g) => g.batch === batch).length;
    const out = await app.server.ratings.runBatch();
    t.equal(out.games, n, `batch ${batch + 1} rates the ${n} games that ended since the last`);
    batchSizes.push(n);
    batch++;
  };

  // Batch 1: two rounds back to back. Three bots have room for two pairs, and at most two of them
  // met in the first round, so the second round pairs two of them again.
  t.equal(await runRound(), 3, 'the first round pairs all six');
  t.ok((await runRound()) >= 1, 'the second round pairs bots already in a pair');
  await countBatch();
  // Then three batches of three rounds: a round, another once some of its games have ended while
  // others still run, and one more after all have ended. (A fourth such batch proved nothing new.)
  for (let k = 0; k < 3; k++) {
    await runRound();
    const ids = new Set([...games].filter(([, g]) => g.round === round).map(([id]) => id));
    await waitUntil('two games of the round to end', (live) => ids.size === 0 || live.filter((g) => ids.has(g.gameId)).length <= ids.size - 2);
    await runRound();
    await waitUntil('every game to end', (live) => live.length === 0);
    await runRound();
    await countBatch();
  }
  stopping = true;
  await Promise.all(polling);
  for (const p of players) if (!p.poll) await p.bot.req('POST', '/bot/ladder/leave');
  t.ok(mostLive > 2, `some bot played two pairs at once (${mostLive} live ladder games)`);

  // ---- the games as the API recorded them -------------------------------------------------------------
  const ladder: LadderGame[] = [];
  for (const [id, g] of games) {
    const hist = (await app.req('GET', `/games/${id}/history`)).json as Json;
    const over = hist.status.Ended?.over;
    if (!over) {
      t.fail(`${id} has not ended`);
      continue;
    }
    const score = 'Draw' in over.result ? 0.5 : over.result.Win.side === 'White' ? 1 : 0;
    ladder.push({ id, round: g.round, batch: g.batch, white: hist.players.white.name, black: hist.players.black.name, score, hist, kind: g.kind });
    t.equal(g.rated, true, `${id} was listed as rated while it ran`);
    t.same([g.timeControl, hist.timeControl], [FISCHER, FISCHER], `${id}: Fischer 300+3`);
    t.not(over.termination, 'Aborted');
    t.not(over.termination, 'Timeout', 'the clock never moved during a game');
  }
  const natural = ladder.filter((g) => g.hist.status.Ended.over.termination !== 'Resign').length;
  t.ok(natural > ladder.length / 2, `most games ended without a resignation (${natural} of ${ladder.length})`);

  // Mirror pairs: the two games of one round between the same bots, colours swapped, identical dice.
  for (let r = 1; r <= round; r++) {
    const inRound = ladder.filter((g) => g.round === r && g.kind === 'mirror');
    for (const g of inRound.filter((x) => x.white < x.black)) {
      const twin = inRound.filter((x) => x.white === g.black && x.black === g.white);
      t.equal(twin.length, 1, `round ${r}: ${g.white} v ${g.black} has its colours-swapped twin`);
      if (twin.length !== 1) continue;
      const [h1, h2] = [g.hist.history as Json[], twin[0].hist.history as Json[]];
      const common = Math.min(h1.length, h2.length);
      t.ok(common > 0, 'both games were played');
      t.same(h1.slice(0, common).map((h) => h.dice), h2.slice(0, common).map((h) => h.dice), `round ${r}: identical dice by ply in both games`);
      t.equal(g.hist.seed, twin[0].hist.seed, 'one server seed');
      t.same(g.hist.clientSeeds, twin[0].hist.clientSeeds, 'one pair of client seeds');
      // What the stream bots saw rolled, ply by ply, is what the partner game recorded.
      for (const [a, b] of [[g, twin[0]], [twin[0], g]]) {
        for (const face of [a.white, a.black]) {
          const seen = byFace.get(face)!.rolls.get(a.id);
          if (!seen) continue;
          const other = b.hist.history as Json[];
          const bad = [...seen].filter(([ply, dice]) => ply < other.length && JSON.stringify(dice) !== JSON.stringify(other[ply].dice));
          t.same(bad, [], `${face} saw in ${a.id} the dice of its twin`);
        }
      }
    }
  }
  for (const [face, opps] of pairsOf) {
    t.ok(opps.every((o, i) => i === 0 || o !== opps[i - 1]), `${face} never met the same bot twice in a row: ${opps.join(', ')}`);
  }

  // ---- the reference ratings: one rating period per batch, opponents' pre-batch ratings --------------
  const ref = new Map<string, Ref>(players.map((p) => [p.face, { r: 1500, rd: 350, vol: 0.06 }]));
  const counts = new Map(players.map((p) => [p.face, { games: 0, wins: 0, draws: 0, losses: 0 }]));
  const history = new Map<string, { at: string; rating: number; rd: number }[]>(players.map((p) => [p.face, []]));
  for (let b = 0; b < batch; b++) {
    const before = new Map(ref);
    const inBatch = ladder.filter((g) => g.batch === b);
    for (const p of players) {
      const mine = inBatch.filter((g) => g.white === p.face || g.black === p.face);
      if (mine.length === 0) continue; // idle: unchanged, no history point
      const results = mine.map((g) => {
        const white = g.white === p.face;
        return { opp: before.get(white ? g.black : g.white)!, score: white ? g.score : 1 - g.score };
      });
      const next = glicko2(before.get(p.face)!, results);
      ref.set(p.face, next);
      const c = counts.get(p.face)!;
      for (const { score } of results) {
        c.games++;
        if (score === 1) c.wins++;
        else if (score === 0) c.losses++;
        else c.draws++;
      }
      history.get(p.face)!.push({ at: batchTimes[b], rating: next.r, rd: next.rd });
    }
  }
  const close = (x: number, y: number) => Math.abs(x - y) < 1e-6;

  for (const p of players) {
    const res = await app.req('GET', `/bots/${TEAM}/${p.bot.creds.name}`);
    t.equal(res.status, 200);
    const prof = res.json as Json;
    const want = ref.get(p.face)!;
    t.ok(close(prof.rating, want.r) && close(prof.rd, want.rd), `${p.face}: ${prof.rating}/${prof.rd}, reference ${want.r}/${want.rd}`);
    t.equal(prof.provisional, want.rd > 110, `${p.face}: provisional exactly while rd > 110`);
    t.same({ games: prof.games, wins: prof.wins, draws: prof.draws, losses: prof.losses }, counts.get(p.face), `${p.face}: counts`);
    const h = history.get(p.face)!;
    t.same(prof.ratingHistory.map((x: Json) => x.at), h.map((x) => x.at), `${p.face}: a history point at each batch it played in`);
    t.ok(prof.ratingHistory.every((x: Json, i: number) => close(x.rating, h[i].rating) && close(x.rd, h[i].rd)), `${p.face}: history equals the reference`);
    const mine = ladder.filter((g) => g.white === p.face || g.black === p.face);
    const recent = new Map((prof.recent as Json[]).map((r) => [r.gameId, r]));
    if (mine.length <= 20) t.same([...recent.keys()].sort(), mine.map((g) => g.id).sort(), `${p.face}: recent lists its ladder games`);
    else t.ok(recent.size === 20 && [...recent.keys()].every((id) => games.has(id)), `${p.face}: recent lists 20 of its ${mine.length} ladder games`);
    for (const g of mine.filter((x) => recent.has(x.id))) {
      const white = g.white === p.face;
      const s = white ? g.score : 1 - g.score;
      const r = recent.get(g.id);
      t.same([r?.rated, r?.result, r?.ladder], [true, s === 1 ? 'win' : s === 0 ? 'loss' : 'draw', g.kind], `${p.face} ${g.id}: rated, result and ladder kind as recorded`);
    }
    t.same(p.problems, [], `${p.face}: every move and resignation was accepted`);
  }

  const board = (await app.req('GET', '/leaderboard')).json as Json;
  const listed = [...ref].filter(([, r]) => r.rd <= 110).sort(([na, a], [nb, b]) => b.r - a.r || a.rd - b.rd || (na < nb ? -1 : 1));
  t.ok(listed.length > 0, `${listed.length} bots have rd ≤ 110 after four batches`);
  t.equal(board.total, listed.length, `${listed.length} bots are listed`);
  t.same(
    board.leaders.map((l: Json) => [l.rank, `${l.team} ${l.name}`, l.games, l.wins, l.draws, l.losses, l.onLadder]),
    listed.map(([face], i) => {
      const c = counts.get(face)!;
      return [i + 1, face, c.games, c.wins, c.draws, c.losses, byFace.get(face)!.poll];
    }),
    'the leaderboard: the reference order and counts; the stream bots left the ladder',
  );
  t.ok(board.leaders.every((l: Json) => close(l.rating, ref.get(`${l.team} ${l.name}`)!.r) && close(l.rd, ref.get(`${l.team} ${l.name}`)!.rd)), 'rows carry the reference ratings');
  t.same(batchSizes.map((n) => n > 0), [true, true, true, true], `four batches (${batchSizes.join(', ')} games)`);

  await app.server.close(); // ends the account streams, so the stream bots' loops finish
  await Promise.all(streaming);
});
