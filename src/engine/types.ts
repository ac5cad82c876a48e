// The engine's public data shapes. Kept apart from index.ts so the implementation files can import
// them without importing the public entry point (no cycles).

export type Result<T, E> = { ok: true; value: T } | { ok: false; error: E };

/** Opaque-ish parsed position; see board.ts for the search-time representation. */
export interface Position {
  /** 64 squares, a1=0 … h8=63; 0 empty, +1..+6 white P N B R Q K, -1..-6 black. */
  board: Int8Array;
  /** 0 white to move, 1 black. */
  turn: 0 | 1;
  /** Bits: 1 K, 2 Q, 4 k, 8 q. */
  castling: number;
  /** En passant targets as square indices, ascending. */
  ep: number[];
  halfmove: number;
  fullmove: number;
  /** Pending dice faces 1..6 (unordered multiset); empty when no roll is pending. */
  dice: number[];
}

export interface DfenError {
  code: string;
  message: string;
}

export interface LegalMoveTreeJson {
  [uci: string]: LegalMoveTreeJson;
}

export interface TreeResult {
  bytes: Uint8Array;
  leaves: number;
}

export interface TurnOutcome {
  /** Six-field position after the turn (capturer still to move after a king capture). */
  fenAfter: string;
  kingCaptured: boolean;
  /** Halfmove clock after the turn (draw at >= 100). */
  halfmove: number;
}

export const ok = <T>(value: T): { ok: true; value: T } => ({ ok: true, value });
export const fail = (code: string, message: string): { ok: false; error: DfenError } => ({
  ok: false,
  error: { code, message },
});
