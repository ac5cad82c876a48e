// What the store keeps. Every record carries `schema` so a newer data directory is refused, not misread.
import type { EventHostsSetting } from './tournaments.js';
import type { ClientSeeds, GameStatus, HistoryEntry, LadderKind, SeatPlayer, SeatControls, TimeControl, Clocks, Seat, Termination } from './types.js';

export const SCHEMA_VERSION = 1;

export interface Rating {
  rating: number;
  rd: number;
  volatility: number;
}

export const DEFAULT_RATING: Rating = { rating: 1500, rd: 350, volatility: 0.06 };

export interface WebhookRecord {
  url: string;
  secret: string;
  verifiedAt: string;
}

/** A registered bot. Anonymous identities are never stored; static house bots come from config. */
export interface BotRecord {
  schema: number;
  id: string; // bot:team:<team>:<name>
  team: string;
  name: string;
  tokenHash: string; // lowercase hex SHA-256 of the bearer token
  createdAt: number; // epoch ms
  onLadder: boolean;
  rating: Rating;
  webhook: WebhookRecord | null;
  /** Ladder games this bot may play at once (1..32; absent means 1). A mirror pair takes 2. */
  capacity?: number;
  /**
   * True once the bot has been on the ladder and left it (by hand or taken off by the server): it stays
   * in the leaderboard lists with its frozen rating. Absent on bots that never left (and on records
   * of bots that left before this field existed, which stay out of the provisional list as before).
   */
  leftLadder?: boolean;
  /** Why the server took the bot off the ladder (null or absent: it was not, or it rejoined). */
  offLadderReason?: string | null;
  /** Ladder games lost on time in a row; 4 takes the bot off the ladder. */
  ladderTimeLosses?: number;
  /** The bot's last ladder opponent: not paired again right away while someone new is free. */
  ladderLastOpponent?: string | null;
  /**
   * Ladder pairings started, by kind: a mirror pair counts once in `pairs` (absent: none, as on
   * records from before the count was kept).
   */
  ladderGames?: { pairs: number; singles: number };
  /** Ladder games started with each colour (absent: none); single games go to the colour that evens it. */
  ladderColours?: { white: number; black: number };
  /** Hosts whose event invitations this bot accepts without answering (absent: none). Shown only to the bot. */
  eventHosts?: EventHostsSetting;
}

/**
 * Everything needed to resume a game exactly, or to serve it from the archive once ended.
 * The position is kept as text (DFEN without dice), the pending roll separately.
 */
export interface GameRecord {
  schema: number;
  id: string;
  white: SeatPlayer;
  black: SeatPlayer;
  /** White's time control; both sides' when `timeControls` is absent. */
  timeControl: TimeControl;
  /**
   * Each side's own time control, on a game with time odds only (they differ). Absent on every other
   * game and on every record written before odds existed: both sides then play `timeControl`.
   */
  timeControls?: SeatControls;
  rated: boolean;
  createdAt: number; // epoch ms
  /** Lowercase hex of the 32-byte server seed. Secret until the game ends. */
  serverSeed: string;
  commit: string;
  /** Client seeds as submitted; null where a seat has not seeded. */
  clientSeeds: { white: string | null; black: string | null };
  /** Rolls made so far (the next roll's ply). */
  ply: number;
  /** Six-field position before the pending roll (or the final position). */
  fen: string;
  /** Side to move. */
  activeSeat: Seat;
  /** The pending roll, in roll order; null when no roll is pending. */
  dice: number[] | null;
  /** Banks in ms as of `clockStartedAt` (the mover's elapsed time not yet subtracted); null for Unlimited. */
  clocks: Clocks | null;
  /** Epoch ms when the pending roll was published (the mover's clock started); null when none runs. */
  clockStartedAt: number | null;
  version: number;
  history: HistoryEntry[];
  status: GameStatus;
  /** Revealed client seeds (set when the game ends). */
  revealedSeeds: ClientSeeds | null;
  finishedAt: number | null;
  /** Mirror-pair partner game id, for the ladder's mirror pairs (null for its single games). */
  mirrorOf: string | null;
  /**
   * Set on a mirror-pair game that ended while its partner still ran: its seed reveal is withheld
   * until the partner ends too (the registry lifts it when reading once the partner has ended).
   */
  revealHeld?: boolean;
  /** The event this game belongs to (absent for every other game): event games are not ladder games. */
  tournament?: string;
}

/** The control each side plays: its own on a game with time odds, else the game's one for both. */
export function seatControlsOf(rec: Pick<GameRecord, 'timeControl' | 'timeControls'>): SeatControls {
  return rec.timeControls ?? { white: rec.timeControl, black: rec.timeControl };
}

/** Two time controls are the same control (same kind, same numbers). */
export function sameControl(a: TimeControl, b: TimeControl): boolean {
  const fields = (tc: TimeControl): (string | number)[] =>
    'Unlimited' in tc ? ['Unlimited']
      : 'SuddenDeath' in tc ? ['SuddenDeath', tc.SuddenDeath.initialSeconds]
        : 'Fischer' in tc ? ['Fischer', tc.Fischer.initialSeconds, tc.Fischer.incrementSeconds]
          : ['PerMove', tc.PerMove.secondsPerMove];
  const x = fields(a);
  const y = fields(b);
  return x.length === y.length && x.every((v, i) => v === y[i]);
}

/** One line of a bot's finished-games index (profiles, leaderboard counts). */
export interface ResultRecord {
  gameId: string;
  botId: string;
  seat: Seat;
  opponentId: string;
  result: 'win' | 'draw' | 'loss';
  rated: boolean;
  /** The kind of ladder game (absent on games that are not ladder games, and on lines stored before single games existed). */
  ladder?: LadderKind;
  termination: Termination;
  finishedAt: number;
}

/**
 * The kind of ladder game a record is, or null: only the ladder makes rated games, so a rated game is
 * a ladder game, a mirror pair's half when it has a partner and a single game otherwise.
 */
export function ladderKindOf(rec: Pick<GameRecord, 'rated' | 'mirrorOf'>): LadderKind | null {
  if (!rec.rated) return null;
  return rec.mirrorOf !== null ? 'mirror' : 'single';
}
