// The read model of a game: GameView renders one record (plus the pending roll's tree) as the state,
// history, summary, legal moves and stream frames, its JSON cached in the shared bounded read cache
// (read-cache.ts) while that version is read. The live actor makes one per version; an ended game read from the store makes one once, so
// both render a game the same way. The JSON itself comes from wire's encoders.
import { legalTree, parseDfen, treeToJson, treeToObject } from '../engine/index.js';
import { ladderKindOf, type GameRecord } from '../domain/records.js';
import { SEED_REJECT_REASON } from '../domain/rules.js';
import type {
  ClientSeeds, Clocks, GameEvent, GameState, HistoryEntry, LadderKind, LegalMoveTree, Players, Seat, SeatControls,
} from '../domain/types.js';
import { StateTemplate, diceRolledLine, eventLine, movesJson, snapshotLine, type StateFields } from '../wire/encode.js';
import type { EventFrame, GameSummary, MovesView } from './types.js';
import { liveClocks } from './clocks.js';
import { historyJsonCache, movesJsonCache, stateTemplateCache, treeBytesCache, treeJsonCache } from './read-cache.js';

/** What a view reads the time from: the game's clock (a live game) or a fixed instant (an ended one). */
export interface Now {
  now(): number;
}

const ENDED: Now = { now: () => 0 };

/**
 * The tree of the roll that is waiting for a move. Its bytes live in the shared bounded cache
 * (read-cache.ts) and are rebuilt from the DFEN by the same engine call the actor makes at the roll when
 * they fell out, so an idle game holds only what names its roll. Its JSON sits in the bounded read
 * cache while read; the object form (a node per move) is made for the moment of a read only.
 */
export class PendingTree {
  /**
   * From the engine's bytes (an actor), or from the JSON text a shard already published (main's
   * mirror of the game, which then never needs the bytes unless its JSON fell out of the cache).
   */
  constructor(
    /** DFEN with the dice field. */
    readonly dfen: string,
    bytes: Uint8Array | null,
    readonly leaves: number,
    json?: string,
  ) {
    if (bytes !== null) treeBytesCache.set(this, bytes);
    if (json !== undefined) treeJsonCache.set(this, json);
  }

  /** The tree's bytes: recently used ones from the cache, others rebuilt (identical, the engine is pure). */
  get bytes(): Uint8Array {
    return treeBytesCache.get(this, () => rebuildTree(this.dfen, this.leaves));
  }

  /** The game has moved past this roll: its bytes and JSON leave the caches at once instead of by age. */
  release(): void {
    treeBytesCache.delete(this);
    treeJsonCache.delete(this);
  }

  /** The whole tree as JSON text (GET /games/{id}/moves never caps it). */
  fullJson(): string {
    return treeJsonCache.get(this, () => treeToJson(this.bytes));
  }

  /** The inline copy: the tree, or null over the leaf cap. A fresh object on every call. */
  inline(cap: number): LegalMoveTree | null {
    return this.leaves > cap ? null : treeToObject(this.bytes);
  }

  inlineJson(cap: number): string {
    return this.leaves > cap ? 'null' : this.fullJson();
  }
}

