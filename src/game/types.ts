// The seams around game actors. Transports (ndjson streams, webhook deliverers, built-in house bots)
// implement GameSubscriber; the lobby, challenges and the ladder create games through GameFactory.
import type {
  GameEvent, GameState, GameSummary, HistoryEntry, MoveVerdict, Seat, SeatControls, SeatPlayer, TimeControl,
} from '../domain/types.js';
import type { GameRecord } from '../domain/records.js';
import type { CommandName, PayloadOf, ReplyOf } from './commands.js';

/** One published event, serialised once: every subscriber gets the same bytes. */
export interface EventFrame {
  v: number;
  event: GameEvent;
  /** JSON of `event` followed by '\n'. */
  line: string;
}

export interface GameSubscriber {
  /** Called after the event is persisted, in version order. Must not throw and must not block. */
  deliver(frame: EventFrame): void;
  /**
   * Optional: the events of one version at once (a turn and the next roll), for a subscriber that
   * can hand them on together (a stream writes them in one socket write). Else `deliver` each.
   */
  deliverAll?(frames: readonly EventFrame[]): void;
  /** Called once when the subscription ends (game ended and GameEnded delivered, or server stopping). */
  close?(): void;
}

/** Entry of GET /games (public) and the fields GET /bot/games need; a domain value, so wire encodes it. */
export type { GameSummary } from '../domain/types.js';

export interface MovesView {
  version: number;
  dfen: string;
  dicePending: boolean;
  /** The full tree as JSON text (never capped); `{}` when no roll is pending or on a forced pass. */
  legalMovesJson: string;
}

export interface GameHandle {
  readonly id: string;
  readonly white: SeatPlayer;
  readonly black: SeatPlayer;
  readonly timeControl: TimeControl;
  readonly rated: boolean;
  /** The seat held by this external id, or null. */
  seatOf(playerId: string): Seat | null;
  isActive(): boolean;
  /** Live snapshot: clocks with the mover's elapsed time already subtracted. */
  state(): GameState;
  /** JSON text of state(), cached per version with only the clocks spliced in (hot read path). */
  stateJson(): string;
  history(): HistoryEntry[];
  summary(): GameSummary;
  moves(): MovesView;
  /** JSON text of the legal-moves response `{version, dfen, dicePending, legalMoves}`, cached per version. */
  movesJson(): string;
  /**
   * Only where the tree's text was made by another thread (a shard's game, on main): the moves body as
   * bytes around that text when the tree is over the inline cap (a promise: the text may have to be
   * asked of its owner again), else null (use movesJson).
   */
  movesBody?(): Promise<{ version: number; bytes: Uint8Array }> | null;
  /** Fire-and-forget: first valid seed per seat before the opening roll wins. */
  seed(seat: Seat, seed: string): void;
  /**
   * Resolves with the verdict once the actor has processed the move; 'busy' when the actor's bounded
   * mailbox is full (the edge answers 429). The clock stops at the instant of this call.
   * `version`: the DiceRolled `v` (or a later game version) of the roll the moves answer; with it, a
   * retry of an applied turn gets the same verdict again and is never applied to a later roll.
   * `creditMs`: time the server itself held the turn before the mover could see it (a webhook
   * delivery waiting in the server's queue); the owner takes it off the mover's elapsed time, never
   * more than that elapsed time.
   */
  move(seat: Seat, moves: readonly string[], version?: number, creditMs?: number): Promise<MoveVerdict | 'busy'>;
  /** Fire-and-forget; ignored once the game has ended. */
  resign(seat: Seat): void;
  /**
   * Any game command by name (declared once in commands.ts, handled by the game's actor wherever it
   * runs): move, seed and resign above are three of them. An ended game answers the command's `over`.
   */
  command<K extends CommandName>(name: K, payload: PayloadOf<K>): Promise<ReplyOf<K>>;
  /**
   * A command sent by its own route, by name (the route catalogue's `command`): its payload made by
   * the command table from the seat and the body; handed over, not waited for. False when the table
   * has no such command or it is not sent by a route.
   */
  playerCommand(name: string, seat: Seat, body: unknown): boolean;
  /**
   * Subscribes and returns the Snapshot frame to send first; no event can fall between the two.
   * For an ended game, also returns the GameEnded frame and does not subscribe.
   */
  subscribe(sub: GameSubscriber): { snapshot: EventFrame; ended: EventFrame | null; unsubscribe(): void };
  /** The current record (what the store holds). */
  record(): GameRecord;
}

export interface NewGameSpec {
  white: SeatPlayer;
  black: SeatPlayer;
  timeControl: TimeControl;
  /**
   * Time odds: each seat's own control, in place of `timeControl` (which the record then keeps as
   * White's). A mirror pair's second game gives each *player* its own control again, on the other seat.
   */
  timeControls?: SeatControls;
  rated: boolean;
  /**
   * Optional six-field start position (no dice); the standard start when omitted. For tests and
   * set-ups that need a particular position; the public API never sets it.
   */
  startFen?: string;
  /**
   * Optional dice of a mirror pair chosen by its maker (an event derives them from its own seed):
   * the server seed (hex) and both client seeds. Fresh random ones when omitted.
   */
  fair?: { serverSeed: string; clientSeeds: { white: string; black: string } };
  /** The event the game belongs to, kept on its record (the ladder leaves event games alone). */
  tournament?: string;
}

/** What the lobby and challenges call to start a game (a mirror pair: MirrorPairFactory). */
export interface GameFactory {
  create(spec: NewGameSpec): Promise<GameHandle>;
}

/** What the ladder scheduler calls: `spec` and its mirror (colours swapped), identical dice, lockstep. */
export interface MirrorPairFactory {
  createMirrorPair(spec: NewGameSpec): Promise<[GameHandle, GameHandle]>;
}

/** Lookups over live games, and the archive for ended ones. */
export interface GameDirectory {
  get(id: string): GameHandle | undefined;
  /** Live games, any order. */
  live(): GameHandle[];
  /** Live games in which this external id is seated. */
  liveFor(playerId: string): GameHandle[];
  /** An ended game's final record (from the store, or the bounded in-memory archive). */
  finalRecord(id: string): GameRecord | undefined;
  /** A live game, or a read-only handle on an ended one. */
  find(id: string): GameHandle | undefined;
}

/** Hooks the services use: GameStart to account streams, results to the ladder. */
export interface GameLifecycleListener {
  gameStarted?(game: GameHandle): void;
  /** A live game rebuilt from the store after a restart (no GameStart is sent for it). */
  gameResumed?(game: GameHandle): void;
  gameEnded?(game: GameHandle, record: GameRecord): void;
  /** A TurnPlayed was published (a forced pass too); for metrics. Must be cheap. */
  turnApplied?(game: GameHandle): void;
  /** A move was refused (a Rejected event other than a refused seed) for this seat. */
  moveRefused?(game: GameHandle, seat: Seat): void;
}
