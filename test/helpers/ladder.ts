// Ladder bots for whole-server tests: registered over HTTP with a capacity, on the ladder, and driven
// by the test: it runs the pairing rounds on the injected clock and ends the bots' games by resigning
// over HTTP, so which games are live when a round runs is the test's choice, not the machine's speed.
import type { ManualClock } from '../../src/domain/clock.js';
import type { TestApp } from './app.js';
import { Bot, type Json } from './bot.js';
import { tick, until } from './poll.js';

/** Registers a bot, sets its ladder capacity and joins the ladder, all over HTTP. */
export async function ladderBot(app: TestApp, team: string, name: string, capacity = 1): Promise<Bot> {
  const b = await Bot.register(app, team, name);
  if (capacity !== 1) {
    const c = await b.req('POST', '/bot/capacity', { capacity });
    if (c.status !== 200) throw new Error(`capacity: ${c.status} ${c.text}`);
  }
  const j = await b.req('POST', '/bot/ladder/join');
  if (j.status !== 200) throw new Error(`join: ${j.status} ${j.text}`);
  return b;
}

/**
 * One pairing interval on the clock, and the round it starts run to its end. Each bot polls
 * GET /bot/games first: that is what makes a bot without a stream reachable for the ladder.
 */
export async function pairingRound(app: TestApp, bots: readonly Bot[], intervalMs: number): Promise<void> {
  for (const b of bots) await b.req('GET', '/bot/games');
  (app.clock as ManualClock).advance(intervalMs);
  for (let i = 0; i < 20; i++) await tick();
  // The round the interval started, store writes and all (a loaded machine outlasts any tick count).
  await (app.server.scheduler as unknown as { running: Promise<number> | null }).running;
}

/** A bot's live games (GET /bot/games). */
export async function liveGames(b: Bot): Promise<string[]> {
  const r = await b.req('GET', '/bot/games');
  if (r.status !== 200) throw new Error(`GET /bot/games: ${r.status} ${r.text}`);
  return (r.json as { games: { gameId: string }[] }).games.map((g) => g.gameId);
}

/** What GET /games/{id} says of a ladder game: its kind and its players' faces. */
export interface LadderGame {
  gameId: string;
  kind: 'mirror' | 'single';
  white: string;
  black: string;
}

export async function ladderGame(app: TestApp, gameId: string): Promise<LadderGame> {
  const s = (await app.req('GET', `/games/${gameId}`)).json as Json;
  if (s.ladder === undefined) throw new Error(`${gameId} is not a ladder game`);
  return { gameId, kind: s.ladder, white: s.players.white.name, black: s.players.black.name };
}

/** The bot resigns the game over HTTP, and the game is over when this resolves. */
export async function resignAndWait(app: TestApp, b: Bot, gameId: string): Promise<void> {
  const r = await b.resign(gameId);
  if (r.status !== 202) throw new Error(`resign: ${r.status} ${r.text}`);
  await until(async () => {
    const s = (await app.req('GET', `/games/${gameId}`)).json as Json;
    return 'Ended' in s.status ? true : undefined;
  }, `${gameId} to end`);
}
