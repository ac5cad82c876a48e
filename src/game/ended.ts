// A read-only handle over an ended game's final record (from the store or the archive), so the edge
// serves a finished game through the same GameHandle calls as a live one: the final state with the
// reveal, its history, and for a stream the ended Snapshot plus GameEnded.
import type { GameRecord } from '../domain/records.js';
import type { GameState, HistoryEntry, MoveVerdict, Seat, SeatPlayer, TimeControl } from '../domain/types.js';
import type { EventFrame, GameHandle, GameSummary, MovesView } from './types.js';
import { GAME_OVER } from '../domain/rules.js';
import { endedFramesOf, stateOfRecord } from './view.js';

export class EndedGame implements GameHandle {
  private json: string | null = null;
  private frames: { snapshot: EventFrame; ended: EventFrame | null } | null = null;

  constructor(private readonly rec: GameRecord) {}

  get id(): string { return this.rec.id; }
  get white(): SeatPlayer { return this.rec.white; }
  get black(): SeatPlayer { return this.rec.black; }
  get timeControl(): TimeControl { return this.rec.timeControl; }
  get rated(): boolean { return this.rec.rated; }

  seatOf(playerId: string): Seat | null {
    return this.rec.white.id === playerId ? 'White' : this.rec.black.id === playerId ? 'Black' : null;
  }

  isActive(): boolean {
    return false;
  }

  state(): GameState {
    return stateOfRecord(this.rec);
  }

  stateJson(): string {
    this.json ??= JSON.stringify(this.state());
    return this.json;
  }

  history(): HistoryEntry[] {
    return this.rec.history.slice();
  }

  summary(): GameSummary {
    const r = this.rec;
    return {
      gameId: r.id, white: r.white, black: r.black, timeControl: r.timeControl, activeSeat: r.activeSeat,
      dicePending: false, clocks: r.clocks, version: r.version, dfen: r.fen,
    };
  }

  moves(): MovesView {
    return { version: this.rec.version, dfen: this.rec.fen, dicePending: false, legalMovesJson: '{}' };
  }

  movesJson(): string {
    return `{"version":${this.rec.version},"dfen":${JSON.stringify(this.rec.fen)},"dicePending":false,"legalMoves":{}}`;
  }

  seed(): void {}

  move(): Promise<MoveVerdict | 'busy'> {
    return Promise.resolve(GAME_OVER);
  }

  resign(): void {}

  subscribe(): { snapshot: EventFrame; ended: EventFrame | null; unsubscribe(): void } {
    this.frames ??= endedFramesOf(this.rec);
    return { ...this.frames, unsubscribe: () => {} };
  }

  record(): GameRecord {
    return this.rec;
  }
}
