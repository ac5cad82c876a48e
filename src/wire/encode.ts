// Every response and event body the server builds from domain values is encoded here, once. Events
// are serialised a single time and the same text goes to every subscriber (rules of the house); the
// game's hot reads (state, legal moves, history) are templates spliced from cached parts, so a read
// while a clock runs re-serialises only the clocks, and a tree is written from its flat form, never
// through an object.
import { STATUS_CODES } from 'node:http';
import type {
  AccountEvent, Clocks, GameEvent, GameState, GameSummary, Seat,
} from '../domain/types.js';
import type { z } from 'zod';
import type * as R from './responses.js';
import { PUBLIC_GAMES_MAX } from './responses.js';
import { PROBLEMS, type ProblemCode, type ProblemSpec } from './problems.js';

/** One ndjson line: the event as JSON, then a newline (game streams, the account stream). */
export function eventLine(event: GameEvent | AccountEvent): string {
  return `${JSON.stringify(event)}\n`;
}

/**
 * A DiceRolled line with the tree already in JSON text (`legalMoves`: the tree's JSON or `null`):
 * the same bytes as `eventLine` of the event, without building the tree as objects to stringify it.
 */
export function diceRolledLine(v: number, seat: Seat, dice: readonly number[], dfen: string, clocks: Clocks | null, legalMoves: string): string {
  return `{"DiceRolled":{"v":${v},"seat":"${seat}","dice":${JSON.stringify(dice)},"dfen":${JSON.stringify(dfen)},"clocks":${JSON.stringify(clocks)},"legalMoves":${legalMoves}}}\n`;
}

/** Which event an ndjson line carries, from its first bytes (every line is `{"<Kind>":{...}}`). */
export function lineIs(line: string, kind: 'DiceRolled' | 'TurnPlayed' | 'Snapshot' | 'GameEnded' | 'Rejected'): boolean {
  return line.startsWith(kind, 2) && line.charCodeAt(0) === 123 && line.charCodeAt(kind.length + 2) === 34;
}

/**
 * What a subscriber on another thread needs of a DiceRolled line (diceRolledLine's format) without
 * parsing it, tree and all: the seat rolled for, and whether the tree is the empty one of a forced
 * pass (a null tree, too large to inline, is not). Undefined for any other line.
 */
export function diceRolledGlance(line: string): { seat: Seat; forcedPass: boolean } | undefined {
  if (!lineIs(line, 'DiceRolled')) return undefined;
  const at = line.indexOf(',"seat":"');
  if (at < 0) return undefined;
  const seat = line.startsWith('White"', at + 9) ? 'White' : line.startsWith('Black"', at + 9) ? 'Black' : undefined;
  if (seat === undefined) return undefined;
  return { seat, forcedPass: line.endsWith('"legalMoves":{}}}\n') };
}

/** A Snapshot line from already-encoded parts (the state and history JSON, cached while read). */
export function snapshotLine(v: number, stateJson: string, historyJson: string): string {
  return `{"Snapshot":{"v":${v},"state":${stateJson},"history":${historyJson}}}\n`;
}

/** The webhook `yourTurn` delivery body, around the cached state JSON. */
export function yourTurnJson(gameId: string, seat: Seat, stateJson: string): string {
  return `{"type":"yourTurn","gameId":${JSON.stringify(gameId)},"seat":"${seat}","state":${stateJson}}`;
}

/** The webhook verification handshake body. */
export function verificationJson(nonce: string): string {
  return JSON.stringify({ type: 'verification', nonce });
}

/** Body of GET /games/{id}/moves; `legalMovesJson` is the tree's JSON text (`{}` when none). */
export function movesJson(version: number, dfen: string, dicePending: boolean, legalMovesJson: string): string {
  return `{"version":${version},"dfen":${JSON.stringify(dfen)},"dicePending":${dicePending},"legalMoves":${legalMovesJson}}`;
}

/** A GameState without its two costly parts: the live clocks and the inline tree. */
export type StateFields = Omit<GameState, 'clocks' | 'legalMoves'>;

/**
 * The state JSON split around `clocks`, made once per version: a read while a clock runs only
 * splices the live clocks in instead of re-serialising the tree. Keys in GameState's order.
 */
export class StateTemplate {
  private readonly head: string;
  private readonly tail: string;

  /** `legalMovesJson`: the inline tree's JSON text, or `null`. */
  constructor(s: StateFields, legalMovesJson: string) {
    const head = JSON.stringify({
      version: s.version,
      dfen: s.dfen,
      activeSeat: s.activeSeat,
      dicePending: s.dicePending,
      status: s.status,
      timeControl: s.timeControl,
      ...(s.timeControls ? { timeControls: s.timeControls } : {}),
    });
    this.head = `${head.slice(0, -1)},"clocks":`;
    this.tail =
      `,"commit":${JSON.stringify(s.commit)},"seed":${JSON.stringify(s.seed)}` +
      `,"clientSeeds":${JSON.stringify(s.clientSeeds)}` +
      `,"legalMoves":${legalMovesJson}` +
      `,"players":${JSON.stringify(s.players)}` +
      (s.ladder ? `,"ladder":${JSON.stringify(s.ladder)}}` : '}');
  }

  render(clocks: Clocks | null): string {
    return this.head + JSON.stringify(clocks) + this.tail;
  }

  /** Characters held (what a bounded cache of templates counts). */
  get chars(): number {
    return this.head.length + this.tail.length;
  }
}

export type ProblemBody = z.output<typeof R.Problem>;

/**
 * An RFC 9457 body (docs/API.md, "Errors and limits"): the status is the code's (problems.ts), the
 * title the status's HTTP reason phrase, and without a detail the code's default one is sent.
 */
export function problemJson(code: ProblemCode, detail?: string): string {
  const { status, detail: fallback }: ProblemSpec = PROBLEMS[code];
  const body: ProblemBody = { type: 'about:blank', title: STATUS_CODES[status] ?? 'Unknown', status, detail: detail ?? fallback, code };
  return JSON.stringify(body);
}

/** A live game as GET /games lists it: a ladder game adds whether it is rated and the seats' ratings. */
export type ListedGame = GameSummary & {
  rated?: boolean;
  ratings?: { white: number | null; black: number | null };
};

/** Entry of GET /games: only spectator-safe fields, picked one by one so nothing else leaks. */
function publicGame(s: ListedGame): z.output<typeof R.PublicGame> {
  // Rated games only carry `rated` and `ratings`: every other entry keeps the documented shape exactly.
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
export function publicGameList(live: readonly ListedGame[]): z.output<typeof R.PublicGameList> {
  const top = [...live].sort((a, b) => b.version - a.version).slice(0, PUBLIC_GAMES_MAX);
  return { games: top.map(publicGame), total: live.length };
}

/** Entry of GET /bot/games for the caller's seat. */
export function myGame(s: GameSummary, seat: Seat): z.output<typeof R.MyGame> {
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

/** GET /leaderboard: both lists and their totals, as the bytes the ladder service caches per page. */
export function leaderboardBytes(body: z.output<typeof R.Leaderboard>): Buffer {
  return Buffer.from(JSON.stringify(body));
}
