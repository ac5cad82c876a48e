// The server's public routes as the page uses them, and the shapes it reads. Only this server is
// ever contacted (relative URLs), and every read goes through here.
//

// The wire's own types, read through the typed client's (type-only imports: nothing of the server
// or the client is bundled), so the page cannot drift from the routes and shapes the server has.
import type { z } from 'zod';
import type { Args, OkStatus, OperationId, RouteOf, StreamLine, Success } from '../../src/client/types.js';
import type {
  ClientSeeds, Clocks, GameEvent, GameOver, GameState, GameStatus, HistoryEntry, LegalMoveTree, Players, PublicFace,
  Seat, TimeControl,
} from '../../src/domain/types.js';

export type { ClientSeeds, Clocks, GameEvent, GameOver, GameState, HistoryEntry, Players, Seat, TimeControl };
export type Face = PublicFace;
export type Tree = LegalMoveTree;
export type Status = GameStatus;
export type PublicGameList = Value<'listGames'>;
export type PublicGame = PublicGameList['games'][number];
export type GameHistory = Value<'getGameHistory'>;
export type Leaderboard = Value<'getLeaderboard'>;
export type LeaderRow = Leaderboard['leaders'][number];
export type Profile = Value<'getBotProfile'>;
export type RatingPoint = Profile['ratingHistory'][number];
export type ProfileGame = Profile['recent'][number];
export type LobbySeekList = Value<'listLobbySeeks'>;
export type LobbySeek = LobbySeekList['seeks'][number];
export type SeatGrant = Value<'guestAcceptSeek'>;
export type HouseSeatGrant = Value<'guestPlayHouse'>;
/** A verdict, or `{}` when none came in time (202: the stream tells). */
export type MoveVerdict = Value<'submitMove'>;
export type LegalMoves = Value<'getLegalMoves'>;
export type GuestSeekCreated = Value<'createGuestSeek'>;
export type SeekPoll = Value<'pollSeek'>;
export type EventView = Value<'getEvent'>;
export type EventList = Value<'listEvents'>;

export class HttpError extends Error {
  constructor(readonly status: number, readonly detail: string) {
    super(`${status}: ${detail}`);
  }
}

/** What a route answers on success, as the typed client (src/client/) types it. */
type Value<Id extends OperationId> = Success<Id>['value'];

/** Where a route takes its input after the path parameters: a JSON body, a query, or neither. */
type Sends<Id extends OperationId> = RouteOf<Id> extends { request: { body: z.ZodType } }
  ? RouteOf<Id> extends { request: { query: z.ZodType } } ? never : 'body'
  : RouteOf<Id> extends { request: { query: z.ZodType } } ? 'query' : 'none';

/**
 * A route the page calls, as the catalogue has it: tsc checks the method, the path template and
 * what it sends against src/wire/routes, so a route that moves fails the web build. `answers`: the
 * statuses other than 2xx that are answers to show, not errors (a refused move's verdict).
 */
type Row<Id extends OperationId> = {
  method: RouteOf<Id>['method'];
  path: RouteOf<Id>['path'];
  sends: Sends<Id>;
  answers?: readonly Exclude<OkStatus<Id>, Success<Id>['status']>[];
};

// The page does not bundle the typed client itself: the client's route table carries every zod
// schema of the wire (about 500 KB of minified script, against 38 KB for this whole page) and its
// stream reader needs node:crypto. The page borrows the client's types instead (nothing of them is
// bundled) and keeps this small fetch layer, with a row per route it calls.
const ROUTES = {
  listGames: { method: 'GET', path: '/games', sends: 'none' },
  getGame: { method: 'GET', path: '/games/{id}', sends: 'none' },
  getGameHistory: { method: 'GET', path: '/games/{id}/history', sends: 'none' },
  getLegalMoves: { method: 'GET', path: '/games/{id}/moves', sends: 'none' },
  getLeaderboard: { method: 'GET', path: '/leaderboard', sends: 'query' },
  getBotProfile: { method: 'GET', path: '/bots/{team}/{name}', sends: 'none' },
  listLobbySeeks: { method: 'GET', path: '/lobby/seeks', sends: 'query' },
  createGuestSeek: { method: 'POST', path: '/lobby/seeks', sends: 'body' },
  pollSeek: { method: 'GET', path: '/lobby/seeks/{id}', sends: 'query' },
  cancelSeek: { method: 'DELETE', path: '/lobby/seeks/{id}', sends: 'query' },
  guestAcceptSeek: { method: 'POST', path: '/lobby/seeks/{id}/accept', sends: 'body' },
  guestPlayHouse: { method: 'POST', path: '/lobby/house/{name}', sends: 'body' },
  submitMove: { method: 'POST', path: '/bot/game/{id}/move', sends: 'body', answers: [409] },
  submitSeed: { method: 'POST', path: '/bot/game/{id}/seed', sends: 'body' },
  resign: { method: 'POST', path: '/bot/game/{id}/resign', sends: 'none' },
  listEvents: { method: 'GET', path: '/events', sends: 'none' },
  getEvent: { method: 'GET', path: '/events/{id}', sends: 'none' },
  streamPublicGameEvents: { method: 'GET', path: '/games/{id}/stream', sends: 'none' },
  streamEvent: { method: 'GET', path: '/events/{id}/stream', sends: 'none' },
} as const satisfies { [Id in OperationId]?: Row<Id> };

type PageRoute = keyof typeof ROUTES;

