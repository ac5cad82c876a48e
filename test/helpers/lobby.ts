// Small helpers for the lobby tests: seek calls, a bounded read of the next stream event, and a
// polling driver that plays random legal turns for the seats it holds tokens for.
import type { LineReader } from './http.js';
import type { TestApp } from './app.js';
import { nextEvent as readEvent } from './play.js';
import { randomPath, type Tree } from './play.js';
export { randomPath };

/** The next stream event; lobby flows are short, so a quiet stream fails sooner. */
export const nextEvent = (stream: LineReader, ms = 5000): Promise<Record<string, any> | undefined> => readEvent(stream, ms);

export type Seat = 'White' | 'Black';

export const FISCHER_600_10 = { Fischer: { initialSeconds: 600, incrementSeconds: 10 } };

export interface LobbyEntry {
  id: string;
  timeControl: unknown;
  kind: 'Bot' | 'Human';
  name: string | null;
}

export async function lobby(app: TestApp): Promise<LobbyEntry[]> {
  const r = await app.req('GET', '/lobby/seeks');
  if (r.status !== 200) throw new Error(`GET /lobby/seeks: ${r.status} ${r.text}`);
  return (r.json as { seeks: LobbyEntry[] }).seeks;
}

export async function botSeek(app: TestApp, token: string, body?: unknown): Promise<{ seekId: string; secret: string }> {
  const r = await app.req('POST', '/bot/seeks', { token, body });
  if (r.status !== 201) throw new Error(`POST /bot/seeks: ${r.status} ${r.text}`);
  return r.json as { seekId: string; secret: string };
}

export async function guestSeek(app: TestApp, body?: unknown): Promise<{ seekId: string; secret: string; guestId: string }> {
  const r = await app.req('POST', '/lobby/seeks', { body });
  if (r.status !== 201) throw new Error(`POST /lobby/seeks: ${r.status} ${r.text}`);
  return r.json as { seekId: string; secret: string; guestId: string };
}

export const pollPath = (id: string, secret: string): string => `/lobby/seeks/${id}?secret=${encodeURIComponent(secret)}`;



interface StateJson {
  version: number;
  activeSeat: Seat;
  dicePending: boolean;
  status: { Active?: object; Ended?: object };
  legalMoves: Tree | null;
}

/**
 * Plays random legal turns for the seats in `tokens` (polling GET /games/{id}) until every seat in
 * `want` has had that many turns applied, or the game ends. Bounded. Returns the turns applied per seat.
 */
export async function playTurns(
  app: TestApp,
  gameId: string,
  tokens: Partial<Record<Seat, string>>,
  want: Partial<Record<Seat, number>>,
): Promise<{ White: number; Black: number; ended: boolean }> {
  const done = { White: 0, Black: 0, ended: false };
  const satisfied = () => (Object.entries(want) as [Seat, number][]).every(([s, n]) => done[s] >= n);
  for (let i = 0; i < 3000 && !satisfied(); i++) {
    const s = (await app.req('GET', `/games/${gameId}`)).json as StateJson;
    if (s.status.Ended) {
      done.ended = true;
      return done;
    }
    const token = tokens[s.activeSeat];
    if (!s.dicePending || !token) {
      await new Promise((r) => setTimeout(r, 2));
      continue;
    }
    let tree = s.legalMoves;
    if (!tree) {
      const m = (await app.req('GET', `/games/${gameId}/moves`)).json as { version: number; legalMoves: Tree };
      if (m.version !== s.version) continue;
      tree = m.legalMoves;
    }
    if (Object.keys(tree).length === 0) continue;
    const r = await app.req('POST', `/bot/game/${gameId}/move`, { token, body: { moves: randomPath(tree) } });
    if (r.status !== 200) throw new Error(`move by ${s.activeSeat}: ${r.status} ${r.text}`);
    done[s.activeSeat]++;
  }
  if (!satisfied()) throw new Error(`turns wanted ${JSON.stringify(want)}, got ${JSON.stringify(done)}`);
  return done;
}

/** The caller's entry for a game in GET /bot/games. */
export async function myGame(app: TestApp, token: string, gameId: string): Promise<{ gameId: string; seat: Seat; timeControl: unknown } | undefined> {
  const r = await app.req('GET', '/bot/games', { token });
  if (r.status !== 200) throw new Error(`GET /bot/games: ${r.status} ${r.text}`);
  return (r.json as { games: { gameId: string; seat: Seat; timeControl: unknown }[] }).games.find((g) => g.gameId === gameId);
}
