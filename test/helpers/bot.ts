// A bot client over real HTTP for the whole-service tests: register or take an anonymous identity,
// challenge, play, and open its streams.
import type { SeatPlayer, TimeControl } from '../../src/domain/types.js';
import { anonBot, type TestApp } from './app.js';
import { EventStream } from './event-stream.js';
import type { HttpResult } from './http.js';

// Response bodies are read as loose JSON: the tests assert the fields they care about.
export type Json = any;

export const UNLIMITED: TimeControl = { Unlimited: {} };

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
