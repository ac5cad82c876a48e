// Shared set-up for the game-actor tests: a registry on a ManualClock and a memory store; scripted players; a subscriber that records frames; seeds chosen so the opening roll
// has the dice a test needs.
import { createHash } from 'node:crypto';
import { ManualClock } from '../../src/domain/clock.js';
import type { GameRecord, ResultRecord } from '../../src/domain/records.js';
import {
  botExternalId, botFace, type GameEvent, type LegalMoveTree, type Seat, type SeatPlayer,
} from '../../src/domain/types.js';
import { hexToSeed, rollDice } from '../../src/fair/index.js';
import { DEFAULT_GAME_CONFIG, type GameConfig, type GameLog } from '../../src/game/game-config.js';
import { leafPaths, type HouseKind } from '../../src/game/house.js';
import { GameRegistry } from '../../src/game/game-registry.js';
import type { EventFrame, GameHandle, GameLifecycleListener, GameSubscriber } from '../../src/game/types.js';
import { MemoryStore } from '../../src/store/memory.js';
import type { Store } from '../../src/store/types.js';
import { UNLIMITED } from './bot.js';
import { seedsFor } from './dice.js';
import { prng } from './prng.js';
import { StoreProxy } from './store-proxy.js';
/** Deterministic RNG (mulberry32) so a failing game reproduces. */
export const rng = prng;
export { seedsFor };

export { MemoryStore };

export const bot = (name: string, team = 'test'): SeatPlayer => ({
  id: botExternalId(team, name),
  face: botFace(team, name),
  participant: { Bot: { team, name } },
});

export { UNLIMITED };


/** Lets every pending promise, microtask and mailbox command run (no wall-clock time involved). */
export async function settle(rounds = 8): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((r) => setImmediate(r));
}

export class Logs implements GameLog {
  lines: { level: string; obj: Record<string, unknown>; msg?: string }[] = [];
  info = (obj: Record<string, unknown>, msg?: string): void => void this.lines.push({ level: 'info', obj, msg });
  warn = (obj: Record<string, unknown>, msg?: string): void => void this.lines.push({ level: 'warn', obj, msg });
  error = (obj: Record<string, unknown>, msg?: string): void => void this.lines.push({ level: 'error', obj, msg });
  errors(): string[] {
    return this.lines.filter((l) => l.level === 'error').map((l) => `${l.msg} ${JSON.stringify(l.obj)}`);
  }
}

/** A store wrapper writing every call into a shared log, to check persist-before-publish. */
export class RecordingStore extends StoreProxy {
  constructor(inner: Store, readonly log: string[]) {
    super(inner);
  }
  override async putGame(g: GameRecord): Promise<void> {
    await this.inner.putGame(g);
    this.log.push(`write ${g.version}`);
  }
  override async finishGame(g: GameRecord, r: ResultRecord[]): Promise<void> {
    await this.inner.finishGame(g, r);
    this.log.push(`write ${g.version}`);
  }
}

/** Subscriber that keeps every frame (and optionally mirrors them into a shared log). */
export class Recorder implements GameSubscriber {
  frames: EventFrame[] = [];
  closed = false;
  constructor(private readonly log?: string[]) {}
  deliver(frame: EventFrame): void {
    this.frames.push(frame);
    this.log?.push(`event ${frame.v}`);
  }
  close(): void {
    this.closed = true;
  }
  events(): GameEvent[] {
    return this.frames.map((f) => f.event);
  }
  kinds(): string[] {
    return this.frames.map((f) => Object.keys(f.event)[0]);
  }
  last<K extends string>(kind: K): Extract<GameEvent, Record<K, unknown>>[K] | undefined {
    for (let i = this.frames.length - 1; i >= 0; i--) {
      const e = this.frames[i].event as Record<string, unknown>;
      if (kind in e) return e[kind] as Extract<GameEvent, Record<K, unknown>>[K];
    }
    return undefined;
  }
}

export interface Setup {
  clock: ManualClock;
  store: Store;
  logs: Logs;
  registry: GameRegistry;
  started: GameHandle[];
  endedRecords: GameRecord[];
}

