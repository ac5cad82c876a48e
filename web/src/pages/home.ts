// The front page: play (house bots in one click, the guest lobby), the live games list (polled,
// no reload) and the TV pane following the most recent rated game, else the most recent game.
import { api, follow, seats, type Follower, type LobbySeek, type PublicGame, type SeatGrant } from '../api.js';
import { Board } from '../board.js';
import { renderDice } from '../dice.js';
import { GameModel } from '../game-model.js';
import { fullMove, parsePlacement } from '../position.js';
import { navigate } from '../router.js';
import { clockText, faceLink, faceName, GUEST_TIME_CONTROLS, h, mount, timeControlText } from '../ui.js';

const POLL_MS = 3000;

export function homePage(): () => void {
  const tcSelect = h('select', { id: 'tc', name: 'tc' },
    ...GUEST_TIME_CONTROLS.map((t, i) => h('option', { value: String(i) }, t.label)));
  const tc = () => GUEST_TIME_CONTROLS[Number(tcSelect.value)]?.tc ?? GUEST_TIME_CONTROLS[0].tc;
  const playNote = h('p', { class: 'note', role: 'status', 'aria-live': 'polite' });
  const seekList = h('ul', { class: 'seeks', 'aria-label': 'Open seeks' });
  const gameList = h('tbody', {});
  const total = h('span', {});
  const tv = h('div', { class: 'tv', 'aria-label': 'TV' });

  const start = (g: SeatGrant) => {
    seats.save(g);
    navigate(`/game/${g.gameId}`);
  };
  const fail = (e: unknown) => (playNote.textContent = `Could not start: ${(e as Error).message}`);
  const house = (name: string) => () => {
    playNote.textContent = `Starting a game against house/${name}…`;
    api.playHouse(name, tc()).then(start, fail);
  };

  let mySeek: { id: string; secret: string } | null = null;
  const openSeek = async () => {
    if (mySeek) return;
    try {
      const s = await api.openSeek(tc());
      mySeek = { id: s.seekId, secret: s.secret };
      playNote.textContent = 'Your seek is open: waiting for someone to accept it…';
      drawSeekButton();
    } catch (e) {
      fail(e);
    }
  };
  const cancelSeek = async () => {
    if (!mySeek) return;
    const s = mySeek;
    mySeek = null;
    drawSeekButton();
    playNote.textContent = 'Seek cancelled.';
    await api.cancelSeek(s.id, s.secret).catch(() => {});
  };
  const seekButton = h('span', {});
  const drawSeekButton = () =>
    seekButton.replaceChildren(mySeek
      ? h('button', { type: 'button', onclick: () => void cancelSeek() }, 'Cancel my seek')
      : h('button', { type: 'button', onclick: () => void openSeek() }, 'Open a seek'));
  drawSeekButton();

  mount('Live games',
    h('h1', {}, 'Dice chess'),
    h('p', { class: 'lead' }, 'Chess where three dice decide which pieces move. Watch bots play, or play one yourself as a guest: no account needed.'),
    h('div', { class: 'home' },
      h('section', { class: 'play', 'aria-labelledby': 'play-h' },
        h('h2', { id: 'play-h' }, 'Play'),
        h('p', {}, h('label', { for: 'tc' }, 'Time control '), tcSelect),
        h('div', { class: 'buttons' },
          h('button', { type: 'button', class: 'primary', onclick: house('random') }, 'Play house/random'),
          h('button', { type: 'button', class: 'primary', onclick: house('greedy') }, 'Play house/greedy'),
          seekButton),
        playNote,
        h('h3', {}, 'Lobby'),
        seekList),
      h('section', { class: 'tvbox', 'aria-labelledby': 'tv-h' }, h('h2', { id: 'tv-h' }, 'TV'), tv),
      h('section', { class: 'live', 'aria-labelledby': 'live-h' },
        h('h2', { id: 'live-h' }, 'Live games ', total),
        h('table', { class: 'games' },
          h('thead', {}, h('tr', {},
            h('th', { scope: 'col' }, 'White'), h('th', { scope: 'col' }, 'Black'), h('th', { scope: 'col' }, 'Time'),
            h('th', { scope: 'col' }, 'Move'), h('th', { scope: 'col' }, ''))),
          gameList))));

  const drawSeeks = (list: LobbySeek[]) => {
    const others = list.filter((s) => s.id !== mySeek?.id);
    seekList.replaceChildren(...(others.length ? others.map((s) => h('li', { 'data-seek': s.id },
      h('span', {}, `${s.kind === 'Bot' ? s.name ?? 'a bot' : 'a guest'} · ${timeControlText(s.timeControl)}`),
      h('button', { type: 'button', onclick: () => api.acceptSeek(s.id).then(start, fail) }, 'Accept'))) : [h('li', { class: 'empty' }, 'No open seeks.')]));
  };

  const rating = (g: PublicGame, side: 'white' | 'black') => {
    const r = g.rated ? g.ratings?.[side] : null;
    return r !== null && r !== undefined ? h('span', { class: 'rating' }, ` (${Math.round(r)})`) : null;
  };
  const drawGames = (games: PublicGame[], count: number) => {
    total.textContent = `(${count})`;
    gameList.replaceChildren(...(games.length ? games.map((g) => h('tr', { 'data-game': g.gameId },
      h('td', {}, faceLink(g.players.white), rating(g, 'white')),
      h('td', {}, faceLink(g.players.black), rating(g, 'black')),
      h('td', {}, timeControlText(g.timeControl), g.rated ? h('span', { class: 'badge' }, 'rated') : null),
      h('td', {}, String(fullMove(g.dfen))),
      h('td', {}, h('a', { href: `/game/${g.gameId}`, 'aria-label': `Watch ${faceName(g.players.white)} vs ${faceName(g.players.black)}` }, 'Watch'))))
      : [h('tr', {}, h('td', { colspan: 5, class: 'empty' }, 'No games are being played right now.'))]));
  };

  // TV: the first time a game is seen is when it is newest for us; on the first load, fewer events
  // (a lower version) means a more recent start.
  const firstSeen = new Map<string, number>();
  let seenTick = 0;
  let tvGame: string | null = null;
  let tvFollow: Follower | null = null;
  const pickTv = (games: PublicGame[]) => {
    seenTick++;
    const order = [...games].sort((a, b) => a.version - b.version);
    for (const g of order.reverse()) if (!firstSeen.has(g.gameId)) firstSeen.set(g.gameId, seenTick * 1e6 - g.version);
    if (tvGame && games.some((g) => g.gameId === tvGame)) return;
    const newest = (list: PublicGame[]) => list.sort((a, b) => (firstSeen.get(b.gameId) ?? 0) - (firstSeen.get(a.gameId) ?? 0))[0];
    const pick = newest(games.filter((g) => g.rated)) ?? newest([...games]);
    if (!pick) {
      if (!tvGame) tv.replaceChildren(h('p', { class: 'empty' }, 'Nothing on air. Start a game!'));
      return;
    }
    tvFollow?.stop();
    tvGame = pick.gameId;
    tvFollow = watch(tv, pick.gameId);
  };

  let stopped = false;
  const poll = async () => {
    while (!stopped) {
      try {
        const [g, s] = await Promise.all([api.games(), api.seeks()]);
        if (stopped) break;
        drawGames(g.games, g.total);
        drawSeeks(s.seeks);
        pickTv(g.games);
        if (mySeek) {
          const p = await api.pollSeek(mySeek.id, mySeek.secret);
          if (p.matched && p.gameId && p.seat && p.seatToken) {
            mySeek = null;
            return start({ gameId: p.gameId, seat: p.seat, seatToken: p.seatToken });
          }
        }
      } catch {
        // the next poll tries again
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  };
  void poll();
  return () => {
    stopped = true;
    tvFollow?.stop();
    if (mySeek) void api.cancelSeek(mySeek.id, mySeek.secret).catch(() => {});
  };
}

/** A small live view of one game: board, dice, clocks and a link. */
function watch(into: HTMLElement, gameId: string): Follower {
  const model = new GameModel();
  const board = new Board('TV board');
  const head = h('p', { class: 'tvhead' });
  const dice = h('div', {});
  into.replaceChildren(head, board.root, dice, h('a', { href: `/game/${gameId}` }, 'Open this game'));
  const drawHead = () => {
    if (!model.players) return;
    const c = model.clocksNow();
    head.replaceChildren(faceLink(model.players.white), c ? ` ${clockText(c.white)}` : '', ' vs ', faceLink(model.players.black), c ? ` ${clockText(c.black)}` : '',
      model.over ? ' · ended' : '');
  };
  const timer = setInterval(drawHead, 500);
  const f = follow(gameId, (e) => {
    model.apply(e);
    drawHead();
    board.render(parsePlacement(model.fen));
    dice.replaceChildren(renderDice(model.dicePending ? model.dice : []));
  }, () => {});
  return {
    stop() {
      clearInterval(timer);
      f.stop();
    },
  };
}
