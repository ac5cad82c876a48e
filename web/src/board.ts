// The board, drawn by us in SVG. Squares are focusable buttons with a roving tab stop: Tab reaches
// the board once, arrow keys move between squares, Enter or Space presses one. Pieces are the solid
// Unicode chess glyphs, filled per side (text presentation forced, so phones draw no emoji).
import { squareName, type Placement } from './position.js';

const SVG = 'http://www.w3.org/2000/svg';
const GLYPH: Readonly<Record<string, string>> = { k: '\u265A', q: '\u265B', r: '\u265C', b: '\u265D', n: '\u265E', p: '\u265F' };
const NAME: Readonly<Record<string, string>> = { k: 'king', q: 'queen', r: 'rook', b: 'bishop', n: 'knight', p: 'pawn' };

export interface BoardMarks {
  /** Squares a piece can be picked up from. */
  movable?: ReadonlySet<number>;
  selected?: number | null;
  /** Squares the selected piece can go to. */
  targets?: ReadonlySet<number>;
  /** Squares of the last turn's micro-moves. */
  recent?: ReadonlySet<number>;
}

function el<K extends keyof SVGElementTagNameMap>(name: K, attrs: Record<string, string | number>): SVGElementTagNameMap[K] {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
}

export class Board {
  readonly root: SVGSVGElement;
  private readonly squares: SVGGElement[] = [];
  private focusIndex = 12; // e2 until the board is flipped
  private flipped = false;
  onPress: (square: number) => void = () => {};

  constructor(label: string) {
    this.root = el('svg', { viewBox: '0 0 8 8', class: 'board', role: 'group', 'aria-label': label });
    for (let i = 0; i < 64; i++) {
      const g = el('g', { class: 'sq', role: 'button', tabindex: -1, 'data-square': squareName(i) });
      g.append(el('rect', { width: 1, height: 1, class: (i + Math.floor(i / 8)) % 2 === 0 ? 'dark' : 'light' }));
      g.append(el('rect', { width: 1, height: 1, class: 'mark' }));
      g.append(el('circle', { cx: 0.5, cy: 0.5, r: 0.16, class: 'dot' }));
      const t = el('text', { x: 0.5, y: 0.56, class: 'piece', 'text-anchor': 'middle', 'dominant-baseline': 'middle' });
      g.append(t);
      g.append(el('rect', { x: 0.04, y: 0.04, width: 0.92, height: 0.92, class: 'ring' }));
      g.addEventListener('click', () => this.press(i));
      g.addEventListener('keydown', (e) => this.key(e, i));
      this.squares.push(g);
      this.root.append(g);
    }
    this.addCoordinates();
    this.layout();
  }

  setFlipped(flipped: boolean): void {
    if (flipped === this.flipped) return;
    this.flipped = flipped;
    this.layout();
  }

  render(board: Placement, marks: BoardMarks = {}): void {
    for (let i = 0; i < 64; i++) {
      const g = this.squares[i];
      const p = board[i];
      const text = g.querySelector('text') as SVGTextElement;
      text.textContent = p ? `${GLYPH[p.toLowerCase()]}\uFE0E` : '';
      text.setAttribute('class', `piece ${p && p === p.toUpperCase() ? 'white' : 'black'}`);
      const classes = ['sq'];
      if (marks.movable?.has(i)) classes.push('movable');
      if (marks.selected === i) classes.push('selected');
      if (marks.targets?.has(i)) classes.push('target');
      if (marks.recent?.has(i)) classes.push('recent');
      g.setAttribute('class', classes.join(' '));
      const who = p ? `${p === p.toUpperCase() ? 'white' : 'black'} ${NAME[p.toLowerCase()]}` : 'empty';
      const extra = marks.selected === i ? ', selected' : marks.targets?.has(i) ? ', move here' : marks.movable?.has(i) ? ', can move' : '';
      g.setAttribute('aria-label', `${squareName(i)} ${who}${extra}`);
    }
  }

  private press(i: number): void {
    this.setFocus(i, false);
    this.onPress(i);
  }

  private key(e: KeyboardEvent, i: number): void {
    const step: Record<string, [number, number]> = {
      ArrowUp: [0, 1], ArrowDown: [0, -1], ArrowLeft: [-1, 0], ArrowRight: [1, 0],
    };
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      this.press(i);
      return;
    }
    const d = step[e.key];
    if (!d) return;
    e.preventDefault();
    const sign = this.flipped ? -1 : 1;
    const file = Math.min(7, Math.max(0, (i % 8) + d[0] * sign));
    const rank = Math.min(7, Math.max(0, Math.floor(i / 8) + d[1] * sign));
    this.setFocus(rank * 8 + file, true);
  }

  private setFocus(i: number, move: boolean): void {
    this.squares[this.focusIndex].setAttribute('tabindex', '-1');
    this.focusIndex = i;
    this.squares[i].setAttribute('tabindex', '0');
    if (move) this.squares[i].focus();
  }

  private layout(): void {
    for (let i = 0; i < 64; i++) {
      const file = i % 8;
      const rank = Math.floor(i / 8);
      const x = this.flipped ? 7 - file : file;
      const y = this.flipped ? rank : 7 - rank;
      this.squares[i].setAttribute('transform', `translate(${x} ${y})`);
    }
    this.setFocus(this.flipped ? 52 : 12, false);
    this.root.querySelectorAll('.coord').forEach((c) => c.remove());
    this.addCoordinates();
  }

  private addCoordinates(): void {
    for (let k = 0; k < 8; k++) {
      const file = el('text', { x: k + 0.96, y: 7.95, class: 'coord', 'text-anchor': 'end', 'aria-hidden': 'true' });
      file.textContent = String.fromCharCode(97 + (this.flipped ? 7 - k : k));
      const rank = el('text', { x: 0.04, y: k + 0.2, class: 'coord', 'aria-hidden': 'true' });
      rank.textContent = String(this.flipped ? k + 1 : 8 - k);
      this.root.append(file, rank);
    }
  }
}
