// Driving games against a real server process by polling, and reading a game completely (state,
// history, stream snapshot) so that tests can compare it across a restart.
import type { ServerProcess, Tree } from './persistence.js';
import { nextEvent, randomPath } from './persistence.js';
import type { HistoryEntry } from './persistence-replay.js';

export interface GameStateJson {
  version: number;
  dfen: string;
  activeSeat: 'White' | 'Black';
  dicePending: boolean;
  status: { Active?: object; Ended?: { over: { result: unknown; termination: string } } };
  timeControl: unknown;
  clocks: { white: number; black: number } | null;
  commit: string;
  seed: string | null;
  clientSeeds: { white: string; black: string } | null;
  legalMoves: Tree | null;
  players: { white: { kind: string; name: string | null }; black: { kind: string; name: string | null } };
}

export interface HistoryJson {
  gameId: string;
  commit: string;
  seed: string | null;
  clientSeeds: { white: string; black: string } | null;
  status: GameStateJson['status'];
  history: HistoryEntry[];
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function getJson<T>(p: ServerProcess, path: string, token?: string): Promise<T> {
  const r = await p.req('GET', path, { token });
  if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${r.text}`);
  return r.json as T;
}

/** The pending roll's full tree, tied to the version it answers (undefined if the roll moved on). */
async function treeFor(p: ServerProcess, gameId: string, state: GameStateJson): Promise<Tree | undefined> {
  if (state.legalMoves) return state.legalMoves;
  const m = await getJson<{ version: number; legalMoves: Tree }>(p, `/games/${gameId}/moves`);
  return m.version === state.version ? m.legalMoves : undefined;
}

/**
 * Plays the seats we hold tokens for (random legal turns) until `stop` says so or the game ends.
 * Returns the number of turns this driver got applied. Bounded: gives up after `maxPolls` polls.
 */
export async function playUntil(
  p: ServerProcess,
  gameId: string,
  tokens: { White?: string; Black?: string },
  stop: (state: GameStateJson, applied: number) => boolean,
  maxPolls = 2000,
): Promise<{ applied: number; state: GameStateJson }> {
  let applied = 0;
  for (let i = 0; i < maxPolls; i++) {
    const state = await getJson<GameStateJson>(p, `/games/${gameId}`);
    if (state.status.Ended || stop(state, applied)) return { applied, state };
    const token = tokens[state.activeSeat];
    if (!state.dicePending || !token) {
      await pause(5); // a roll in flight, or the other (house) side thinking
      continue;
    }
    const tree = await treeFor(p, gameId, state);
    if (!tree || Object.keys(tree).length === 0) continue;
    const r = await p.req('POST', `/bot/game/${gameId}/move`, { token, body: { moves: randomPath(tree) } });
    if (r.status !== 200) throw new Error(`move refused: ${r.status} ${r.text}`);
    const verdict = r.json as { applied: boolean; version: number };
    if (!verdict.applied || verdict.version !== state.version + 1) throw new Error(`odd verdict ${r.text} after version ${state.version}`);
    applied++;
  }
  throw new Error(`game ${gameId}: stop condition not reached within ${maxPolls} polls`);
}

export interface GameReading {
  state: GameStateJson;
  history: HistoryJson;
  snapshot: { v: number; state: GameStateJson; history: HistoryEntry[] };
}

/** State, public history and the stream's Snapshot of one game. */
export async function readGame(p: ServerProcess, gameId: string, token: string): Promise<GameReading> {
  const state = await getJson<GameStateJson>(p, `/games/${gameId}`);
  const history = await getJson<HistoryJson>(p, `/games/${gameId}/history`);
  const stream = await p.stream(`/bot/game/stream/${gameId}`, token);
  try {
    if (stream.status !== 200) throw new Error(`stream of ${gameId}: ${stream.status}`);
    const first = await nextEvent(stream);
    if (!first?.Snapshot) throw new Error(`stream of ${gameId} did not open with a Snapshot: ${JSON.stringify(first)}`);
    return { state, history, snapshot: first.Snapshot };
  } finally {
    stream.destroy();
  }
}
