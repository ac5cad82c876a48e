// Reading and setting up games of a test server: public snapshots and move trees, polls for a pending
// roll or the end, games made directly through the registry, and opening rolls chosen through seeds.
import type { TimeControl } from '../../src/domain/types.js';
import type { TestApp } from './app.js';
import { UNLIMITED, type Bot, type Json } from './bot.js';
import { movableAtStart, seedsFor } from './dice.js';
import type { Tree } from './play.js';
import { until } from './poll.js';

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

/** Polls the public snapshot until the game has ended (resign is fire-and-forget). */
export function endedState(app: TestApp, gameId: string): Promise<Json> {
  return until(async () => {
    const s = await gameState(app, gameId);
    return 'Ended' in s.status ? s : undefined;
  }, `the end of ${gameId}`);
}

/** Creates a game directly (a chosen start position), seated by bots whose tokens the test holds. */
export async function directGame(
  app: TestApp,
  white: Bot,
  black: Bot,
  o: { timeControl?: TimeControl; startFen?: string } = {},
): Promise<string> {
  const h = await app.server.games.create({
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
  const h = app.server.games.get(gameId);
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

/**
 * A challenge game (the challenger White) whose rolls 0..plies-1 satisfy `want` (by default: the
 * first two rolls, White's and Black's, both offer a real decision). The app must hold the opening
 * roll for seeds (a long `games.seedGraceMs`).
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
