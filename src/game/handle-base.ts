// What every game handle shares (the live actor, main's replica of a shard's game, an ended game):
// the reads, answered from the handle's current GameView (view.ts), and the players' commands, each
// made a command of the table (commands.ts) and handed to the handle's own `command`, which runs it
// on the actor, sends it to the actor's shard, or answers for an ended game. So the reads and `move`,
// `seed` and `resign` are written once, here. A small base rather than a chain: each handle adds only
// how it holds its view and where its commands go.
import type { GameRecord } from '../domain/records.js';
import type { GameState, HistoryEntry, MoveVerdict, Seat, SeatPlayer, TimeControl } from '../domain/types.js';
import { commandSpec, type CommandName, type PayloadOf, type ReplyOf } from './commands.js';
import type { GameSummary, MovesView } from './types.js';
import { isEnded, type GameView } from './view.js';

export abstract class GameHandleBase {
  /** The current record and tree (a live handle replaces it at every version). */
  protected abstract view: GameView;

  /** Any command of the table, by name (see GameHandle.command). */
  abstract command<K extends CommandName>(name: K, payload: PayloadOf<K>): Promise<ReplyOf<K>>;

  /** This handle's clock: when a move is received here. */
  protected abstract now(): number;

  get id(): string { return this.view.rec.id; }
  get white(): SeatPlayer { return this.view.rec.white; }
  get black(): SeatPlayer { return this.view.rec.black; }
  get timeControl(): TimeControl { return this.view.rec.timeControl; }
  get rated(): boolean { return this.view.rec.rated; }

  seatOf(playerId: string): Seat | null {
    const rec = this.view.rec;
    if (rec.white.id === playerId) return 'White';
    if (rec.black.id === playerId) return 'Black';
    return null;
  }

  isActive(): boolean {
    return !isEnded(this.view.rec);
  }

  /** The current record, as the store holds it. Read-only. */
  record(): GameRecord {
    return this.view.rec;
  }

  state(): GameState { return this.view.state(); }
  stateJson(): string { return this.view.stateJson(); }
  history(): HistoryEntry[] { return this.view.history(); }
  summary(): GameSummary { return this.view.summary(); }
  moves(): MovesView { return this.view.moves(); }
  movesJson(): string { return this.view.movesJson(); }

  seed(seat: Seat, seed: string): void {
    void this.command('seed', { seat, seed });
  }

  move(seat: Seat, moves: readonly string[], version?: number, creditMs?: number): Promise<MoveVerdict | 'busy'> {
    // Received now; the roll pending here is the one the mover answers (the owner's clock charges it).
    const payload: PayloadOf<'move'> = { seat, moves: [...moves], at: this.now(), rollPly: this.view.tree ? this.view.rec.ply : null };
    if (version !== undefined) payload.version = version;
    if (creditMs !== undefined && creditMs > 0) payload.credit = creditMs;
    return this.command('move', payload);
  }

  resign(seat: Seat): void {
    void this.command('resign', { seat });
  }

  playerCommand(name: string, seat: Seat, body: unknown): boolean {
    const fromRequest = commandSpec(name)?.fromRequest;
    if (!fromRequest) return false;
    void this.command(name as CommandName, fromRequest(seat, body) as PayloadOf<CommandName>);
    return true;
  }
}
