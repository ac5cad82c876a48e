// A game: live (watching, or playing a guest seat held by this tab) and, once ended, a replay
// stepped with the keyboard, and the "verify the dice" panel.
import { api, follow, HttpError, seats, type HistoryEntry, type Seat } from '../api.js';
import { Board } from '../board.js';
import { renderDice } from '../dice.js';
import { GameModel } from '../game-model.js';
import { parsePlacement, squareIndex, START_FEN } from '../position.js';
import { TurnPicker } from '../turn-picker.js';
import { clockText, faceLink, h, mount, resultText, scoreText, timeControlText } from '../ui.js';
import { verifyPanel } from './verify.js';

export function gamePage(gameId: string): () => void {
  const model = new GameModel();
  const mine = seats.get(gameId);
  const board = new Board('Game board');
  board.setFlipped(mine?.seat === 'Black');

  const names = { top: h('span', { class: 'name' }), bottom: h('span', { class: 'name' }) };
  const clocks = { top: h('span', { class: 'clock', 'data-seat': '' }), bottom: h('span', { class: 'clock', 'data-seat': '' }) };
  const status = h('p', { class: 'status', role: 'status', 'aria-live': 'polite' }, 'Connecting…');
  const link = h('span', { class: 'link' });
  const diceBox = h('div', { class: 'roll', 'aria-label': 'Current roll' });
  const controls = h('div', { class: 'controls' });
  const moveList = h('ol', { class: 'moves', 'aria-label': 'Moves' });
  const result = h('p', { class: 'result', 'aria-live': 'polite' });
  const commitment = h('p', { class: 'commit' });
  const verify = h('section', { class: 'verify', 'aria-label': 'Verify the dice' });
  const replayBar = h('div', { class: 'replay', hidden: true });
  const title = h('h1', {}, 'Game');

  mount('Game',
    title,
    h('section', { class: 'game' },
      h('div', { class: 'boardcol' },
        h('div', { class: 'player top' }, names.top, clocks.top),
        board.root,
        h('div', { class: 'player bottom' }, names.bottom, clocks.bottom),
        replayBar),
      h('div', { class: 'side' }, status, link, diceBox, controls, result,
        h('h2', {}, 'Moves'), moveList, h('h2', {}, 'Fair dice'), commitment, verify)));

  let picker: TurnPicker | null = null;
  let pickerKey = '';
  let sending = false;
  let notice = '';
  let replayAt: number | null = null;
  let verified = false;

  const mySeat: Seat | null = mine?.seat ?? null;
  const bottomSeat: Seat = mySeat ?? 'White';

  const send = async (moves: string[]): Promise<void> => {
    if (!mine) return;
    sending = true;
    notice = 'Sending your turn…';
    draw();
    try {
      const v = await api.move(gameId, moves, model.version, mine.token);
      notice = v.applied ? '' : `Refused: ${v.reason ?? 'unknown'}`;
    } catch (e) {
      notice = `Could not send: ${(e as Error).message}`;
    }
    sending = false;
    if (notice) picker = null; // start the turn again from the tree
    draw();
  };

  const ensureTree = async (): Promise<void> => {
    if (model.tree !== null || !model.dicePending) return;
    const r = await api.moves(gameId);
    if (r.version === model.version) model.tree = r.legalMoves;
    draw();
  };

  const myTurn = (): boolean => !!mySeat && !model.over && model.dicePending && model.activeSeat === mySeat && !sending;

  function draw(): void {
    if (!model.players) return;
    const topSeat: Seat = bottomSeat === 'White' ? 'Black' : 'White';
    const face = (s: Seat) => (s === 'White' ? model.players!.white : model.players!.black);
    names.top.replaceChildren(`${topSeat}: `, faceLink(face(topSeat)), mySeat === topSeat ? ' (you)' : '');
    names.bottom.replaceChildren(`${bottomSeat}: `, faceLink(face(bottomSeat)), mySeat === bottomSeat ? ' (you)' : '');
    clocks.top.dataset.seat = topSeat;
    clocks.bottom.dataset.seat = bottomSeat;
    title.textContent = `${model.players.white.name ?? 'Guest'} vs ${model.players.black.name ?? 'Guest'} · ${model.timeControl ? timeControlText(model.timeControl) : ''}`;
    tick();

    // The move list: every completed turn with its dice.
    if (moveList.children.length !== model.history.length || moveList.dataset.v !== String(model.version)) {
      moveList.replaceChildren(...model.history.map((t, i) => moveItem(t, i)));
      moveList.classList.toggle('none', model.history.length === 0);
      moveList.dataset.v = String(model.version);
      if (replayAt === null) moveList.lastElementChild?.scrollIntoView({ block: 'nearest' });
    }

    if (model.over) return drawEnded();

    const key = `${model.version}`;
    if (myTurn() && model.tree) {
      if (!picker || pickerKey !== key) {
        picker = new TurnPicker(model.tree, model.fen, (moves) => void send(moves));
        pickerKey = key;
      }
    } else if (!sending) picker = null;

    const mover = model.activeSeat === mySeat ? 'Your' : `${model.activeSeat}’s`;
    // A forced pass is played by the server at once: it is told here, never asked.
    const last = model.history[model.history.length - 1];
    const passed = last && last.moves.length === 0
      ? ` ${last.seat === mySeat ? 'You' : last.seat} had no legal move with ${last.dice.join(', ')}: forced pass.` : '';
    status.textContent = notice || ((model.dicePending
      ? `${mover} turn.`
      : model.history.length === 0 ? 'Waiting for the opening roll…' : `${model.activeSeat} to roll.`) + passed);

    const view = picker?.view();
    diceBox.replaceChildren(renderDice(model.dicePending ? model.dice : [], view?.spent ?? []));
    board.render(view ? view.board : parsePlacement(model.fen), view
      ? { movable: view.movable, selected: view.selected, targets: view.targets }
      : { recent: recentSquares(model.history) });
    drawControls(view);
  }

  function drawControls(view: ReturnType<TurnPicker['view']> | undefined): void {
    const items: Node[] = [];
    if (view) {
      if (view.promotions.length) {
        items.push(h('p', {}, 'Promote to:'), h('div', { class: 'buttons promote' }, ...view.promotions.map((m) =>
          h('button', { type: 'button', 'data-uci': m, onclick: () => { picker?.play(m); draw(); } }, m.slice(4).toUpperCase()))));
      }
      items.push(h('p', { class: 'path' }, view.path.length ? `This turn: ${view.path.join(' ')}` : 'Pick a piece, then its square, or choose below.'));
      items.push(h('div', { class: 'buttons options', 'aria-label': 'Legal micro-moves' }, ...view.options.map((m) =>
        h('button', { type: 'button', class: 'uci', 'data-uci': m, onclick: () => { picker?.play(m); draw(); } }, m))));
      if (view.path.length) items.push(h('button', { type: 'button', onclick: () => { picker?.undo(); draw(); } }, 'Undo micro-move'));
    }
    if (mySeat && !model.over) {
      items.push(h('button', {
        type: 'button', class: 'danger',
        onclick: () => { if (confirm('Resign this game?')) void api.resign(gameId, mine!.token); },
      }, 'Resign'));
    }
    controls.replaceChildren(...items);
  }

  function drawEnded(): void {
    picker = null;
    controls.replaceChildren();
    result.textContent = model.over ? `${scoreText(model.over)} · ${resultText(model.over)}` : '';
    status.textContent = 'Game over.';
    replayBar.hidden = false;
    const n = model.history.length;
    const at = replayAt ?? n;
    const fen = at === 0 ? START_FEN : model.history[at - 1].fenAfter;
    board.render(parsePlacement(fen), { recent: recentSquares(model.history.slice(0, at)) });
    diceBox.replaceChildren(renderDice(at > 0 ? model.history[at - 1].dice : []));
    const step = (to: number) => { replayAt = Math.max(0, Math.min(n, to)); draw(); };
    replayBar.replaceChildren(
      h('button', { type: 'button', onclick: () => step(0), 'aria-label': 'First position' }, '«'),
      h('button', { type: 'button', onclick: () => step(at - 1), 'aria-label': 'Previous turn' }, '◀'),
      h('span', { class: 'at', 'aria-live': 'polite' }, `Turn ${at} of ${n}`),
      h('button', { type: 'button', onclick: () => step(at + 1), 'aria-label': 'Next turn' }, '▶'),
      h('button', { type: 'button', onclick: () => step(n), 'aria-label': 'Last position' }, '»'),
      h('small', {}, 'Keys: ← → Home End'),
    );
    for (const li of moveList.children) li.classList.toggle('current', Number((li as HTMLElement).dataset.turn) === at);
    if (!verified && model.seed) {
      verified = true;
      void verifyPanel(gameId, verify);
    }
  }

  function moveItem(t: HistoryEntry, i: number): HTMLElement {
    return h('li', { 'data-turn': i + 1, 'data-moves': t.moves.join(' '), 'data-dice': t.dice.join(' ') },
      h('button', { type: 'button', class: 'jump', tabindex: model.over ? 0 : -1, onclick: () => { if (model.over) { replayAt = i + 1; draw(); } } },
        h('span', { class: `seat ${t.seat.toLowerCase()}` }, t.seat === 'White' ? 'W' : 'B'),
        h('span', { class: 'mini-dice', title: 'dice' }, t.dice.join('·')),
        h('span', { class: 'uci-list' }, t.moves.length ? t.moves.join(' ') : 'pass')));
  }

  function tick(): void {
    const c = model.clocksNow();
    for (const el of [clocks.top, clocks.bottom]) {
      const seat = el.dataset.seat as Seat;
      el.textContent = c ? clockText(seat === 'White' ? c.white : c.black) : '∞';
      el.classList.toggle('running', !model.over && model.dicePending && model.activeSeat === seat);
    }
  }

  commitment.replaceChildren('Loading the commitment…');
  const showCommit = () => {
    commitment.replaceChildren(
      h('span', {}, 'Commitment (SHA-256 of the server seed): '), h('code', {}, model.commit || '…'),
      model.seed ? h('span', {}, h('br'), 'Revealed seed: ', h('code', {}, model.seed)) : h('span', {}, h('br'), 'The seed is revealed when the game ends.'));
  };

  const onKey = (e: KeyboardEvent) => {
    if (!model.over || (e.target as HTMLElement | null)?.closest('input,select,textarea')) return;
    const n = model.history.length;
    const at = replayAt ?? n;
    const to = e.key === 'ArrowLeft' ? at - 1 : e.key === 'ArrowRight' ? at + 1 : e.key === 'Home' ? 0 : e.key === 'End' ? n : null;
    if (to === null || (e.target as HTMLElement | null)?.closest('.board')) return;
    e.preventDefault();
    replayAt = Math.max(0, Math.min(n, to));
    draw();
  };
  document.addEventListener('keydown', onKey);

  board.onPress = (sq) => {
    if (!picker) return;
    picker.press(sq);
    draw();
  };

  let seeded = false;
  const follower = follow(gameId, (e) => {
    model.apply(e);
    if ('Snapshot' in e || 'GameEnded' in e) showCommit();
    if ('Rejected' in e && e.Rejected.seat === mySeat) notice = `Refused: ${e.Rejected.reason}`;
    if ('DiceRolled' in e || 'TurnPlayed' in e) notice = '';
    if (mine && !seeded && !model.over && model.history.length === 0 && !model.dicePending) {
      // Our own contribution to the dice (it also starts the game without the seed grace).
      seeded = true;
      const bytes = crypto.getRandomValues(new Uint8Array(16));
      void api.seed(gameId, [...bytes].map((b) => b.toString(16).padStart(2, '0')).join(''), mine.token).catch(() => {});
    }
    void ensureTree();
    if (model.unsureTurn !== null) {
      // A turn whose roll we only saw sorted: take its dice, in roll order, from the transcript.
      const i = model.unsureTurn;
      model.unsureTurn = null;
      void api.history(gameId).then((g) => {
        const turn = g.history[i];
        if (turn && model.history[i]) model.history[i].dice = turn.dice;
        moveList.dataset.v = '';
        draw();
      }, () => {});
    }
    draw();
  }, (up) => {
    link.textContent = up ? '' : 'Connection lost; reconnecting…';
  });
  api.game(gameId).catch((e: unknown) => {
    if (e instanceof HttpError && e.status === 404) status.textContent = 'There is no game with this id.';
  });
  const timer = setInterval(tick, 200);
  return () => {
    follower.stop();
    clearInterval(timer);
    document.removeEventListener('keydown', onKey);
  };
}

function recentSquares(history: readonly HistoryEntry[]): Set<number> {
  const last = history[history.length - 1];
  const out = new Set<number>();
  for (const m of last?.moves ?? []) {
    out.add(squareIndex(m.slice(0, 2)));
    out.add(squareIndex(m.slice(2, 4)));
  }
  return out;
}

