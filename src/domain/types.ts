// Shapes shared by every layer. They are the wire shapes of the API (docs/API.md,
// contract 1.0), so an event object can be serialised as it is, once, for every subscriber.

export type Seat = 'White' | 'Black';
export const otherSeat = (s: Seat): Seat => (s === 'White' ? 'Black' : 'White');

export type TimeControl =
  | { Unlimited: Record<string, never> }
  | { SuddenDeath: { initialSeconds: number } }
  | { Fischer: { initialSeconds: number; incrementSeconds: number } }
  | { PerMove: { secondsPerMove: number } };

/**
 * A time control per seat: a game with time odds gives each side its own (the rest give both the
 * same one and carry none of these).
 */
export interface SeatControls {
  white: TimeControl;
  black: TimeControl;
}

/** Remaining milliseconds per side; null for Unlimited games. */
export interface Clocks {
  white: number;
  black: number;
}

export type Participant =
  | { Guest: { id: string } }
  | { User: { id: string } }
  | { Bot: { team: string; name: string } };

/** Spectator-safe view of a player: never a raw id. */
export interface PublicFace {
  kind: 'Bot' | 'Human';
  name: string | null;
}

export type GameResult = { Win: { side: Seat } } | { Draw: Record<string, never> };
export type Termination = 'KingCaptured' | 'Resign' | 'Draw' | 'Aborted' | 'Timeout';
export interface GameOver {
  result: GameResult;
  termination: Termination;
}
/** `Ended` carries `over` so a polling bot can read the result. */
export type GameStatus = { Active: Record<string, never> } | { Ended: { over: GameOver } };

/** Prefix tree of UCI micro-moves; a leaf `{}` ends a complete legal turn. */
export interface LegalMoveTree {
  [uci: string]: LegalMoveTree;
}

export interface HistoryEntry {
  seat: Seat;
  dice: number[];
  moves: string[];
  fenAfter: string;
}

export interface ClientSeeds {
  white: string;
  black: string;
}

export interface Players {
  white: PublicFace;
  black: PublicFace;
}

/**
 * Which kind of ladder game a rated game is: one half of a mirror pair (both colours, the same dice)
 * or a single game (a bot with one free seat). Games that are not ladder games have none.
 */
export type LadderKind = 'mirror' | 'single';

/** Public snapshot of one game (GET /games/{id}, Snapshot.state, webhook state). */
export interface GameState {
  version: number;
  dfen: string;
  activeSeat: Seat;
  dicePending: boolean;
  status: GameStatus;
  /** White's time control: the common one unless the game has time odds. */
  timeControl: TimeControl;
  /** Present only on a game with time odds (the sides' controls differ): each side's own. */
  timeControls?: SeatControls;
  clocks: Clocks | null;
  commit: string;
  seed: string | null;
  clientSeeds: ClientSeeds | null;
  legalMoves: LegalMoveTree | null;
  players: Players;
  /** Present on ladder games only (absent otherwise, so other games keep their exact shape). */
  ladder?: LadderKind;
}

export type GameEvent =
  | { Snapshot: { v: number; state: GameState; history: HistoryEntry[] } }
  | {
      DiceRolled: {
        v: number;
        seat: Seat;
        dice: number[];
        dfen: string;
        clocks: Clocks | null;
        legalMoves: LegalMoveTree | null;
      };
    }
  | { TurnPlayed: { v: number; seat: Seat; moves: string[]; fenAfter: string } }
  | { GameEnded: { v: number; over: GameOver; seed: string | null; clientSeeds: ClientSeeds | null } }
  | { Rejected: { v: number; seat: Seat; reason: string } };

/** The colour a challenger asks for: `white` (the default, as before colours could be asked for), `black` or `random`. */
export type ChallengeColor = 'white' | 'black' | 'random';

/** Why a challenge was declined, as its decliner gave it (an enumeration, so it can be shown or acted on). */
export const DECLINE_REASONS = ['generic', 'later', 'tooFast', 'tooSlow', 'timeControl', 'busy'] as const;
export type DeclineReason = (typeof DECLINE_REASONS)[number];

/** The other seat of a game, as an account event names it: a bot by its external id, a guest by its face only. */
export interface Opponent {
  id: string | null;
  kind: PublicFace['kind'];
  name: string | null;
}

export type AccountEvent =
  | { ChallengeReceived: { id: string; challenger: Participant; timeControl: TimeControl; color: ChallengeColor } }
  | { ChallengeDeclined: { id: string; reason?: DeclineReason } }
  | { GameStart: { gameId: string; color: Seat; opponent: Opponent; timeControl: TimeControl; timeControls?: SeatControls; rated: boolean } }
  | { GameFinish: { gameId: string; color: Seat; opponent: Opponent; over: GameOver } }
  | { LadderRemoved: { reason: string } }
  | {
      EventInvitation: {
        eventId: string; name: string; format: string; host: { team: string; name: string };
        rated: boolean; invitation: 'invited' | 'accepted';
        /** The invited bot's own time control in the event, and whether players' controls differ. */
        timeControl: TimeControl; timeOdds: boolean;
      };
    };

export interface MoveVerdict {
  applied: boolean;
  version: number | null;
  reason: string | null;
}

/** Reasons a move verdict may carry (the verdict body's `reason` is exactly one of these). */
export type VerdictReason = 'not your turn' | 'illegal turn' | 'game is over';

/**
 * Who is calling, after authentication. `id` is the external id:
 * `bot:team:<team>:<name>` for bots, `guest:<id>` for human guests.
 */
export interface Principal {
  id: string;
  tier: 'anonymous' | 'registered' | 'static' | 'guest';
  team: string;
  name: string;
}

/** A seated player as a game knows it. */
export interface SeatPlayer {
  /** External id; also the fallback client seed (docs/ENGINE.md: fair dice). */
  id: string;
  face: PublicFace;
  participant: Participant;
}

export const botExternalId = (team: string, name: string): string => `bot:team:${team}:${name}`;
export const botFace = (team: string, name: string): PublicFace => ({ kind: 'Bot', name: `${team} ${name}` });
export const HUMAN_FACE: PublicFace = { kind: 'Human', name: null };

/** What GET /games and GET /bot/games list of a live game (the wire encoders pick from it). */
export interface GameSummary {
  gameId: string;
  white: SeatPlayer;
  black: SeatPlayer;
  timeControl: TimeControl;
  activeSeat: Seat;
  dicePending: boolean;
  clocks: Clocks | null;
  version: number;
  dfen: string;
}
