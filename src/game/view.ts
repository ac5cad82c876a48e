// Read models of a game: the GameState object, its JSON text, history and event frames. Everything
// here is a pure function of a GameRecord (plus the pending roll's tree), so the actor and the edge
// (serving ended games from the store) render games the same way.
import { treeToJson, treeToObject } from '../engine/index.js';
import type { GameRecord } from '../domain/records.js';
import type {
  ClientSeeds, Clocks, GameEvent, GameState, HistoryEntry, LegalMoveTree, Players,
} from '../domain/types.js';
import type { EventFrame } from './types.js';

/** The tree of the roll that is waiting for a move, with its JSON/object forms made once, on demand. */
export class PendingTree {
  private json: string | undefined;
  private obj: LegalMoveTree | undefined;

  constructor(
    /** DFEN with the dice field. */
    readonly dfen: string,
    readonly bytes: Uint8Array,
    readonly leaves: number,
  ) {}

  /** The whole tree as JSON text (GET /games/{id}/moves never caps it). */
  fullJson(): string {
    this.json ??= treeToJson(this.bytes);
    return this.json;
  }

  /** The inline copy: the tree, or null over the leaf cap. Shared between reads: treat as read-only. */
  inline(cap: number): LegalMoveTree | null {
    if (this.leaves > cap) return null;
    this.obj ??= treeToObject(this.bytes);
    return this.obj;
  }

  inlineJson(cap: number): string {
    return this.leaves > cap ? 'null' : this.fullJson();
  }
}

export const isEnded = (rec: GameRecord): boolean => 'Ended' in rec.status;

export const playersOf = (rec: GameRecord): Players => ({ white: rec.white.face, black: rec.black.face });

/** The seed reveal: null while the game runs, and while a mirror-pair partner still runs. */
export function revealOf(rec: GameRecord): { seed: string | null; clientSeeds: ClientSeeds | null } {
  if (!isEnded(rec) || rec.revealHeld === true) return { seed: null, clientSeeds: null };
  return { seed: rec.serverSeed, clientSeeds: rec.revealedSeeds };
}

/** Client seeds as the dice use them: a seat that never seeded falls back to its external id. */
export function effectiveSeeds(rec: GameRecord): ClientSeeds {
  return { white: rec.clientSeeds.white ?? rec.white.id, black: rec.clientSeeds.black ?? rec.black.id };
}

/** The state object; keys in the same order as StateTemplate writes them. */
export function buildState(rec: GameRecord, tree: PendingTree | null, clocks: Clocks | null, cap: number): GameState {
  const { seed, clientSeeds } = revealOf(rec);
  return {
    version: rec.version,
    dfen: tree ? tree.dfen : rec.fen,
    activeSeat: rec.activeSeat,
    dicePending: tree !== null,
    status: rec.status,
    timeControl: rec.timeControl,
    clocks,
    commit: rec.commit,
    seed,
    clientSeeds,
    legalMoves: tree ? tree.inline(cap) : null,
    players: playersOf(rec),
  };
}

/**
 * The state JSON split around `clocks`, made once per version: a read while a clock runs only
 * splices the live clocks in instead of re-serialising the tree.
 */
export class StateTemplate {
  private readonly head: string;
  private readonly tail: string;

  constructor(readonly rec: GameRecord, tree: PendingTree | null, cap: number) {
    const { seed, clientSeeds } = revealOf(rec);
    const head = JSON.stringify({
      version: rec.version,
      dfen: tree ? tree.dfen : rec.fen,
      activeSeat: rec.activeSeat,
      dicePending: tree !== null,
      status: rec.status,
      timeControl: rec.timeControl,
    });
    this.head = `${head.slice(0, -1)},"clocks":`;
    this.tail =
      `,"commit":${JSON.stringify(rec.commit)},"seed":${JSON.stringify(seed)}` +
      `,"clientSeeds":${JSON.stringify(clientSeeds)}` +
      `,"legalMoves":${tree ? tree.inlineJson(cap) : 'null'}` +
      `,"players":${JSON.stringify(playersOf(rec))}}`;
  }

  render(clocks: Clocks | null): string {
    return this.head + JSON.stringify(clocks) + this.tail;
  }
}

/** History as JSON text, grown one entry at a time (entries never change once written). */
export class HistoryJson {
  private parts: string[] = [];
  private joined: string | null = '[]';

  constructor(entries: readonly HistoryEntry[] = []) {
    for (const e of entries) this.append(e);
  }

  get count(): number {
    return this.parts.length;
  }

  append(e: HistoryEntry): void {
    this.parts.push(JSON.stringify(e));
    this.joined = null;
  }

  text(): string {
    this.joined ??= `[${this.parts.join(',')}]`;
    return this.joined;
  }
}

/** Serialises an event once; the same line goes to every subscriber. */
export function frameOf(event: GameEvent): EventFrame {
  const v = (Object.values(event)[0] as { v: number }).v;
  return { v, event, line: `${JSON.stringify(event)}\n` };
}

/** A Snapshot frame from already-serialised parts (state JSON and history JSON are cached). */
export function snapshotFrame(state: GameState, stateJson: string, history: HistoryEntry[], historyJson: string): EventFrame {
  const v = state.version;
  return {
    v,
    event: { Snapshot: { v, state, history } },
    line: `{"Snapshot":{"v":${v},"state":${stateJson},"history":${historyJson}}}\n`,
  };
}

/** The GameEnded event of an ended record (its version is the game's last). */
export function endedEventOf(rec: GameRecord): GameEvent | null {
  if (!('Ended' in rec.status)) return null;
  const { seed, clientSeeds } = revealOf(rec);
  return { GameEnded: { v: rec.version, over: rec.status.Ended.over, seed, clientSeeds } };
}

/** State of a record with no live actor (an ended game read from the store or the archive). */
export function stateOfRecord(rec: GameRecord): GameState {
  return buildState(rec, null, rec.clocks, 0);
}

/** What a stream sends for an ended game: its final Snapshot and its GameEnded, then it closes. */
export function endedFramesOf(rec: GameRecord): { snapshot: EventFrame; ended: EventFrame | null } {
  const state = stateOfRecord(rec);
  const snapshot = snapshotFrame(state, JSON.stringify(state), rec.history, JSON.stringify(rec.history));
  const ev = endedEventOf(rec);
  return { snapshot, ended: ev ? frameOf(ev) : null };
}
