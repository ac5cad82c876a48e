// A bot of the whole-service tests, on the typed client (src/client/): register or take an anonymous
// identity, challenge, play. Each call answers what the wire carried (status, headers, text, json:
// the tests assert on those) and the typed client's reading of the same answer (`result`).
// Raw on purpose: `req` (any request as the test writes it) and the two streams, which a test reads
// connection and all (status, headers, keep-alive lines, where the connection ends) where the
// client's iterators would reconnect and hide exactly that.
import { Client, type Failure, type OperationId, type Result, type Success } from '../../src/client/index.js';
import type { SeatPlayer, TimeControl } from '../../src/domain/types.js';
import { anonBot, type TestApp } from './app.js';
import { EventStream } from './event-stream.js';
import { tryJson, type HttpResult } from './http.js';

/**
 * @deprecated Loose JSON, kept because many tests read fields off answers with it. New code: the
 * route's own type, `Value<'getGame'>`, or `reply.result` of a Bot call.
 */
export type Json = any;

/** What a route answers on success, as the typed client reads it (e.g. `Value<'getGame'>`). */
export type Value<Id extends OperationId> = Success<Id>['value'];

/** An answer of a Bot call: as the wire carried it, and typed by its route. */
export interface Reply<Id extends OperationId> extends HttpResult {
  readonly result: Result<Id>;
}

export const UNLIMITED: TimeControl = { Unlimited: {} };

export interface Creds {
  token: string;
  id: string;
  team: string;
  name: string;
}

/**
 * One call of the typed client, with the answer's bytes and headers kept as well: the client reads
 * the body once, so it is given a copy of each response (a client per call keeps calls that overlap
 * apart). No answer at all throws, as the tests' raw requests do.
 */
async function exchange<Id extends OperationId>(
  base: string,
  token: string | undefined,
  call: (client: Client) => Promise<Result<Id>>,
): Promise<Reply<Id>> {
  let raw: Promise<Omit<HttpResult, 'json'>> | undefined;
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const res = await globalThis.fetch(input, init);
    const copy = res.clone();
    raw = copy.text().then((text) => ({ status: copy.status, headers: Object.fromEntries(copy.headers), text }));
    return res;
  };
  // One try: the tests assert on the answer the server gave, which a retry would replace.
  const result = await call(new Client({ url: base, token, fetch, retry: { attempts: 1 } }));
  if (!raw) throw new Error(`no answer: ${(result as Failure).problem.detail}`);
  const answer = await raw;
  return { ...answer, json: tryJson(answer.text), result };
}

export class Bot {
  private typed: Client | undefined;

  constructor(readonly app: TestApp, public creds: Creds) {}

  static async anon(app: TestApp, name: string): Promise<Bot> {
    return new Bot(app, await anonBot(app, name));
  }

  static async register(app: TestApp, team: string, name: string): Promise<Bot> {
    const r = await exchange(app.base, undefined, (c) => c.register({ team, name }));
    if (!r.result.ok) throw new Error(`register failed: ${r.status} ${r.text}`);
    return new Bot(app, r.result.value);
  }

  get token(): string {
    return this.creds.token;
  }
  get id(): string {
    return this.creds.id;
  }

  /** The typed client with this bot's token (for the routes Bot has no method of). */
  get client(): Client {
    this.typed ??= new Client({ url: this.app.base, retry: { attempts: 1 } });
    this.typed.token = this.token;
    return this.typed;
  }

  /** The seat this bot takes in a game made directly through the registry. */
  get seat(): SeatPlayer {
    const { team, name, id } = this.creds;
    return { id, face: { kind: 'Bot', name: `${team} ${name}` }, participant: { Bot: { team, name } } };
  }

  /** A raw request with this bot's token: any method, path and body, sent as the test wrote it. */
  req(method: string, path: string, body?: unknown): Promise<HttpResult> {
    return this.app.req(method, path, { token: this.token, body });
  }

  private call<Id extends OperationId>(call: (client: Client) => Promise<Result<Id>>): Promise<Reply<Id>> {
    return exchange(this.app.base, this.token, call);
  }

  challenge(target: { team: string; name: string }, timeControl?: TimeControl): Promise<Reply<'createChallenge'>> {
    const { team, name } = target;
    return this.call((c) => c.createChallenge(timeControl ? { team, name, timeControl } : { team, name }));
  }

  accept(id: string): Promise<Reply<'acceptChallenge'>> {
    return this.call((c) => c.acceptChallenge(id));
  }

  decline(id: string): Promise<Reply<'declineChallenge'>> {
    return this.call((c) => c.declineChallenge(id));
  }

  async myGames(): Promise<Value<'listMyGames'>['games']> {
    const r = await this.call((c) => c.listMyGames());
    if (!r.result.ok) throw new Error(`GET /bot/games: ${r.status} ${r.text}`);
    return r.result.value.games;
  }

  /** `moves` as the test has it: a malformed one is sent as is, for the server to refuse. */
  move(gameId: string, moves: unknown): Promise<Reply<'submitMove'>> {
    return this.call((c) => c.submitMove(gameId, { moves } as Parameters<Client['submitMove']>[1]));
  }

  /** `seed` as the test has it (the route ignores a malformed one with 202). */
  seed(gameId: string, seed: unknown): Promise<Reply<'submitSeed'>> {
    return this.call((c) => c.submitSeed(gameId, { seed } as Parameters<Client['submitSeed']>[1]));
  }

  resign(gameId: string): Promise<Reply<'resign'>> {
    return this.call((c) => c.resign(gameId));
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
    if (!c.result.ok) throw new Error(`challenge failed: ${c.status} ${c.text}`);
    const a = await target.accept(c.result.value.id);
    if (!a.result.ok) throw new Error(`accept failed: ${a.status} ${a.text}`);
    return a.result.value.gameId;
  }
}
