// Serialising once. Events are encoded a single time and the same text goes to every subscriber
// (rules of the house); response bodies are plain JSON.stringify, with a few builders for the shapes
// handlers assemble from domain values.
import type {
  AccountEvent, Clocks, GameEvent, Principal, PublicFace, Seat, TimeControl,
} from '../domain/types.js';
import type { z } from 'zod';
import type * as R from './responses.js';
import { PUBLIC_GAMES_MAX } from './responses.js';

export { CONTENT_TYPES } from './route-spec.js';

/** A blank line: the keep-alive of both ndjson streams. */
export const KEEPALIVE_LINE = '\n';

/** The `{}` of decline (200) and of seed, resign and a move without verdict (202). */
export const EMPTY_JSON = '{}';

/** One ndjson line: the event as JSON, then a newline. */
export function eventLine(event: GameEvent | AccountEvent): string {
  return `${JSON.stringify(event)}\n`;
}

/** A response body. Bodies are plain JSON; this is the one place that says so. */
export function encode(body: unknown): string {
  return JSON.stringify(body);
}

export const STATUS_TITLES: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export type ProblemBody = z.output<typeof R.Problem>;

/** An RFC 9457 body (CONTRACT.md, Errors); the title follows from the status. */
export function problem(status: number, code: string, detail: string): ProblemBody {
  return { type: 'about:blank', title: STATUS_TITLES[status] ?? 'Error', status, detail, code };
}

export function problemJson(status: number, code: string, detail: string): string {
  return JSON.stringify(problem(status, code, detail));
}

export function account(p: Principal): z.output<typeof R.Account> {
  return { team: p.team, name: p.name, id: p.id };
}

/**
 * What a game summary looks like to wire (structurally the game layer's GameSummary; wire may
 * not import it). Seats carry their public face, never exposed as raw ids.
 */
export interface GameSummaryLike {
  gameId: string;
  white: { face: PublicFace };
  black: { face: PublicFace };
  timeControl: TimeControl;
  activeSeat: Seat;
  dicePending: boolean;
  clocks: Clocks | null;
  version: number;
  dfen: string;
  /** A ladder game, and the seats' current ratings when it is (absent: unrated). */
  rated?: boolean;
  ratings?: { white: number | null; black: number | null };
}

/** Entry of GET /games: only spectator-safe fields, picked one by one so nothing else leaks. */
export function publicGame(s: GameSummaryLike): z.output<typeof R.PublicGame> {
  // Rated games only carry `rated` and `ratings`: every other entry keeps the spec's exact shape.
  const rated = s.rated ? { rated: true as const, ratings: s.ratings ?? { white: null, black: null } } : {};
  return {
    gameId: s.gameId,
    players: { white: s.white.face, black: s.black.face },
    timeControl: s.timeControl,
    activeSeat: s.activeSeat,
    dicePending: s.dicePending,
    clocks: s.clocks,
    version: s.version,
    dfen: s.dfen,
    ...rated,
  };
}

/** Body of GET /games: by version descending, capped at 50, `total` counting them all. */
export function publicGameList(live: readonly GameSummaryLike[]): z.output<typeof R.PublicGameList> {
  const top = [...live].sort((a, b) => b.version - a.version).slice(0, PUBLIC_GAMES_MAX);
  return { games: top.map(publicGame), total: live.length };
}

/** Entry of GET /bot/games for the caller's seat. */
export function myGame(s: GameSummaryLike, seat: Seat): z.output<typeof R.MyGame> {
  return {
    gameId: s.gameId,
    seat,
    activeSeat: s.activeSeat,
    dicePending: s.dicePending,
    timeControl: s.timeControl,
    clocks: s.clocks,
    version: s.version,
  };
}
