// A read-only handle over an ended game's final record (from the store or the archive), so the edge
// serves a finished game through the same GameHandle calls as a live one. Its reads are the same
// GameView the live actor uses, over the final record.
import type { GameRecord } from '../domain/records.js';
import type { EventFrame, GameHandle } from './types.js';
import { GameView } from './view.js';
import { GameHandleBase } from './handle-base.js';
import { commandSpec, type CommandName, type PayloadOf, type ReplyOf } from './commands.js';

export class EndedGame extends GameHandleBase implements GameHandle {
  protected readonly view: GameView;

  constructor(rec: GameRecord) {
    super();
    this.view = GameView.ofRecord(rec);
  }

  protected now(): number {
    return 0;
  }

  command<K extends CommandName>(name: K, _payload?: PayloadOf<K>): Promise<ReplyOf<K>> {
    const spec = commandSpec(name);
    if (spec === undefined) return Promise.reject(new Error(`unknown game command ${name}`));
    return Promise.resolve(spec.over as ReplyOf<K>);
  }

  subscribe(): { snapshot: EventFrame; ended: EventFrame | null; unsubscribe(): void } {
    return { snapshot: this.view.snapshotFrame(), ended: this.view.endedFrame(), unsubscribe: () => {} };
  }
}
