// Dice for tests: the rolls a game's seeds produce, and a search for client seeds whose rolls a test
// needs (the honest way to give a test the dice it wants: the server's own seed is never touched).
import { hexToSeed, rollDice } from '../../src/fair/index.js';

export function diceOf(serverSeedHex: string, white: string, black: string, ply: number): number[] {
  const seed = hexToSeed(serverSeedHex);
  if (!seed) throw new Error(`not a server seed: ${serverSeedHex}`);
  return rollDice(seed, white, black, ply);
}

/**
 * Client seeds (black fixed, white searched) whose rolls 0..plies-1 satisfy `want`, for a game's
 * own server seed.
 */
export function seedsFor(
  serverSeedHex: string,
  want: (dice: number[], ply: number) => boolean,
  plies = 1,
  black = 'black-client-seed-0001',
): { white: string; black: string } {
  for (let i = 0; i < 500_000; i++) {
    const white = `white-client-seed-${i.toString().padStart(7, '0')}`;
    let good = true;
    for (let ply = 0; good && ply < plies; ply++) good = want(diceOf(serverSeedHex, white, black, ply), ply);
    if (good) return { white, black };
  }
  throw new Error('no seeds found');
}

export const sameMultiset = (a: number[], b: number[]): boolean =>
  a.length === b.length && [...a].sort().join() === [...b].sort().join();

/** In the standard start position a roll has a legal turn exactly when it has a pawn or a knight. */
export const movableAtStart = (dice: number[]): boolean => dice.includes(1) || dice.includes(2);
