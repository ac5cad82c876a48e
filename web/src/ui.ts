// Small DOM helpers and the words the pages share (faces, time controls, results, clocks).
import type { Face, GameOver, Seat, TimeControl } from './api.js';

type Child = Node | string | null | undefined | false;

/** An element with attributes (`on*` functions become listeners) and children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K, attrs: Record<string, unknown> = {}, ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') node.addEventListener(k.slice(2), v as EventListener);
    else if (k === 'class') node.className = String(v);
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children) if (c !== null && c !== undefined && c !== false) node.append(c);
  return node;
}

export const faceName = (f: Face): string => (f.kind === 'Bot' ? (f.name ?? 'a bot') : 'a guest');

/** A link to a bot's profile when the face is a registered-looking bot, else its plain name. */
export function faceLink(f: Face): Node {
  if (f.kind === 'Bot' && f.name) {
    const [team, name] = f.name.split(' ');
    if (team && name && team !== 'anon' && team !== 'house') {
      return h('a', { href: `/bot/${encodeURIComponent(team)}/${encodeURIComponent(name)}` }, f.name);
    }
    return document.createTextNode(f.name);
  }
  return document.createTextNode(faceName(f));
}

export function timeControlText(tc: TimeControl): string {
  if ('Unlimited' in tc) return 'Unlimited';
  if ('SuddenDeath' in tc) return `${tc.SuddenDeath.initialSeconds / 60} min`;
  if ('Fischer' in tc) return `${tc.Fischer.initialSeconds / 60}+${tc.Fischer.incrementSeconds}`;
  return `${tc.PerMove.secondsPerMove} s/move`;
}

export function resultText(over: GameOver): string {
  const why: Record<string, string> = {
    KingCaptured: 'king captured', Resign: 'resignation', Draw: 'draw rule', Aborted: 'aborted', Timeout: 'time out',
  };
  const r = over.result;
  const head = 'Win' in r ? `${r.Win.side} wins` : 'Draw';
  return `${head} (${why[over.termination] ?? over.termination})`;
}

export function scoreText(over: GameOver): string {
  const r = over.result;
  return 'Win' in r ? (r.Win.side === 'White' ? '1–0' : '0–1') : '½–½';
}

export function clockText(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  const m = Math.floor(s / 60);
  return m >= 60 ? `${Math.floor(m / 60)}:${String(m % 60).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}` : `${m}:${String(s % 60).padStart(2, '0')}`;
}

export const other = (s: Seat): Seat => (s === 'White' ? 'Black' : 'White');

/** Replaces the page content and moves focus to it (screen readers hear the new page). */
export function mount(title: string, ...children: Child[]): HTMLElement {
  const main = document.getElementById('main') as HTMLElement;
  main.replaceChildren(...children.filter((c): c is Node | string => !!c));
  document.title = `${title} · dicechess`;
  return main;
}

/** The time controls offered to guests. */
export const GUEST_TIME_CONTROLS: readonly { label: string; tc: TimeControl }[] = [
  { label: '5+3', tc: { Fischer: { initialSeconds: 300, incrementSeconds: 3 } } },
  { label: '10+10', tc: { Fischer: { initialSeconds: 600, incrementSeconds: 10 } } },
  { label: '3+2', tc: { Fischer: { initialSeconds: 180, incrementSeconds: 2 } } },
  { label: 'Unlimited', tc: { Unlimited: {} } },
];
