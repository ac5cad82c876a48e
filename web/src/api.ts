// The server's public routes as the page uses them, and the shapes it reads. Only this server is
// ever contacted (relative URLs), and every read goes through here.
//

// The wire's own types (type-only imports: nothing of the server is bundled), so the page cannot
// drift from the shapes the server sends.
import type { z } from 'zod';
import type {
  ClientSeeds, Clocks, GameEvent, GameOver, GameState, GameStatus, HistoryEntry, LegalMoveTree, Players, PublicFace,
  Seat, TimeControl,
} from '../../src/domain/types.js';
import type * as R from '../../src/wire/responses.js';
import type * as E from '../../src/wire/tournament-schemas.js';

export type { ClientSeeds, Clocks, GameEvent, GameOver, GameState, HistoryEntry, Players, Seat, TimeControl };
export type Face = PublicFace;
export type Tree = LegalMoveTree;
export type Status = GameStatus;
export type PublicGame = z.output<typeof R.PublicGame>;
export type GameHistory = z.output<typeof R.GameHistory>;
export type LeaderRow = z.output<typeof R.LeaderboardRow>;
export type Leaderboard = z.output<typeof R.Leaderboard>;
export type RatingPoint = z.output<typeof R.RatingPoint>;
export type ProfileGame = z.output<typeof R.ProfileGame>;
export type Profile = z.output<typeof R.BotProfile>;
export type LobbySeek = z.output<typeof R.LobbySeek>;
export type SeatGrant = z.output<typeof R.GuestAccepted>;
export type HouseSeatGrant = z.output<typeof R.GuestHouseGame>;
export type MoveVerdict = z.output<typeof R.MoveApplied> | z.output<typeof R.MoveRefused>;
export type LegalMoves = z.output<typeof R.LegalMovesResponse>;
export type PublicGameList = z.output<typeof R.PublicGameList>;
export type LobbySeekList = z.output<typeof R.LobbySeekList>;
export type GuestSeekCreated = z.output<typeof R.GuestSeekCreated>;
export type SeekPoll = z.output<typeof R.SeekPoll>;
export type EventView = z.output<typeof E.EventView>;
export type EventList = z.output<typeof E.EventList>;

export class HttpError extends Error {
  constructor(readonly status: number, readonly detail: string) {
    super(`${status}: ${detail}`);
  }
}

async function call<T>(method: string, path: string, body?: unknown, token?: string): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  const value: unknown = text ? JSON.parse(text) : {};
  if (!res.ok && !(res.status === 409 && path.endsWith('/move'))) {
    throw new HttpError(res.status, (value as { detail?: string }).detail ?? res.statusText);
  }
  return value as T;
}

export const api = {
  games: () => call<PublicGameList>('GET', '/games'),
  game: (id: string) => call<GameState>('GET', `/games/${encodeURIComponent(id)}`),
  history: (id: string) => call<GameHistory>('GET', `/games/${encodeURIComponent(id)}/history`),
  moves: (id: string) => call<LegalMoves>('GET', `/games/${encodeURIComponent(id)}/moves`),
  /** The page shows more rows than the route's default page (50 of each list). */
  leaderboard: () => call<Leaderboard>('GET', '/leaderboard?limit=100&provisionalLimit=100'),
  profile: (team: string, name: string) =>
    call<Profile>('GET', `/bots/${encodeURIComponent(team)}/${encodeURIComponent(name)}`),
  seeks: () => call<LobbySeekList>('GET', '/lobby/seeks'),
  openSeek: (timeControl: TimeControl) =>
    call<GuestSeekCreated>('POST', '/lobby/seeks', { timeControl }),
  pollSeek: (id: string, secret: string) =>
    call<SeekPoll>(
      'GET', `/lobby/seeks/${encodeURIComponent(id)}?secret=${encodeURIComponent(secret)}`),
  cancelSeek: (id: string, secret: string) =>
    call<unknown>('DELETE', `/lobby/seeks/${encodeURIComponent(id)}?secret=${encodeURIComponent(secret)}`),
  acceptSeek: (id: string) => call<SeatGrant>('POST', `/lobby/seeks/${encodeURIComponent(id)}/accept`, {}),
  playHouse: (name: string, timeControl: TimeControl) =>
    call<HouseSeatGrant>('POST', `/lobby/house/${encodeURIComponent(name)}`, { timeControl }),
  /** `version`: the roll the moves answer, so a retried request cannot land on a later roll. */
  move: (id: string, moves: string[], version: number, token: string) =>
    call<MoveVerdict>('POST', `/bot/game/${encodeURIComponent(id)}/move`, { moves, version }, token),
  seed: (id: string, seed: string, token: string) =>
    call<unknown>('POST', `/bot/game/${encodeURIComponent(id)}/seed`, { seed }, token),
  events: () => call<EventList>('GET', '/events'),
  event: (id: string) => call<EventView>('GET', `/events/${encodeURIComponent(id)}`),
  resign: (id: string, token: string) => call<unknown>('POST', `/bot/game/${encodeURIComponent(id)}/resign`, {}, token),
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
export function followEvent(id: string, onLine: (line: Record<string, unknown>) => void): Follower {
  const ctrl = new AbortController();
  void (async () => {
    try {
      const res = await fetch(`/events/${encodeURIComponent(id)}/stream`, { signal: ctrl.signal });
      if (!res.ok || !res.body) return;
      await readLines(res.body, (line) => onLine(JSON.parse(line) as Record<string, unknown>));
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
        const res = await fetch(`/games/${encodeURIComponent(gameId)}/stream`, { signal: ctrl.signal });
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
