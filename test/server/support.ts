// Shared plumbing for the whole-service tests: a small bot client over real HTTP, an ndjson event
// reader with a watchdog (a broken server fails the test instead of hanging it), legal-move-tree
// walkers, dice-seed search (the honest way to give a test the roll it needs), direct game set-up
// through the registry, and a store whose writes a test can hold back.
import { hexToSeed, rollDice } from '../../src/fair/index.js';
import type { BotRecord, GameRecord, ResultRecord } from '../../src/domain/records.js';
import type { SeatPlayer, TimeControl } from '../../src/domain/types.js';
import { MemoryStore } from '../../src/store/memory.js';
import type { Store } from '../../src/store/types.js';
import { anonBot, type TestApp } from '../helpers/app.js';
import type { HttpResult, LineReader } from '../helpers/http.js';
import { prng } from '../helpers/prng.js';
import { leafPaths as houseLeafPaths } from '../../src/game/house.js';
export { randomPath } from '../helpers/play.js';
/** Deterministic RNG (mulberry32) so a failing game reproduces. */
export const rng = prng;

export type Tree = { [uci: string]: Tree };
// Events are read as loose JSON: the tests assert the fields they care about.
export type Ev = Record<string, any>;
export type Json = any;

export const UNLIMITED: TimeControl = { Unlimited: {} };

// ---- randomness and trees ------------------------------------------------------------------------


/** Every root-to-leaf path of a tree (the house players' own walker). */
export const leafPaths = (tree: Tree): string[][] => houseLeafPaths(tree);

export function countLeaves(tree: Tree): number {
  const keys = Object.keys(tree);
  if (keys.length === 0) return 0;
  let n = 0;
  for (const k of keys) n += Object.keys(tree[k]).length === 0 ? 1 : countLeaves(tree[k]);
  return n;
}


/** A proper prefix of a path of at least two moves, or a path with an extra move: never a leaf. */
export function someNonLeaf(tree: Tree): string[] {
  const path = leafPaths(tree)[0];
  return path.length > 1 ? path.slice(0, -1) : [...path, 'a1a2'];
}

// ---- dice ------------------------------------------------------------------------------------------

export function diceOf(serverSeedHex: string, white: string, black: string, ply: number): number[] {
  const seed = hexToSeed(serverSeedHex);
  if (!seed) throw new Error(`not a server seed: ${serverSeedHex}`);
  return rollDice(seed, white, black, ply);
}

/**
 * Client seeds (black fixed, white searched) whose rolls 0..plies-1 satisfy `want`, for a game's
 * own server seed.
 */
export function seedsFor(
  serverSeedHex: string,
  want: (dice: number[], ply: number) => boolean,
  plies = 1,
  black = 'black-client-seed-0001',
): { white: string; black: string } {
  for (let i = 0; i < 500_000; i++) {
    const white = `white-client-seed-${i.toString().padStart(7, '0')}`;
    let good = true;
    for (let ply = 0; good && ply < plies; ply++) good = want(diceOf(serverSeedHex, white, black, ply), ply);
    if (good) return { white, black };
  }
  throw new Error('no seeds found');
}

export const sameMultiset = (a: number[], b: number[]): boolean =>
  a.length === b.length && [...a].sort().join() === [...b].sort().join();

// ---- polling without sleeping -----------------------------------------------------------------------

/** Lets pending I/O callbacks and timers due now run (no wall-clock waiting). */
export const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

/** Polls `probe` until it returns a value other than undefined, at most `tries` times. */
export async function until<T>(probe: () => Promise<T | undefined> | T | undefined, what: string, tries = 500): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const v = await probe();
    if (v !== undefined) return v;
    await tick();
  }
  throw new Error(`gave up waiting for ${what}`);
}

// ---- streams ------------------------------------------------------------------------------------------

/**
 * An ndjson reader: `next()` is the next event (keep-alives are counted, not returned), with a
 * watchdog so a stream that never delivers fails instead of hanging the test.
 */
