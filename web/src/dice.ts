// The dice of a roll, drawn as SVG faces with pips and the piece each face moves; the dice the
// mover has already spent on micro-moves are marked used.
const SVG = 'http://www.w3.org/2000/svg';
const PIECE = ['', 'pawn', 'knight', 'bishop', 'rook', 'queen', 'king'];
const PIPS: readonly (readonly [number, number])[][] = [
  [],
  [[2, 2]],
  [[1, 1], [3, 3]],
  [[1, 1], [2, 2], [3, 3]],
  [[1, 1], [3, 1], [1, 3], [3, 3]],
  [[1, 1], [3, 1], [2, 2], [1, 3], [3, 3]],
  [[1, 1], [3, 1], [1, 2], [3, 2], [1, 3], [3, 3]],
];

/** Which of `dice` are spent by these faces (each spent face marks one unmarked die of that value). */
export function usedMask(dice: readonly number[], spent: readonly number[]): boolean[] {
  const used = dice.map(() => false);
  for (const f of spent) {
    const i = dice.findIndex((d, k) => d === f && !used[k]);
    if (i >= 0) used[i] = true;
  }
  return used;
}

export function renderDice(dice: readonly number[], spent: readonly number[] = []): HTMLElement {
  const box = document.createElement('div');
  box.className = 'dice';
  const used = usedMask(dice, spent);
  dice.forEach((d, i) => {
    const fig = document.createElement('span');
    fig.className = used[i] ? 'die used' : 'die';
    fig.setAttribute('role', 'img');
    fig.setAttribute('aria-label', `${d} (${PIECE[d]})${used[i] ? ', used' : ''}`);
    fig.dataset.face = String(d);
    const svg = document.createElementNS(SVG, 'svg');
    svg.setAttribute('viewBox', '0 0 4 4');
    const face = document.createElementNS(SVG, 'rect');
    for (const [k, v] of Object.entries({ x: 0.1, y: 0.1, width: 3.8, height: 3.8, rx: 0.6, class: 'face' })) face.setAttribute(k, String(v));
    svg.append(face);
    for (const [x, y] of PIPS[d] ?? []) {
      const pip = document.createElementNS(SVG, 'circle');
      pip.setAttribute('cx', String(x));
      pip.setAttribute('cy', String(y));
      pip.setAttribute('r', '0.38');
      pip.setAttribute('class', 'pip');
      svg.append(pip);
    }
    const label = document.createElement('small');
    label.textContent = PIECE[d];
    fig.append(svg, label);
    box.append(fig);
  });
  return box;
}
