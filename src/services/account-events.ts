// What the account stream says of a game, seat by seat: GameStart when it starts (or, on connect,
// while it is live) and GameFinish when it ends. Both name the bot's seat and its opponent, so a bot
// can act on the line without first reading the game.
import type { AccountEvent, Opponent, Seat, SeatPlayer } from '../domain/types.js';
import type { GameRecord } from '../domain/records.js';
import type { GameHandle } from '../game/types.js';

/** A bot is named by its external id; a human guest by its face only (its id is nobody else's business). */
export function opponentOf(p: SeatPlayer): Opponent {
  return { id: 'Bot' in p.participant ? p.id : null, kind: p.face.kind, name: p.face.name };
}

const other = (seat: Seat): Seat => (seat === 'White' ? 'Black' : 'White');
const playerOn = (g: { white: SeatPlayer; black: SeatPlayer }, seat: Seat): SeatPlayer => (seat === 'White' ? g.white : g.black);

/** The GameStart line for the player on `seat`. */
export function gameStartEvent(game: GameHandle, seat: Seat): AccountEvent {
  const controls = game.record().timeControls;
  return {
    GameStart: {
      gameId: game.id,
      color: seat,
      opponent: opponentOf(playerOn(game, other(seat))),
      timeControl: game.timeControl,
      ...(controls ? { timeControls: controls } : {}),
      rated: game.rated,
    },
  };
}

/** The GameFinish line for the player on `seat`, or null for a record that has not ended. */
export function gameFinishEvent(rec: GameRecord, seat: Seat): AccountEvent | null {
  if (!('Ended' in rec.status)) return null;
  return { GameFinish: { gameId: rec.id, color: seat, opponent: opponentOf(playerOn(rec, other(seat))), over: rec.status.Ended.over } };
}

/** Each seat's player with its own line (one player in both seats gets the White one only). */
export function perSeat(g: { white: SeatPlayer; black: SeatPlayer }, line: (seat: Seat) => AccountEvent | null): [string, AccountEvent][] {
  const out: [string, AccountEvent][] = [];
  const w = line('White');
  if (w) out.push([g.white.id, w]);
  if (g.black.id !== g.white.id) {
    const b = line('Black');
    if (b) out.push([g.black.id, b]);
  }
  return out;
}
