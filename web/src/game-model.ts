// One game as the page knows it, folded from the public stream's events: the position, the pending
// roll and its legal-move tree, both clocks (ticking locally between events), the transcript and
// the end. Pure state; the page draws it.
import type { ClientSeeds, Clocks, GameEvent, GameOver, HistoryEntry, Players, Seat, TimeControl, Tree } from './api.js';
import { diceOfDfen } from './position.js';

export class GameModel {
  players: Players | null = null;
  timeControl: TimeControl | null = null;
  commit = '';
  seed: string | null = null;
  clientSeeds: ClientSeeds | null = null;
  over: GameOver | null = null;
  history: HistoryEntry[] = [];
  /** Current position (a DFEN with the dice while a roll is pending). */
  fen = '';
  activeSeat: Seat = 'White';
  dicePending = false;
  /** The pending roll in roll order. */
  dice: number[] = [];
  /** Legal-move tree of the pending roll; null when unknown (too large: fetch it). */
  tree: Tree | null = null;
  version = 0;
  private clocks: Clocks | null = null;
  private clocksAt = 0;
  /** The pending roll came from a Snapshot's DFEN, which sorts the dice: its roll order is unknown. */
  private diceSorted = false;
  /** Index of a history entry whose dice are in DFEN order, to be corrected from the transcript. */
  unsureTurn: number | null = null;

  constructor(private readonly now: () => number = () => performance.now()) {}

  apply(e: GameEvent): void {
    if ('Snapshot' in e) {
      const s = e.Snapshot.state;
      this.players = s.players;
      this.timeControl = s.timeControl;
      this.commit = s.commit;
      this.seed = s.seed;
      this.clientSeeds = s.clientSeeds;
      this.over = 'Ended' in s.status ? s.status.Ended.over : null;
      this.history = e.Snapshot.history.slice();
      this.fen = s.dfen;
      this.activeSeat = s.activeSeat;
      this.dicePending = s.dicePending;
      this.dice = s.dicePending ? diceOfDfen(s.dfen) : [];
      this.diceSorted = s.dicePending;
      this.tree = s.dicePending ? s.legalMoves : null;
      this.version = e.Snapshot.v;
      this.setClocks(s.clocks);
    } else if ('DiceRolled' in e) {
      const d = e.DiceRolled;
      this.version = d.v;
      this.activeSeat = d.seat;
      this.dicePending = true;
      this.dice = d.dice.slice();
      this.diceSorted = false;
      this.fen = d.dfen;
      this.tree = d.legalMoves;
      this.setClocks(d.clocks);
    } else if ('TurnPlayed' in e) {
      const t = e.TurnPlayed;
      this.version = t.v;
      this.clocks = this.clocksNow();
      this.clocksAt = this.now();
      this.history.push({ seat: t.seat, dice: this.dice.slice(), moves: t.moves, fenAfter: t.fenAfter });
      if (this.diceSorted) this.unsureTurn = this.history.length - 1;
      this.diceSorted = false;
      this.fen = t.fenAfter;
      this.dicePending = false;
      this.tree = null;
      this.activeSeat = t.seat === 'White' ? 'Black' : 'White';
    } else if ('GameEnded' in e) {
      const g = e.GameEnded;
      this.version = g.v;
      this.clocks = this.clocksNow();
      this.over = g.over;
      this.seed = g.seed;
      this.clientSeeds = g.clientSeeds;
      this.dicePending = false;
      this.tree = null;
    }
  }

  /** Remaining time of both sides now: the mover's clock runs while its roll is pending. */
  clocksNow(): Clocks | null {
    if (!this.clocks) return null;
    if (this.over || !this.dicePending) return { ...this.clocks };
    const spent = this.now() - this.clocksAt;
    const c = { ...this.clocks };
    if (this.activeSeat === 'White') c.white = Math.max(0, c.white - spent);
    else c.black = Math.max(0, c.black - spent);
    return c;
  }

  private setClocks(c: Clocks | null): void {
    this.clocks = c ? { ...c } : null;
    this.clocksAt = this.now();
  }
}
