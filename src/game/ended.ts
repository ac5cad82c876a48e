// A read-only handle over an ended game's final record (from the store or the archive), so the edge
// serves a finished game through the same GameHandle calls as a live one. Its reads are the same
// GameView the live actor uses, over the final record.
import type { GameRecord } from '../domain/records.js';
import type { GameState, HistoryEntry, MoveVerdict, Seat, SeatPlayer, TimeControl } from '../domain/types.js';
import { GAME_OVER } from '../domain/rules.js';
import type { EventFrame, GameHandle, GameSummary, MovesView } from './types.js';
import { GameView } from './view.js';

export class EndedGame implements GameHandle {
  private readonly view: GameView;

  constructor(private readonly rec: GameRecord) {
    this.view = GameView.ofRecord(rec);
  }

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

  state(): GameState { return this.view.state(); }
  stateJson(): string { return this.view.stateJson(); }
  history(): HistoryEntry[] { return this.view.history(); }
  summary(): GameSummary { return this.view.summary(); }
  moves(): MovesView { return this.view.moves(); }
  movesJson(): string { return this.view.movesJson(); }

  seed(): void {}

  move(): Promise<MoveVerdict | 'busy'> {
    return Promise.resolve(GAME_OVER);
  }

  resign(): void {}

  subscribe(): { snapshot: EventFrame; ended: EventFrame | null; unsubscribe(): void } {
    return { snapshot: this.view.snapshotFrame(), ended: this.view.endedFrame(), unsubscribe: () => {} };
  }

  record(): GameRecord {
    return this.rec;
  }
}
