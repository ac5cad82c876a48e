// What every game handle (an actor, main's replica of a shard's game, an ended game) does with the
// players' commands: it makes each one a command of the table (commands.ts) and hands it to its own
// `command`, which runs it on the actor, sends it to the actor's shard, or answers for an ended game.
// So `move`, `seed` and `resign` are written once, here, for every kind of handle.
import type { MoveVerdict, Seat } from '../domain/types.js';
import type { CommandName, PayloadOf, ReplyOf } from './commands.js';
import { ViewedGame } from './view.js';

export abstract class CommandedGame extends ViewedGame {
  /** Any command of the table, by name (see GameHandle.command). */
  abstract command<K extends CommandName>(name: K, payload: PayloadOf<K>): Promise<ReplyOf<K>>;

  /** This handle's clock: when a move is received here. */
  protected abstract now(): number;

  seed(seat: Seat, seed: string): void {
    void this.command('seed', { seat, seed });
  }

  move(seat: Seat, moves: readonly string[], version?: number, creditMs?: number): Promise<MoveVerdict | 'busy'> {
    // Received now; the roll pending here is the one the mover answers (the owner's clock charges it).
    const payload: PayloadOf<'move'> = { seat, moves: [...moves], at: this.now(), seen: this.view.tree ? this.view.rec.ply : null };
    if (version !== undefined) payload.version = version;
    if (creditMs !== undefined && creditMs > 0) payload.credit = creditMs;
    return this.command('move', payload);
  }

  resign(seat: Seat): void {
    void this.command('resign', { seat });
  }
}
