// Built-in house players: subscribers that answer their own seat's rolls through the same handle a
// bot's HTTP request would use, so they get no shortcut past the actor's rules and clocks.
//  - 'random': a uniformly random complete turn (leaf path), from an injected RNG.
//  - 'greedy': a king capture whenever one exists; otherwise the turn capturing the most material
//    (P1 N3 B3 R5 Q9); ties broken at random.
// Forced passes are the actor's job; a house player never sees a decision for them.
import { capturedBy, parseDfen } from '../engine/index.js';
import type { Clock } from '../domain/clock.js';
import type { LegalMoveTree, Seat } from '../domain/types.js';
import type { GameLog } from './game-config.js';
import type { EventFrame, GameHandle, GameSubscriber } from './types.js';

export type HouseKind = 'random' | 'greedy';

/** Material values by piece type (index 1..6); the king is handled apart (it ends the game). */
const VALUES = [0, 1, 3, 3, 5, 9, 0];
const KING = 6;

/** Every root-to-leaf path of a tree, in key order. */
export function leafPaths(tree: LegalMoveTree): string[][] {
  const out: string[][] = [];
  const walk = (node: LegalMoveTree, path: string[]): void => {
    const keys = Object.keys(node);
    if (keys.length === 0) {
      if (path.length > 0) out.push(path);
      return;
    }
    for (const k of keys) walk(node[k], [...path, k]);
  };
  walk(tree, []);
  return out;
}

const pick = <T>(xs: readonly T[], random: () => number): T => xs[Math.min(xs.length - 1, Math.floor(random() * xs.length))];

/** The greedy choice among `paths` from the position `dfen` (which carries the dice). */
export function greedyChoice(dfen: string, paths: readonly string[][], random: () => number): string[] | null {
  const pos = parseDfen(dfen);
  if (!pos.ok || paths.length === 0) return null;
  let best = -1;
  let top: string[][] = [];
  for (const p of paths) {
    const caps = capturedBy(pos.value, p);
    const score = caps.includes(KING) ? Number.MAX_SAFE_INTEGER : caps.reduce((s, c) => s + (VALUES[c] ?? 0), 0);
    if (score > best) {
      best = score;
      top = [p];
    } else if (score === best) {
      top.push(p);
    }
  }
  return pick(top, random);
}

/** Leaves below `node` (a node with no children is one leaf). */
function leafCount(node: LegalMoveTree): number {
  let n = 0;
  for (const k in node) n += leafCount(node[k]);
  return n === 0 ? 1 : n;
}

/**
 * The `index`-th root-to-leaf path in key order (leafPaths(tree)[index]) without listing the
 * others: a tree can have tens of thousands of leaves, and a random player needs one.
 */
export function leafPathAt(tree: LegalMoveTree, index: number): string[] {
  const path: string[] = [];
  let node = tree;
  let rest = index;
  for (;;) {
    let next: string | undefined;
    for (const k in node) {
      const n = leafCount(node[k]);
      if (rest < n) {
        next = k;
        break;
      }
      rest -= n;
    }
    if (next === undefined) return path;
    path.push(next);
    node = node[next];
  }
}

export function chooseTurn(kind: HouseKind, dfen: string, tree: LegalMoveTree, random: () => number): string[] | null {
  if (kind === 'greedy') {
    const paths = leafPaths(tree);
    return paths.length === 0 ? null : greedyChoice(dfen, paths, random);
  }
  let leaves = 0;
  for (const k in tree) leaves += leafCount(tree[k]);
  if (leaves === 0) return null;
  // The same draw as pick(leafPaths(tree), random), without the list.
  return leafPathAt(tree, Math.min(leaves - 1, Math.floor(random() * leaves)));
}

export interface HouseDeps {
  handle: GameHandle;
  seat: Seat;
  kind: HouseKind;
  clock: Clock;
  delayMs: number;
  random: () => number;
  log: GameLog;
}

export class HousePlayer implements GameSubscriber {
  private closed = false;
  private timer: { cancel(): void } | null = null;

  constructor(private readonly deps: HouseDeps) {}

  /** Subscribes to the game and acts on a roll already pending (after a restart, say). */
  static attach(d: HouseDeps): HousePlayer {
    const p = new HousePlayer(d);
    const { snapshot, ended } = d.handle.subscribe(p);
    if (ended) {
      p.closed = true;
      return p;
    }
    // The house needs no say in the dice (the server seed decides them anyway), but seeding at once
    // lets the opening roll happen as soon as the opponent seeds instead of after the grace period.
    d.handle.seed(d.seat, `house-seed:${d.handle.id}:${d.seat}`);
    p.deliver(snapshot);
    return p;
  }

  deliver(frame: EventFrame): void {
    if (this.closed) return;
    const ev = frame.event;
    if ('DiceRolled' in ev) {
      const r = ev.DiceRolled;
      if (r.seat === this.deps.seat && (r.legalMoves === null || Object.keys(r.legalMoves).length > 0)) {
        this.plan(r.v, r.dfen, r.legalMoves);
      }
    } else if ('Snapshot' in ev) {
      const s = ev.Snapshot.state;
      if ('Active' in s.status && s.dicePending && s.activeSeat === this.deps.seat) this.plan(s.version, s.dfen, s.legalMoves);
    }
  }

  close(): void {
    this.closed = true;
    this.timer?.cancel();
    this.timer = null;
  }

  /** `version`: the roll's DiceRolled `v` (or the Snapshot's version), sent with the move. */
  private plan(version: number, dfen: string, inline: LegalMoveTree | null): void {
    const act = (): void => {
      this.timer = null;
      if (!this.closed) this.act(version, dfen, inline);
    };
    // A zero delay still never answers inside the actor's publish call.
    if (this.deps.delayMs <= 0) queueMicrotask(act);
    else this.timer = this.deps.clock.schedule(this.deps.delayMs, act);
  }

  private act(version: number, dfen: string, inline: LegalMoveTree | null): void {
    const { handle, seat } = this.deps;
    let tree = inline;
    if (tree === null) {
      // Over the inline cap: read the full tree, provided it still answers the same roll.
      const m = handle.moves();
      if (!m.dicePending || m.dfen !== dfen) return;
      tree = JSON.parse(m.legalMovesJson) as LegalMoveTree;
    }
    const moves = chooseTurn(this.deps.kind, dfen, tree, this.deps.random);
    if (!moves) return;
    handle.move(seat, moves, version).then(
      (v) => {
        if (v === 'busy' || !v.applied) {
          this.deps.log.warn({ gameId: handle.id, seat, verdict: v, moves }, 'house move not applied');
        }
      },
      (e: unknown) => this.deps.log.error({ gameId: handle.id, seat, err: String(e) }, 'house move failed'),
    );
  }
}