export interface SetupOptions {
  config?: Partial<GameConfig>;
  store?: Store;
  clock?: ManualClock;
  /** Hears every tree an actor builds (time and bytes). */
  onTree?: (gameId: string, seconds: number, bytes: Uint8Array) => void;
  housePlayers?: Map<string, HouseKind>;
  random?: () => number;
  listeners?: GameLifecycleListener[];
}

let idCounter = 0;

export function setup(o: SetupOptions = {}): Setup {
  const clock = o.clock ?? new ManualClock();
  const store = o.store ?? new MemoryStore();
  const logs = new Logs();
  const started: GameHandle[] = [];
  const endedRecords: GameRecord[] = [];
  let seeds = 0;
  const registry = new GameRegistry({
    store,
    clock,
    onTree: o.onTree,
    config: { ...DEFAULT_GAME_CONFIG, ...o.config },
    listeners: [
      { gameStarted: (g) => void started.push(g), gameEnded: (_g, r) => void endedRecords.push(r) },
      ...(o.listeners ?? []),
    ],
    newId: () => `game${++idCounter}`,
    log: logs,
    housePlayers: o.housePlayers,
    random: o.random,
    // Seeds from a counter, not the system's randomness: a test's dice are the same on every run.
    serverSeed: () => createHash('sha256').update(`test server seed ${++seeds}`).digest(),
    clientSeed: () => `test-client-seed-${++seeds}`,
  });
  return { clock, store, logs, registry, started, endedRecords };
}

/** The full tree of the pending roll (never capped), or null when none is pending. */
export function pendingTree(h: GameHandle): LegalMoveTree | null {
  const m = h.moves();
  return m.dicePending ? (JSON.parse(m.legalMovesJson) as LegalMoveTree) : null;
}

/** Plays a uniformly random legal turn for whoever is to move; null when nothing is pending. */
export async function playRandom(h: GameHandle, random: () => number, o: { spareKing?: boolean } = {}) {
  const tree = pendingTree(h);
  if (!tree) return null;
  let paths = leafPaths(tree);
  if (o.spareKing) {
    // The dice are random (server seeds), so a random turn may take the king and end the game; a
    // test about what follows the turn avoids paths whose micro-moves land on the opponent's king
    // (it does not move during the mover's turn), when it has any other.
    const king = kingSquare(h.record().fen, h.state().activeSeat === 'White' ? 'k' : 'K');
    const sparing = paths.filter((p) => !p.some((m) => m.slice(2, 4) === king));
    if (sparing.length > 0) paths = sparing;
  }
  const path = paths[Math.floor(random() * paths.length)];
  return { path, verdict: await h.move(h.state().activeSeat, path) };
}

/** The square ('e8') of `piece` on the board of a FEN or DFEN, or null. */
export function kingSquare(fen: string, piece: 'k' | 'K'): string | null {
  const ranks = fen.split(' ')[0].split('/');
  for (let r = 0; r < ranks.length; r++) {
    let file = 0;
    for (const ch of ranks[r]) {
      if (/[1-8]/.test(ch)) file += Number(ch);
      else if (ch === piece) return `${'abcdefgh'[file]}${8 - r}`;
      else file++;
    }
  }
  return null;
}

/** Seeds both seats so the opening roll satisfies `want`; the roll happens at once. */
export async function openWith(h: GameHandle, want: (dice: number[], ply: number) => boolean, plies = 1): Promise<number[]> {
  const s = seedsFor(h.record().serverSeed, want, plies);
  h.seed('White', s.white);
  h.seed('Black', s.black);
  await settle();
  return rollDice(hexToSeed(h.record().serverSeed)!, s.white, s.black, 0);
}

export const has = (face: number) => (dice: number[]): boolean => dice.includes(face);
export const lacks = (...faces: number[]) => (dice: number[]): boolean => faces.every((f) => !dice.includes(f));

export const seatOfMover = (h: GameHandle): Seat => h.state().activeSeat;
