// Which games the bridge plays. A challenge received is accepted or declined by the `accept` filter.
// A game the server announces (GameStart, or found in the list of live games after a reconnect) is
// checked the same way once its first Snapshot shows who plays it: a game the bridge asked for itself
// (a challenge it accepted or sent, a seek, the ladder) is played; any other game must pass the
// `accept` filter as if it had been a challenge. The limits (`maxGames`, `--games`) are the bridge's
// (bridge.ts); this file only judges a game by its opponent and time control.
import type { Participant, TimeControl } from '../domain/types.js';
import type { BridgeConfig, OpponentKind } from './config.js';

/** What the first Snapshot of an announced game tells about it. */
export interface AnnouncedGame {
  players: { white: { kind: 'Bot' | 'Human'; name: string | null }; black: { kind: 'Bot' | 'Human'; name: string | null } };
  timeControl: TimeControl;
  ladder?: 'mirror' | 'single';
}

/** Kind of a challenger for the accept filter. */
export function opponentKind(p: Participant): OpponentKind {
  if ('Bot' in p) return p.Bot.team === 'anon' ? 'anonymous' : p.Bot.team === 'house' ? 'house' : 'registered';
  return 'guest';
}

/** Kind of an opponent seen in a game: a bot's public name is its team and name joined by a space. */
export function faceKind(face: { kind: 'Bot' | 'Human'; name: string | null }): OpponentKind {
  if (face.kind === 'Human') return 'guest';
  const team = face.name?.split(' ')[0];
  return team === 'anon' ? 'anonymous' : team === 'house' ? 'house' : 'registered';
}

/** Why the accept filter refuses this opponent kind and time control, or null. */
export function acceptVerdict(config: BridgeConfig, kind: OpponentKind, tc: TimeControl): string | null {
  const a = config.accept;
  if (!a.enabled) return 'this bridge accepts no challenges';
  if (!a.opponents.includes(kind)) return `${kind} opponents are not accepted`;
  return timeControlVerdict(config, tc);
}

/** Why the accept filter refuses this time control (kind and bounds), or null. */
export function timeControlVerdict(config: BridgeConfig, tc: TimeControl): string | null {
  const a = config.accept;
  const tcKind = Object.keys(tc)[0] as keyof typeof tc & string;
  if (!a.timeControls.includes(tcKind as never)) return `${tcKind} is not accepted`;
  if ('SuddenDeath' in tc || 'Fischer' in tc) {
    const initial = 'SuddenDeath' in tc ? tc.SuddenDeath.initialSeconds : tc.Fischer.initialSeconds;
    if (initial < a.minInitialSeconds || initial > a.maxInitialSeconds) return `initial time ${initial} s is outside ${a.minInitialSeconds}..${a.maxInitialSeconds}`;
  }
  if ('Fischer' in tc && tc.Fischer.incrementSeconds > a.maxIncrementSeconds) return `increment above ${a.maxIncrementSeconds} s`;
  if ('PerMove' in tc && tc.PerMove.secondsPerMove < a.minSecondsPerMove) return `under ${a.minSecondsPerMove} s a move`;
  return null;
}

/**
 * Why the allow and block lists keep this opponent away, or null. `ref` is `team/name` for a bot and
 * null for a guest (a guest is never named in the lists: an allow list keeps every guest away).
 */
export function opponentVerdict(config: BridgeConfig, ref: string | null): string | null {
  const { allow, block } = config.opponents;
  const named = (list: string[]) => ref !== null && list.some((p) => p === ref || (p.endsWith('/*') && ref.startsWith(p.slice(0, -1))));
  if (named(block)) return `opponent ${ref} is blocked`;
  if (allow !== null && !named(allow)) return `opponent ${ref ?? '(a guest)'} is not on the allow list`;
  return null;
}

/** `team/name` of a bot participant, null for a guest or user. */
export function participantRef(p: Participant): string | null {
  return 'Bot' in p ? `${p.Bot.team}/${p.Bot.name}` : null;
}

/** `team/name` of a bot's public face (its team and name joined by a space), null for a human. */
export function faceRef(face: { kind: 'Bot' | 'Human'; name: string | null }): string | null {
  return face.kind === 'Bot' && face.name ? face.name.replace(' ', '/') : null;
}

/** Why a challenge is declined, or null to accept it. */
export function challengeVerdict(config: BridgeConfig, challenger: Participant, tc: TimeControl, freeSlots: number): string | null {
  if (!config.accept.enabled) return 'this bridge accepts no challenges';
  const listed = opponentVerdict(config, participantRef(challenger));
  if (listed !== null) return listed;
  if (freeSlots <= 0) return 'no free game slot';
  return acceptVerdict(config, opponentKind(challenger), tc);
}

/** The same time control, whatever the order of its fields. */
function sameTimeControl(a: TimeControl, b: TimeControl): boolean {
  const canon = (v: unknown): string =>
    v && typeof v === 'object'
      ? `{${Object.keys(v).sort().map((k) => `${k}:${canon((v as Record<string, unknown>)[k])}`).join(',')}}`
      : JSON.stringify(v);
  return canon(a) === canon(b);
}

/**
 * Why an announced game in which this bridge holds `seat` is not played, or null to play it.
 * `askedFor`: the bridge accepted this game's challenge or saw its seek matched.
 */
export function announcedVerdict(config: BridgeConfig, game: AnnouncedGame, seat: 'White' | 'Black', askedFor: boolean): string | null {
  const opponent = seat === 'White' ? game.players.black : game.players.white;
  // A blocked opponent is not played whoever made the game: a ladder pairing or a taken seek too.
  const listed = opponentVerdict(config, faceRef(opponent));
  if (listed !== null) return listed;
  if (askedFor) return null;
  if (config.ladder.join && game.ladder) return null;
  const challenged = config.challenge.opponents.some((ref) => ref.replace('/', ' ') === opponent.name);
  if (challenged && opponent.kind === 'Bot' && sameTimeControl(game.timeControl, config.challenge.timeControl)) return null;
  if (config.seeks.count > 0 && sameTimeControl(game.timeControl, config.seeks.timeControl)) return null;
  const why = acceptVerdict(config, faceKind(opponent), game.timeControl);
  return why === null ? null : `not a game it asked for, and ${why}`;
}
