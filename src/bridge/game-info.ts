// The engine's gameStarted message: what a bot author needs to plan a game (its seat, the opponent,
// each side's time control, whether the game is rated, a ladder game or part of an event), all read
// from what the server already says: the game's first Snapshot, and for the event the caller's
// events (GET /bot/events) and their pairs (GET /events/{id}), since a game's state does not name
// its event. Rated follows the server's rules: ladder games are rated; an event's games are when the
// event is, except those against a house bot; challenges, seeks and house games never are.
import type { Client } from '../client/index.js';
import type { GameState, Seat, TimeControl } from '../domain/types.js';
import { faceKind, faceRef } from './admit.js';
import type { OpponentKind } from './config.js';

/** A side's clock in the units of the turn message. */
export interface SeatClock {
  kind: 'Unlimited' | 'SuddenDeath' | 'Fischer' | 'PerMove';
  /** The bank at the start (a PerMove game: the budget of every turn); null when Unlimited. */
  initialMs: number | null;
  incrementMs: number;
}

export interface EventInfo {
  id: string;
  name: string;
  format: string;
  rated: boolean;
}

export interface GameStartedMessage {
  type: 'gameStarted';
  gameId: string;
  seat: Seat | null;
  opponent: { kind: 'Bot' | 'Human'; name: string | null; ref: string | null; category: OpponentKind };
  timeControl: TimeControl;
  timeControls: { white: TimeControl; black: TimeControl };
  clock: { white: SeatClock; black: SeatClock };
  rated: boolean;
  ladder: 'mirror' | 'single' | null;
  event: { id: string; name: string; format: string } | null;
}

export function seatClock(tc: TimeControl): SeatClock {
  if ('Fischer' in tc) return { kind: 'Fischer', initialMs: tc.Fischer.initialSeconds * 1000, incrementMs: tc.Fischer.incrementSeconds * 1000 };
  if ('SuddenDeath' in tc) return { kind: 'SuddenDeath', initialMs: tc.SuddenDeath.initialSeconds * 1000, incrementMs: 0 };
  if ('PerMove' in tc) return { kind: 'PerMove', initialMs: tc.PerMove.secondsPerMove * 1000, incrementMs: 0 };
  return { kind: 'Unlimited', initialMs: null, incrementMs: 0 };
}

export function gameStartedMessage(gameId: string, seat: Seat | null, state: GameState, event: EventInfo | null): GameStartedMessage {
  const face = seat === 'Black' ? state.players.white : state.players.black;
  const controls = state.timeControls ?? { white: state.timeControl, black: state.timeControl };
  const category = faceKind(face);
  const ladder = state.ladder ?? null;
  return {
    type: 'gameStarted',
    gameId,
    seat,
    opponent: { kind: face.kind, name: face.name, ref: faceRef(face), category },
    timeControl: seat === 'Black' ? controls.black : controls.white,
    timeControls: controls,
    clock: { white: seatClock(controls.white), black: seatClock(controls.black) },
    rated: ladder !== null || (event !== null && event.rated && category !== 'house'),
    ladder,
    event: event && { id: event.id, name: event.name, format: event.format },
  };
}

/** Events looked through for one game at most (the newest the caller plays in). */
const EVENTS_SEARCHED = 10;
const LIVE = new Set(['running', 'paused', 'cancelling']);

/**
 * The event a game belongs to, among the running events the caller accepted; null when none lists
 * it. A pair's games are stored in its event just after they are created, so a game not yet listed
 * is looked for once more after a moment.
 */
export async function findEvent(client: Client, gameId: string, wait: (ms: number) => Promise<void>): Promise<EventInfo | null> {
  for (let attempt = 0; attempt < 2; attempt++) {
    if (attempt > 0) await wait(200);
    const mine = await client.myEvents();
    if (!mine.ok) return null;
    const live = mine.value.events.filter((e) => e.invitation === 'accepted' && LIVE.has(e.state)).slice(0, EVENTS_SEARCHED);
    if (live.length === 0) return null;
    for (const summary of live) {
      const ev = await client.getEvent(summary.eventId);
      if (!ev.ok) continue;
      const listed = ev.value.pairs.some((p) => p.games?.includes(gameId) || p.replays?.some((r) => r.games.includes(gameId)));
      if (listed) return { id: ev.value.eventId, name: ev.value.name, format: ev.value.format, rated: ev.value.rated };
    }
  }
  return null;
}