/** A route's URL: its path parameters (in the order of the template) and query filled in. */
function target(id: PageRoute, args: readonly unknown[]): { url: string; body: unknown } {
  const row: { path: string; sends: string } = ROUTES[id];
  let i = 0;
  const url = row.path.replace(/\{[^}]+\}/g, () => encodeURIComponent(String(args[i++])));
  if (row.sends === 'body') return { url, body: args[i] };
  const query = row.sends === 'query' ? ((args[i] ?? {}) as Record<string, string | undefined>) : {};
  const pairs = Object.entries(query).filter((e): e is [string, string] => e[1] !== undefined);
  return { url: pairs.length ? `${url}?${new URLSearchParams(pairs)}` : url, body: undefined };
}

/** Arguments as the typed client takes them: path parameters, then the body or the query. */
async function call<Id extends PageRoute>(id: Id, args: Args<Id>, token?: string): Promise<Value<Id>> {
  const row: { method: string; answers?: readonly number[] } = ROUTES[id];
  const { url, body } = target(id, args);
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(url, { method: row.method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  const value: unknown = text ? JSON.parse(text) : {};
  if (!res.ok && !row.answers?.includes(res.status)) {
    throw new HttpError(res.status, (value as { detail?: string }).detail ?? res.statusText);
  }
  return value as Value<Id>;
}

export const api = {
  games: () => call('listGames', []),
  game: (id: string) => call('getGame', [id]),
  history: (id: string) => call('getGameHistory', [id]),
  moves: (id: string) => call('getLegalMoves', [id]),
  /** The page shows more rows than the route's default page (50 of each list). */
  leaderboard: () => call('getLeaderboard', [{ limit: '100', provisionalLimit: '100' }]),
  profile: (team: string, name: string) => call('getBotProfile', [team, name]),
  seeks: () => call('listLobbySeeks', []),
  openSeek: (timeControl: TimeControl) => call('createGuestSeek', [{ timeControl }]),
  pollSeek: (id: string, secret: string) => call('pollSeek', [id, { secret }]),
  cancelSeek: (id: string, secret: string) => call('cancelSeek', [id, { secret }]),
  acceptSeek: (id: string) => call('guestAcceptSeek', [id, {}]),
  playHouse: (name: string, timeControl: TimeControl) => call('guestPlayHouse', [name, { timeControl }]),
  /** `version`: the roll the moves answer, so a retried request cannot land on a later roll. */
  move: (id: string, moves: string[], version: number, token: string) => call('submitMove', [id, { moves, version }], token),
  seed: (id: string, seed: string, token: string) => call('submitSeed', [id, { seed }], token),
  events: () => call('listEvents', []),
  event: (id: string) => call('getEvent', [id]),
  resign: (id: string, token: string) => call('resign', [id], token),
};

/** Seat tokens of this tab's games (a guest's seat lives as long as the tab). */
export const seats = {
  save(g: SeatGrant): void {
    sessionStorage.setItem(`seat:${g.gameId}`, JSON.stringify({ seat: g.seat, token: g.seatToken }));
  },
  get(gameId: string): { seat: Seat; token: string } | null {
    const raw = sessionStorage.getItem(`seat:${gameId}`);
    return raw ? (JSON.parse(raw) as { seat: Seat; token: string }) : null;
  },
};

export interface Follower {
  stop(): void;
}

/** Calls `onLine` with each non-blank line of an ndjson body (blank lines are keep-alives) until it ends. */
async function readLines(body: ReadableStream<BufferSource>, onLine: (line: string) => void): Promise<void> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buf += value;
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl).trim();
      buf = buf.slice(nl + 1);
      if (line) onLine(line);
    }
  }
}

/**
 * Calls `onLine` for each line of an event's public stream until it ends (EventEnded) or `stop`;
 * a dropped connection is not reopened (the page reloads the event on each line anyway).
 */
export function followEvent(id: string, onLine: (line: StreamLine<'streamEvent'>) => void): Follower {
  const ctrl = new AbortController();
  void (async () => {
    try {
      const res = await fetch(target('streamEvent', [id]).url, { signal: ctrl.signal });
      if (!res.ok || !res.body) return;
      await readLines(res.body, (line) => onLine(JSON.parse(line) as StreamLine<'streamEvent'>));
    } catch {
      // stopped or dropped
    }
  })();
  return { stop: () => ctrl.abort() };
}

/**
 * Follows a game's public ndjson stream: every line to onEvent, reconnecting with a growing pause
 * when the connection drops before GameEnded (each new connection opens with a fresh Snapshot).
 */
export function follow(gameId: string, onEvent: (e: GameEvent) => void, onLink: (up: boolean) => void): Follower {
  let stopped = false;
  let ended = false;
  let pause = 500;
  let ctrl: AbortController | undefined;
  const run = async (): Promise<void> => {
    while (!stopped && !ended) {
      ctrl = new AbortController();
      try {
        const res = await fetch(target('streamPublicGameEvents', [gameId]).url, { signal: ctrl.signal });
        if (res.status === 404) return;
        if (!res.ok || !res.body) throw new Error(`stream ${res.status}`);
        onLink(true);
        pause = 500;
        await readLines(res.body, (line) => {
          const event = JSON.parse(line) as GameEvent;
          if ('GameEnded' in event) ended = true;
          if (!stopped) onEvent(event);
        });
      } catch {
        // dropped: reconnect below
      }
      if (stopped || ended) break;
      onLink(false);
      await new Promise((r) => setTimeout(r, pause));
      pause = Math.min(pause * 2, 8000);
    }
  };
  void run();
  return {
    stop() {
      stopped = true;
      ctrl?.abort();
    },
  };
}
