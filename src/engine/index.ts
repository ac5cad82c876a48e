// PUBLIC API OF THE ENGINE (stub: the engine issue fills in the bodies; signatures are the contract
// the rest of the server compiles against). The engine imports nothing outside src/engine.

export type Result<T, E> = { ok: true; value: T } | { ok: false; error: E };

/** Opaque-ish parsed position; see board.ts once written. */
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

const todo = (): never => {
  throw new Error('engine: not implemented yet');
};

export const START_FEN = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';
export function parseDfen(_text: string): Result<Position, DfenError> { return todo(); }
export function formatDfen(_pos: Position): string { return todo(); }
/** A DFEN of `fen` with the roll `dice` pending (dice written sorted, cased by side to move). */
export function withDice(_fen: string, _dice: readonly number[]): Result<string, DfenError> { return todo(); }
export function legalTree(_pos: Position): TreeResult { return todo(); }
export function treeLeafCount(_bytes: Uint8Array): number { return todo(); }
export function treeToJson(_bytes: Uint8Array): string { return todo(); }
export function treeToObject(_bytes: Uint8Array): LegalMoveTreeJson { return todo(); }
export function treeHasPath(_bytes: Uint8Array, _moves: readonly string[]): boolean { return todo(); }
export function treePaths(_bytes: Uint8Array): string[][] { return todo(); }
export function applyTurn(_pos: Position, _moves: readonly string[]): Result<TurnOutcome, DfenError> { return todo(); }
export function passTurn(_pos: Position): TurnOutcome { return todo(); }
export function capturedBy(_pos: Position, _moves: readonly string[]): number[] { return todo(); }
export function perft(_pos: Position, _die: number, _depth: number): number { return todo(); }