/** A pending roll's tree again, from its DFEN; a different leaf count would be an engine bug. */
function rebuildTree(dfen: string, leaves: number): Uint8Array {
  const pos = parseDfen(dfen);
  if (!pos.ok) throw new Error(`pending tree: bad dfen ${dfen}: ${pos.error.message}`);
  const t = legalTree(pos.value);
  if (t.leaves !== leaves) throw new Error(`pending tree of ${dfen} rebuilt with ${t.leaves} leaves, not ${leaves}`);
  return t.bytes;
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

/** Serialises an event once; the same line goes to every subscriber. */
export function frameOf(event: GameEvent): EventFrame {
  const v = (Object.values(event)[0] as { v: number }).v;
  return { v, event, line: eventLine(event) };
}

/**
 * The DiceRolled of a roll with a decision pending: its line spliced from the tree's JSON text (made
 * once, and kept for the roll's reads), its event object built only if a subscriber in this thread
 * asks for it (a house player).
 */
export function rolledFrame(
  v: number, seat: Seat, dice: number[], clocks: Clocks | null, tree: PendingTree, cap: number,
): EventFrame {
  const line = diceRolledLine(v, seat, dice, tree.dfen, clocks, tree.inlineJson(cap));
  let event: GameEvent | undefined;
  return {
    v,
    line,
    get event(): GameEvent {
      event ??= { DiceRolled: { v, seat, dice, dfen: tree.dfen, clocks, legalMoves: tree.inline(cap) } };
      return event;
    },
  };
}

/** A TurnPlayed frame, told by its line (reading `event` may build a tree of objects). */
export const isTurnPlayed = (f: EventFrame): boolean => f.line.startsWith('{"TurnPlayed"');

/**
 * The seat whose move a Rejected line refuses (not your turn, an illegal turn), or null for any
 * other line and for a refused client seed. Only a Rejected line (rare) is parsed.
 */
export function refusedMoveSeat(line: string): Seat | null {
  if (!line.startsWith('{"Rejected"')) return null;
  const { Rejected: r } = JSON.parse(line) as { Rejected: { seat: Seat; reason: string } };
  return r.reason === SEED_REJECT_REASON ? null : r.seat;
}

/** An event to publish, or one already made into its frame. */
export const asFrame = (e: GameEvent | EventFrame): EventFrame => ('line' in e ? (e as EventFrame) : frameOf(e as GameEvent));

/** The GameEnded event of an ended record (its version is the game's last): built only here. */
function endedEventOf(rec: GameRecord): GameEvent | null {
  if (!('Ended' in rec.status)) return null;
  const { seed, clientSeeds } = revealOf(rec);
  return { GameEnded: { v: rec.version, over: rec.status.Ended.over, seed, clientSeeds } };
}

/** `ladder` for a ladder game; nothing at all for any other game, whose state keeps its exact shape. */
/** Each side's control, on a game with time odds only: every other state keeps its exact shape. */
const oddsField = (rec: GameRecord): { timeControls?: SeatControls } =>
  rec.timeControls ? { timeControls: rec.timeControls } : {};

const ladderField = (rec: GameRecord): { ladder?: LadderKind } => {
  const ladder = ladderKindOf(rec);
  return ladder ? { ladder } : {};
};

export class GameView {
  private ended: EventFrame | null | undefined;

  constructor(
    readonly rec: GameRecord,
    /** The published pending roll's tree; null when no decision is pending. */
    readonly tree: PendingTree | null,
    private readonly cap: number,
    private readonly clock: Now,
  ) {}

  /** An ended record with no actor (from the store or the archive). */
  static ofRecord(rec: GameRecord): GameView {
    return new GameView(rec, null, 0, ENDED);
  }

  /** Clocks with the mover's elapsed time already subtracted. */
  clocks(): Clocks | null {
    return liveClocks(this.rec.clocks, this.rec.activeSeat, this.rec.clockStartedAt, this.clock.now());
  }

  private fields(): StateFields {
    const rec = this.rec;
    const { seed, clientSeeds } = revealOf(rec);
    return {
      version: rec.version,
      dfen: this.dfen(),
      activeSeat: rec.activeSeat,
      dicePending: this.tree !== null,
      status: rec.status,
      timeControl: rec.timeControl,
      ...oddsField(rec),
      commit: rec.commit,
      seed,
      clientSeeds,
      players: playersOf(rec),
      ...ladderField(rec),
    };
  }

  private dfen(): string {
    return this.tree ? this.tree.dfen : this.rec.fen;
  }

  /** The state object; keys in the same order as StateTemplate writes them. */
  state(): GameState {
    const f = this.fields();
    return {
      version: f.version, dfen: f.dfen, activeSeat: f.activeSeat, dicePending: f.dicePending,
      status: f.status, timeControl: f.timeControl, ...oddsField(this.rec), clocks: this.clocks(), commit: f.commit,
      seed: f.seed, clientSeeds: f.clientSeeds, legalMoves: this.tree ? this.tree.inline(this.cap) : null,
      players: f.players, ...ladderField(this.rec),
    };
  }

  stateJson(): string {
    const template = stateTemplateCache.get(this.rec.id, this, () => new StateTemplate(this.fields(), this.tree ? this.tree.inlineJson(this.cap) : 'null'));
    return template.render(this.clocks());
  }

  history(): HistoryEntry[] {
    return this.rec.history.slice();
  }

  summary(): GameSummary {
    const r = this.rec;
    return {
      gameId: r.id,
      white: r.white,
      black: r.black,
      timeControl: r.timeControl,
      activeSeat: r.activeSeat,
      dicePending: this.tree !== null,
      clocks: this.clocks(),
      version: r.version,
      dfen: this.dfen(),
    };
  }

  moves(): MovesView {
    return {
      version: this.rec.version,
      dfen: this.dfen(),
      dicePending: this.tree !== null,
      legalMovesJson: this.tree ? this.tree.fullJson() : '{}',
    };
  }

  movesJson(): string {
    return movesJsonCache.get(this.rec.id, this, () => {
      const m = this.moves();
      return movesJson(m.version, m.dfen, m.dicePending, m.legalMovesJson);
    });
  }

  /** The Snapshot a new subscriber gets first. */
  snapshotFrame(): EventFrame {
    const state = this.state();
    const v = state.version;
    const history = this.rec.history;
    const historyJson = historyJsonCache.get(this.rec.id, history, () => JSON.stringify(history));
    return { v, event: { Snapshot: { v, state, history } }, line: snapshotLine(v, this.stateJson(), historyJson) };
  }

  /** The GameEnded frame of an ended record, made once; null while the game runs. */
  endedFrame(): EventFrame | null {
    if (this.ended === undefined) {
      const ev = endedEventOf(this.rec);
      this.ended = ev ? frameOf(ev) : null;
    }
    return this.ended;
  }
}
