// The legal-move tree drives the guest's hand: only its keys can be played, one micro-move at a
// time. Picking a piece then a target walks one edge; a promotion with several suffixes asks which
// piece; a complete root-to-leaf path is handed to `onComplete` to be sent as the turn.
import type { Tree } from './api.js';
import { applyUci, facesSpent, parsePlacement, squareIndex, type Placement } from './position.js';

export interface PickerView {
  board: Placement;
  movable: Set<number>;
  selected: number | null;
  targets: Set<number>;
  /** Micro-moves playable now (for the keyboard list). */
  options: string[];
  /** Faces spent by the path so far (used dice). */
  spent: number[];
  path: string[];
  /** Promotion choices waiting for an answer, when a target had several suffixes. */
  promotions: string[];
}

export class TurnPicker {
  private path: string[] = [];
  private node: Tree;
  private boards: Placement[];
  private spentFaces: number[][] = [];
  private selected: number | null = null;
  private promotions: string[] = [];

  constructor(
    private readonly root: Tree,
    fen: string,
    private readonly onComplete: (moves: string[]) => void,
  ) {
    this.node = root;
    this.boards = [parsePlacement(fen)];
  }

  view(): PickerView {
    const options = Object.keys(this.node).sort();
    const movable = new Set(options.map((m) => squareIndex(m.slice(0, 2))));
    const targets = new Set<number>();
    if (this.selected !== null) {
      for (const m of options) if (squareIndex(m.slice(0, 2)) === this.selected) targets.add(squareIndex(m.slice(2, 4)));
    }
    return {
      board: this.boards[this.boards.length - 1],
      movable, selected: this.selected, targets, options,
      spent: this.spentFaces.flat(), path: this.path.slice(), promotions: this.promotions.slice(),
    };
  }

  /** A square was pressed: select a movable piece, or move the selected one there. */
  press(square: number): void {
    const options = Object.keys(this.node);
    this.promotions = [];
    if (this.selected !== null && square !== this.selected) {
      const moves = options.filter((m) => squareIndex(m.slice(0, 2)) === this.selected && squareIndex(m.slice(2, 4)) === square);
      if (moves.length === 1) return this.play(moves[0]);
      if (moves.length > 1) {
        this.promotions = moves.sort();
        return;
      }
    }
    const fromHere = options.some((m) => squareIndex(m.slice(0, 2)) === square);
    this.selected = fromHere && this.selected !== square ? square : null;
  }

  /** Plays one micro-move of the current node (ignored unless it is one). */
  play(uci: string): void {
    const next = this.node[uci];
    if (!next) return;
    const board = this.boards[this.boards.length - 1];
    this.spentFaces.push(facesSpent(board, uci));
    this.boards.push(applyUci(board, uci));
    this.path.push(uci);
    this.node = next;
    this.selected = null;
    this.promotions = [];
    if (Object.keys(next).length === 0) this.onComplete(this.path.slice());
  }

  /** Takes back the last micro-move of the unfinished turn. */
  undo(): void {
    if (this.path.length === 0) return;
    this.path.pop();
    this.boards.pop();
    this.spentFaces.pop();
    let n = this.root;
    for (const m of this.path) n = n[m];
    this.node = n;
    this.selected = null;
    this.promotions = [];
  }
}
