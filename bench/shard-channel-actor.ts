// The shard side of the `channel` benchmark, shared by every channel under test: the message
// shapes, a stand-in game actor (state kept across batches, two event lines and a record patch per
// command, made with JSON.stringify as a real actor would), and the thread CPU clock.
import { readFileSync } from 'node:fs';

/** main → shard: one move submission. */
export interface Command {
  gameId: string;
  seat: 'white' | 'black';
  moves: string[];
  /** The main thread's performance.now() at sending; echoed back so latency uses one clock. */
  at: number;
}

/** shard → main: what one command produced. */
export interface Entry {
  gameId: string;
  /** Pre-encoded ndjson lines for the stream subscribers (about 200 and 330 bytes): strings, or
   * their UTF-8 bytes with BENCH_CHANNEL_LINES=bytes. */
  lines: string[] | Uint8Array[];
  patch: { version: number; status: string; clocks: { white: number; black: number }; lastMoveAt: number };
  verdict: { accepted: boolean; ply: number };
  at: number;
}

/** Control messages, outside the measured traffic. */
export type Control = { ctl: 'cpu' } | { ctl: 'port'; port: import('node:worker_threads').MessagePort };

/** On-CPU nanoseconds of the calling thread (first field of /proc/thread-self/schedstat); NaN
 * where the file does not exist. Read synchronously: an async read would run on a libuv thread. */
export function threadCpuNs(): number {
  try {
    return Number(readFileSync('/proc/thread-self/schedstat', 'latin1').split(' ', 1)[0]);
  } catch {
    return NaN;
  }
}

interface GameState {
  ply: number;
  white: number;
  black: number;
}

const DFEN = 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1';
const DICE_FACES = ['pawn', 'knight', 'bishop', 'rook', 'queen', 'king'];
/** Worker threads inherit the environment, so every thread reads the same choice. */
const AS_BYTES = process.env.BENCH_CHANNEL_LINES === 'bytes';
const utf8 = new TextEncoder();

/** The actors of one shard: a map of games that lives as long as the worker. */
export class StandInShard {
  private readonly games = new Map<string, GameState>();

  handle(cmds: Command[]): Entry[] {
    const out: Entry[] = new Array(cmds.length);
    for (let i = 0; i < cmds.length; i++) out[i] = this.one(cmds[i]);
    return out;
  }

  private one(c: Command): Entry {
    let g = this.games.get(c.gameId);
    if (!g) {
      g = { ply: 0, white: 60_000, black: 60_000 };
      this.games.set(c.gameId, g);
    }
    g.ply++;
    if (c.seat === 'white') g.white -= 137;
    else g.black -= 141;
    const ply = g.ply;
    const played = JSON.stringify({
      type: 'TurnPlayed', gameId: c.gameId, ply, seat: c.seat, moves: c.moves,
      clocks: { white: g.white, black: g.black }, at: Math.round(c.at), dfen: DFEN,
    });
    const rolled = JSON.stringify({
      type: 'DiceRolled', gameId: c.gameId, ply: ply + 1, seat: c.seat === 'white' ? 'black' : 'white',
      dice: [DICE_FACES[ply % 6], DICE_FACES[(ply + 2) % 6], DICE_FACES[(ply * 5 + 1) % 6]],
      legal: { count: 20 + (ply % 40), firstDie: ['a7a6', 'b7b6', 'g8f6', 'b8c6', 'g8h6', 'b8a6'] }, dfen: DFEN,
      clocks: { white: g.white, black: g.black }, deadline: Math.round(c.at) + 60_000,
    });
    return {
      gameId: c.gameId,
      lines: AS_BYTES ? [utf8.encode(played + '\n'), utf8.encode(rolled + '\n')] : [played + '\n', rolled + '\n'],
      patch: { version: ply, status: 'started', clocks: { white: g.white, black: g.black }, lastMoveAt: c.at },
      verdict: { accepted: true, ply },
      at: c.at,
    };
  }
}
