// One game of an event export checked on its own (a task of `dicechess verify-event`'s pool): its
// server seed derives from the event seed and its pair index, its commitment is the seed's SHA-256,
// its client seeds are the pair's public ones, and every turn's dice are the roll recomputed from them.
import { commitOf, eventPairClientSeeds, eventPairDice, eventRoundClientSeeds, hexToSeed, rollDice, seedToHex } from '../fair/index.js';

export interface GameTask {
  eventId: string;
  /** The revealed event seed (hex), or null when the export has none yet. */
  eventSeed: string | null;
  /** The event's dice mode as its export states it (absent in older exports: per pair). */
  dice?: string;
  game: {
    pair: number;
    /** Absent in older exports (their events had no perRound dice). */
    round?: number;
    game: number;
    gameId: string;
    commit: string;
    serverSeed: string;
    clientSeeds: { white: string; black: string };
    history: { dice: number[] }[];
  };
}

/** The problems found in one game, each a line naming the game; empty when all is well. */
export function verifyGame(task: GameTask): string[] {
  const { game: g } = task;
  const where = `pair ${g.pair} game ${g.game} (${g.gameId})`;
  const out: string[] = [];
  const seed = hexToSeed(g.serverSeed);
  if (!seed) return [`${where}: the server seed is not 32 bytes of hex`];
  if (commitOf(seed) !== g.commit) out.push(`${where}: commit is not SHA-256 of the server seed`);
  // The seeds follow from the event seed, the mode and the pair (its round for perRound): a mode
  // changed in the export no longer derives the seeds the games were played with.
  const perRound = task.dice === 'perRound';
  const pair = { index: g.pair, round: g.round ?? 0 };
  if (task.eventSeed !== null) {
    const eventSeed = hexToSeed(task.eventSeed);
    if (eventSeed && seedToHex(eventPairDice(eventSeed, task.eventId, perRound, pair).serverSeed) !== g.serverSeed) {
      out.push(`${where}: the server seed does not derive from the event seed`);
    }
  }
  const want = perRound && pair.round >= 1 ? eventRoundClientSeeds(task.eventId, pair.round) : eventPairClientSeeds(task.eventId, g.pair);
  if (g.clientSeeds.white !== want.white || g.clientSeeds.black !== want.black) out.push(`${where}: client seeds are not the pair's (or its round's)`);
  g.history.forEach((h, ply) => {
    const dice = rollDice(seed, g.clientSeeds.white, g.clientSeeds.black, ply);
    if (dice.join() !== h.dice.join()) out.push(`${where}: roll ${ply} is ${h.dice.join(',')}, recomputed ${dice.join(',')}`);
  });
  return out;
}

/** Piscina's entry point: a batch of games. */
export default function run(tasks: GameTask[]): string[] {
  return tasks.flatMap(verifyGame);
}
