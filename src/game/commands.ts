// The commands a game accepts from its players, declared once: each name's payload, its reply, and
// what it needs of the game's owner (CommandTarget, which the actor implements). Everything between a
// caller and the owner (GameHandle.command, a replica on the main thread, the shard protocol's one
// `game` message, any transport) carries a command by its name without knowing it, so a new command
// is added here and in the actor (and its route), and nowhere else. docs/ARCHITECTURE.md, "Adding a
// game command". The table names no actor class: it depends only on CommandTarget, so the actor may
// import the table without a cycle.
import type { GameRecord } from '../domain/records.js';
import type { MoveVerdict, Seat } from '../domain/types.js';
import { GAME_OVER } from '../domain/rules.js';

/**
 * Name → payload and reply of every game command. Payloads and replies are plain data (they cross
 * threads and, later, machines). An interface, so a test can declare a command of its own by merging
 * into it (`declare module …/game/commands.js`) and `defineCommand` its handler.
 */
export interface GameCommandMap {
  /**
   * A turn. `at`: when the caller received it (information only: the owner's clock charges the
   * mover); `rollPly`: the ply of the roll pending where it was received (null: none); `version` and
   * `credit`: see GameHandle.move.
   */
  move: {
    payload: { seat: Seat; moves: string[]; at: number; rollPly: number | null; version?: number; credit?: number };
    reply: MoveVerdict | 'busy';
  };
  /** A seat's client seed (the first valid one before the opening roll counts). */
  seed: { payload: { seat: Seat; seed: string }; reply: null };
  /** A seat resigns. */
  resign: { payload: { seat: Seat }; reply: null };
}

export type CommandName = keyof GameCommandMap & string;
export type PayloadOf<K extends CommandName> = GameCommandMap[K]['payload'];
export type ReplyOf<K extends CommandName> = GameCommandMap[K]['reply'];

/**
 * What the commands need of the game's owner (GameActor implements it): the handler of each command,
 * and the game's current record for a command that answers from it. A new command that needs more
 * adds its handler here.
 */
export interface CommandTarget {
  readonly id: string;
  /** The current record, as the store holds it. Read-only. */
  record(): GameRecord;
  /** `move`: queued, answered with the verdict (`at`: when it reached the owner, on the owner's clock). */
  moveAt(seat: Seat, moves: readonly string[], at: number, rollPly: number | null, version?: number, creditMs?: number): Promise<MoveVerdict | 'busy'>;
  /** `seed`: queued, answered at once. */
  takeSeed(seat: Seat, seed: string): void;
  /** `resign`: queued (never dropped), answered at once. */
  takeResign(seat: Seat): void;
}

export interface CommandSpec<K extends CommandName> {
  /** Runs on the game's owner; `now` is the owner's clock (the one that decides the game's time). */
  run(actor: CommandTarget, payload: PayloadOf<K>, now: number): Promise<ReplyOf<K>> | ReplyOf<K>;
  /** The answer for a game that has ended, given where the command was made, without asking the owner. */
  over: ReplyOf<K>;
  /** The answer when none can be had: the owner does not hold the game, is lost, or did not answer in time. */
  lost: ReplyOf<K>;
  /**
   * A command sent by its own route (the route catalogue's `command`): its payload from the caller's
   * seat and the request's body, as the route's schema parsed it.
   */
  fromRequest?(seat: Seat, body: unknown): PayloadOf<K>;
}

const specs = new Map<string, CommandSpec<CommandName>>();

/** Registers the handler of a command declared in GameCommandMap (once per name). */
export function defineCommand<K extends CommandName>(name: K, spec: CommandSpec<K>): void {
  if (specs.has(name)) throw new Error(`game command ${name} is defined twice`);
  specs.set(name, spec as unknown as CommandSpec<CommandName>);
}

/** The handler of a command by name (undefined: not defined in this thread). */
export function commandSpec(name: string): CommandSpec<CommandName> | undefined {
  return specs.get(name);
}

/** Runs a command on its owner's actor: the reply, or the command's `lost` answer if it throws. */
export async function runCommand(actor: CommandTarget, name: string, payload: unknown, now: number): Promise<unknown> {
  const spec = specs.get(name);
  if (spec === undefined) throw new Error(`unknown game command ${name}`);
  try {
    return await spec.run(actor, payload as PayloadOf<CommandName>, now);
  } catch {
    return spec.lost;
  }
}

defineCommand('move', {
  run: (actor, p, now) => actor.moveAt(p.seat, p.moves, now, p.rollPly, p.version, p.credit ?? 0),
  over: GAME_OVER,
  lost: 'busy',
});

defineCommand('seed', {
  run: (actor, p) => {
    actor.takeSeed(p.seat, p.seed);
    return null;
  },
  over: null,
  lost: null,
});

defineCommand('resign', {
  run: (actor, p) => {
    actor.takeResign(p.seat);
    return null;
  },
  over: null,
  lost: null,
  fromRequest: (seat) => ({ seat }),
});