export class EventStream {
  keepAlives = 0;
  readonly seen: Ev[] = [];

  constructor(readonly reader: LineReader, private readonly watchdogMs = 15_000) {}

  get status(): number {
    return this.reader.status;
  }

  /** The next raw line ('' for a keep-alive), undefined at the end of the stream. */
  async line(): Promise<string | undefined> {
    let timer: NodeJS.Timeout | undefined;
    const watchdog = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('stream watchdog: no line arrived')), this.watchdogMs);
    });
    try {
      return await Promise.race([this.reader.next(), watchdog]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The next event, or undefined when the stream is over. */
  async next(): Promise<Ev | undefined> {
    for (;;) {
      const line = await this.line();
      if (line === undefined) return undefined;
      if (line.trim() === '') {
        this.keepAlives++;
        continue;
      }
      const ev = JSON.parse(line) as Ev;
      this.seen.push(ev);
      return ev;
    }
  }

  /** Reads until an event satisfies `pred`; fails if the stream ends first. */
  async until(pred: (ev: Ev) => boolean, what = 'an event'): Promise<Ev> {
    for (;;) {
      const ev = await this.next();
      if (ev === undefined) throw new Error(`stream ended before ${what}; saw ${JSON.stringify(this.seen.slice(-3))}`);
      if (pred(ev)) return ev;
    }
  }

  /** Every remaining event up to the end of the stream. */
  async rest(): Promise<Ev[]> {
    const out: Ev[] = [];
    for (let ev = await this.next(); ev !== undefined; ev = await this.next()) out.push(ev);
    return out;
  }

  close(): void {
    this.reader.destroy();
  }
}

export const kindOf = (ev: Ev): string => Object.keys(ev)[0];
export const vOf = (ev: Ev): number => (Object.values(ev)[0] as { v: number }).v;

// ---- a bot over HTTP ----------------------------------------------------------------------------------

export interface Creds {
  token: string;
  id: string;
  team: string;
  name: string;
}

export class Bot {
  constructor(readonly app: TestApp, public creds: Creds) {}

  static async anon(app: TestApp, name: string): Promise<Bot> {
    return new Bot(app, await anonBot(app, name));
  }

  static async register(app: TestApp, team: string, name: string): Promise<Bot> {
    const r = await app.req('POST', '/bot/register', { body: { team, name } });
    if (r.status !== 201) throw new Error(`register failed: ${r.status} ${r.text}`);
    return new Bot(app, r.json as Creds);
  }

  get token(): string {
    return this.creds.token;
  }
  get id(): string {
    return this.creds.id;
  }

  /** The seat this bot takes in a game made directly through the registry. */
  get seat(): SeatPlayer {
    const { team, name, id } = this.creds;
    return { id, face: { kind: 'Bot', name: `${team} ${name}` }, participant: { Bot: { team, name } } };
  }

  req(method: string, path: string, body?: unknown): Promise<HttpResult> {
    return this.app.req(method, path, { token: this.token, body });
  }

  challenge(target: { team: string; name: string }, timeControl?: TimeControl): Promise<HttpResult> {
    const body: Json = { team: target.team, name: target.name };
    if (timeControl) body.timeControl = timeControl;
    return this.req('POST', '/bot/challenge', body);
  }

  accept(id: string): Promise<HttpResult> {
    return this.req('POST', `/bot/challenge/${id}/accept`);
  }

  decline(id: string): Promise<HttpResult> {
    return this.req('POST', `/bot/challenge/${id}/decline`);
  }

  async myGames(): Promise<Json[]> {
    const r = await this.req('GET', '/bot/games');
    if (r.status !== 200) throw new Error(`GET /bot/games: ${r.status} ${r.text}`);
    return (r.json as { games: Json[] }).games;
  }

  move(gameId: string, moves: unknown): Promise<HttpResult> {
    return this.req('POST', `/bot/game/${gameId}/move`, { moves });
  }

  seed(gameId: string, seed: unknown): Promise<HttpResult> {
    return this.req('POST', `/bot/game/${gameId}/seed`, { seed });
  }

  resign(gameId: string): Promise<HttpResult> {
    return this.req('POST', `/bot/game/${gameId}/resign`);
  }

  async gameStream(gameId: string): Promise<EventStream> {
    return new EventStream(await this.app.stream(`/bot/game/stream/${gameId}`, this.token));
  }

  async accountStream(): Promise<EventStream> {
    return new EventStream(await this.app.stream('/bot/stream/event', this.token));
  }

  /** Challenges `target`, which accepts; returns the game id (the challenger plays White). */
  async playAgainst(target: Bot, timeControl?: TimeControl): Promise<string> {
    const c = await this.challenge(target.creds, timeControl);
    if (c.status !== 201) throw new Error(`challenge failed: ${c.status} ${c.text}`);
    const a = await target.accept((c.json as { id: string }).id);
    if (a.status !== 201) throw new Error(`accept failed: ${a.status} ${a.text}`);
    return (a.json as { gameId: string }).gameId;
  }
}

/** The full tree of the pending roll, from the public route. */
export async function fullTree(app: TestApp, gameId: string): Promise<{ version: number; dfen: string; dicePending: boolean; legalMoves: Tree }> {
  const r = await app.req('GET', `/games/${gameId}/moves`);
  if (r.status !== 200) throw new Error(`GET /games/${gameId}/moves: ${r.status}`);
  return r.json as { version: number; dfen: string; dicePending: boolean; legalMoves: Tree };
}

export async function gameState(app: TestApp, gameId: string): Promise<Json> {
  const r = await app.req('GET', `/games/${gameId}`);
  if (r.status !== 200) throw new Error(`GET /games/${gameId}: ${r.status}`);
  return r.json;
}

/** Waits (by polling the public snapshot) until a roll is pending or the game is over. */
export function pendingOrOver(app: TestApp, gameId: string): Promise<Json> {
  return until(async () => {
    const s = await gameState(app, gameId);
    return s.dicePending || 'Ended' in s.status ? s : undefined;
  }, `a pending roll in ${gameId}`);
}

/** Creates a game directly (a chosen start position), seated by bots whose tokens the test holds. */
export async function directGame(
  app: TestApp,
  white: Bot,
  black: Bot,
  o: { timeControl?: TimeControl; startFen?: string } = {},
): Promise<string> {
  const h = await app.server.registry.create({
    white: white.seat,
    black: black.seat,
    timeControl: o.timeControl ?? UNLIMITED,
    rated: false,
    startFen: o.startFen,
  });
  return h.id;
}

/** The server seed of a live game (read from the server's own record: a test-only back door). */
export function serverSeedOf(app: TestApp, gameId: string): string {
  const h = app.server.registry.get(gameId);
  if (!h) throw new Error(`no live game ${gameId}`);
  return h.record().serverSeed;
}

/**
 * Seeds both seats over HTTP so that the rolls 0..plies-1 satisfy `want`. The server must be
 * waiting for seeds (a seed grace longer than the test's clock moves). Returns the seeds used.
 */
export async function seedGame(
  app: TestApp,
  gameId: string,
  white: Bot,
  black: Bot,
  want: (dice: number[], ply: number) => boolean,
  plies = 1,
): Promise<{ white: string; black: string }> {
  const s = seedsFor(serverSeedOf(app, gameId), want, plies);
  const a = await white.seed(gameId, s.white);
  const b = await black.seed(gameId, s.black);
  if (a.status !== 202 || b.status !== 202) throw new Error(`seed refused: ${a.status} ${b.status}`);
  return s;
}

// ---- a store whose game writes can be held back ---------------------------------------------------------

/** Wraps the memory store; while `hold()` is on, game writes wait until `release()`. */
export class GatedStore implements Store {
  readonly inner = new MemoryStore();
  private gate: Promise<void> | null = null;
  private open: (() => void) | null = null;
  private waiting: (() => void)[] = [];
  /** Number of game writes that reached a closed gate. */
  held = 0;

  get persistent(): boolean {
    return this.inner.persistent;
  }

  hold(): void {
    this.gate = new Promise((r) => (this.open = r));
  }

  release(): void {
    const open = this.open;
    this.gate = null;
    this.open = null;
    open?.();
  }

  /** Resolves once a game write is waiting at the gate. */
  blocked(): Promise<void> {
    return this.held > 0 ? Promise.resolve() : new Promise((r) => this.waiting.push(r));
  }

  private async pass(): Promise<void> {
    const gate = this.gate;
    if (!gate) return;
    this.held++;
    for (const w of this.waiting.splice(0)) w();
    await gate;
  }

  getBot(id: string): BotRecord | undefined {
    return this.inner.getBot(id);
  }
  getBotByTokenHash(h: string): BotRecord | undefined {
    return this.inner.getBotByTokenHash(h);
  }
  createBot(b: BotRecord): Promise<boolean> {
    return this.inner.createBot(b);
  }
  updateBot(b: BotRecord): Promise<void> {
    return this.inner.updateBot(b);
  }
  listBots(): BotRecord[] {
    return this.inner.listBots();
  }
  async putGame(g: GameRecord): Promise<void> {
    await this.pass();
    return this.inner.putGame(g);
  }
  getGame(id: string): GameRecord | undefined {
    return this.inner.getGame(id);
  }
  listLiveGames(): GameRecord[] {
    return this.inner.listLiveGames();
  }
  async finishGame(g: GameRecord, r: ResultRecord[]): Promise<void> {
    await this.pass();
    return this.inner.finishGame(g, r);
  }
  resultsOf(botId: string, limit: number): ResultRecord[] {
    return this.inner.resultsOf(botId, limit);
  }
  allResults(): ResultRecord[] {
    return this.inner.allResults();
  }
  webhookDelivered(id: string): number | undefined {
    return this.inner.webhookDelivered(id);
  }
  markWebhookDelivered(id: string, ply: number): Promise<void> {
    return this.inner.markWebhookDelivered(id, ply);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

// ---- checks shared by the game tests ---------------------------------------------------------------------

/** The halfmove clock (field 5) of a FEN/DFEN. */
export const halfmoveOf = (fen: string): number => Number(fen.split(' ')[4]);

/**
 * Checks one game's whole event log against its reveal: versions strictly +1, every DiceRolled
 * and history entry recomputed from the seeds, commit = SHA-256(seed). Returns a list of problems.
 */
export function auditLog(events: Ev[], history: Json[], commit: string, commitOf: (b: Uint8Array) => string): string[] {
  const bad: string[] = [];
  const ended = events.find((e) => e.GameEnded)?.GameEnded;
  if (!ended) return ['no GameEnded'];
  const seed = hexToSeed(ended.seed);
  if (!seed) return [`no revealed seed: ${ended.seed}`];
  if (commitOf(seed) !== commit) bad.push('commit differs from SHA-256 of the revealed seed');
  const { white, black } = ended.clientSeeds;
  let ply = 0;
  // A stream joined late: the rolls before it are in the Snapshot (history, and a pending roll
  // whose dice are the 7th DFEN field, sorted).
  const snap = events[0]?.Snapshot;
  if (snap) {
    ply = snap.history.length;
    if (snap.state.dicePending) {
      const want = rollDice(seed, white, black, ply);
      const field = snap.state.dfen.split(' ')[6] as string;
      const got = [...field.toUpperCase()].map((c) => 'PNBRQK'.indexOf(c) + 1);
      if (!sameMultiset(want, got)) bad.push(`Snapshot pending roll ply ${ply}: ${field} != ${want}`);
      ply++;
    }
  }
  for (const e of events) {
    if (!e.DiceRolled) continue;
    const want = rollDice(seed, white, black, ply);
    if (JSON.stringify(want) !== JSON.stringify(e.DiceRolled.dice)) bad.push(`DiceRolled ply ${ply}: ${e.DiceRolled.dice} != ${want}`);
    ply++;
  }
  history.forEach((h, i) => {
    const want = rollDice(seed, white, black, i);
    if (JSON.stringify(want) !== JSON.stringify(h.dice)) bad.push(`history[${i}]: ${h.dice} != ${want}`);
  });
  if (history.length !== ply && history.length !== ply - 1) bad.push(`history has ${history.length} turns for ${ply} rolls`);
  bad.push(...wireShapes(events));
  return bad;
}

/** Versions of consecutive events after the Snapshot must go up by exactly one. */
export function versionGaps(events: Ev[]): string[] {
  const bad: string[] = [];
  for (let i = 1; i < events.length; i++) {
    const a = vOf(events[i - 1]);
    const b = vOf(events[i]);
    if (b !== a + 1) bad.push(`${kindOf(events[i - 1])} v${a} -> ${kindOf(events[i])} v${b}`);
  }
  return bad;
}

/** In the standard start position a roll has a legal turn exactly when it has a pawn or a knight. */
export const movableAtStart = (dice: number[]): boolean => dice.includes(1) || dice.includes(2);

/**
 * A challenge game (the challenger White) whose rolls 0..plies-1 satisfy `want` (by default: the
 * first two rolls, White's and Black's, both offer a real decision). The app must hold the opening roll for seeds (a long `games.seedGraceMs`).
 */
export async function seededGame(
  app: TestApp,
  white: Bot,
  black: Bot,
  o: { want?: (dice: number[], ply: number) => boolean; plies?: number; timeControl?: TimeControl } = {},
): Promise<{ gameId: string; seeds: { white: string; black: string }; state: Json }> {
  const gameId = await white.playAgainst(black, o.timeControl);
  // By default both opening rolls offer a decision: White's, then Black's (still boxed in).
  const seeds = await seedGame(app, gameId, white, black, o.want ?? movableAtStart, o.plies ?? (o.want ? 1 : 2));
  const state = await pendingOrOver(app, gameId);
  return { gameId, seeds, state };
}

/** Polls the public snapshot until the game has ended (resign is fire-and-forget). */
export function endedState(app: TestApp, gameId: string): Promise<Json> {
  return until(async () => {
    const s = await gameState(app, gameId);
    return 'Ended' in s.status ? s : undefined;
  }, `the end of ${gameId}`);
}

/**
 * DFEN details of the events (RULES.md §5): a roll's dfen carries its dice as a 7th field, sorted
 * P<N<B<R<Q<K, upper case for White and lower case for Black; positions after a turn have six fields.
 */
export function wireShapes(events: Ev[]): string[] {
  const bad: string[] = [];
  for (const e of events) {
    if (e.DiceRolled?.dfen !== undefined) {
      const { dice, dfen, seat } = e.DiceRolled;
      const letters = [...dice].sort((a: number, b: number) => a - b).map((d: number) => 'PNBRQK'[d - 1]).join('');
      const want = seat === 'White' ? letters : letters.toLowerCase();
      const fields = dfen.split(' ');
      if (fields.length !== 7 || fields[6] !== want) bad.push(`DiceRolled v${e.DiceRolled.v}: dfen ${dfen}, dice ${dice}`);
      if ((fields[1] === 'w') !== (seat === 'White')) bad.push(`DiceRolled v${e.DiceRolled.v}: side ${fields[1]} for ${seat}`);
    }
    if (e.TurnPlayed && e.TurnPlayed.fenAfter.split(' ').length !== 6) bad.push(`TurnPlayed v${e.TurnPlayed.v}: ${e.TurnPlayed.fenAfter}`);
  }
  return bad;
}
