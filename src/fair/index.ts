// Provably fair dice (docs/API.md, "Fair dice"): a secret 32-byte server seed, its public SHA-256 commitment, and
// each roll derived by HMAC-SHA256 from the seed, both client seeds and the roll number.

import { createHash, createHmac, randomBytes } from 'node:crypto';

export const SEED_BYTES = 32;

/** 32 fresh bytes from the CSPRNG. */
export function newServerSeed(): Uint8Array {
  return new Uint8Array(randomBytes(SEED_BYTES));
}

/** The commitment published at game creation: lowercase hex SHA-256 of the raw seed bytes. */
export function commitOf(seed: Uint8Array): string {
  return createHash('sha256').update(seed).digest('hex');
}

export function seedToHex(seed: Uint8Array): string {
  return Buffer.from(seed.buffer, seed.byteOffset, seed.byteLength).toString('hex');
}

/** Parse a 64-digit hex seed (either case); null when it is not exactly 32 bytes of hex. */
export function hexToSeed(hex: string): Uint8Array | null {
  if (typeof hex !== 'string' || !/^[0-9a-fA-F]{64}$/.test(hex)) return null;
  return new Uint8Array(Buffer.from(hex, 'hex'));
}

/** msg = u32be(len W) ‖ W ‖ u32be(len B) ‖ B ‖ i64be(ply), lengths in UTF-8 bytes. */
function rollMessage(whiteSeed: string, blackSeed: string, ply: number): Buffer {
  const w = Buffer.from(whiteSeed, 'utf8');
  const b = Buffer.from(blackSeed, 'utf8');
  const msg = Buffer.alloc(4 + w.length + 4 + b.length + 8);
  let at = msg.writeUInt32BE(w.length, 0);
  at += w.copy(msg, at);
  at = msg.writeUInt32BE(b.length, at);
  at += b.copy(msg, at);
  // i64be as two u32 halves (ply is a non-negative safe integer)
  msg.writeUInt32BE(Math.floor(ply / 0x100000000), at);
  msg.writeUInt32BE(ply >>> 0, at + 4);
  return msg;
}

/**
 * The three dice of roll `ply`, in roll order. Bytes of HMAC(seed, msg ‖ i32be(block)) are scanned
 * block after block; a byte below 252 gives `b mod 6 + 1` (252 = 42·6, so every face is equally
 * likely), a byte of 252 or more is skipped.
 */
export function rollDice(seed: Uint8Array, whiteSeed: string, blackSeed: string, ply: number): number[] {
  if (!Number.isSafeInteger(ply) || ply < 0) throw new RangeError(`ply must be a non-negative integer, got ${ply}`);
  const msg = rollMessage(whiteSeed, blackSeed, ply);
  const blockBytes = Buffer.alloc(4);
  const dice: number[] = [];
  for (let block = 0; dice.length < 3; block++) {
    blockBytes.writeInt32BE(block, 0);
    const mac = createHmac('sha256', seed).update(msg).update(blockBytes).digest();
    for (const byte of mac) {
      if (byte >= 252) continue;
      dice.push((byte % 6) + 1);
      if (dice.length === 3) break;
    }
  }
  return dice;
}

/**
 * An event's dice: one secret event seed, committed to at creation. Pair `index` of the event plays
 * with the server seed HMAC-SHA256(eventSeed, "dicechess-event-pair" ‖ u32be(index)) and the public
 * client seeds of eventPairClientSeeds, so anyone holding the revealed event seed recomputes every
 * roll of every pair (docs/DECISIONS.md "Event dice").
 */
export function eventPairSeed(eventSeed: Uint8Array, index: number): Uint8Array {
  if (!Number.isInteger(index) || index < 0 || index > 0xffffffff) throw new RangeError(`bad pair index ${index}`);
  const tail = Buffer.alloc(4);
  tail.writeUInt32BE(index, 0);
  return new Uint8Array(createHmac('sha256', eventSeed).update('dicechess-event-pair').update(tail).digest());
}

/** The client seeds both games of event pair `index` use (the first game's White seat is `white`). */
export function eventPairClientSeeds(eventId: string, index: number): { white: string; black: string } {
  return { white: `event:${eventId}:${index}:white`, black: `event:${eventId}:${index}:black` };
}

/**
 * Round `round` (1-based) of an event with a dice book per round: every pair of the round plays with
 * the server seed HMAC-SHA256(eventSeed, "dicechess-event-round" ‖ u32be(round)) and the client seeds
 * of eventRoundClientSeeds, so all of them roll the same dice. The label differs from the pair's, so
 * no round seed is ever a pair seed (docs/DECISIONS.md "Event dice").
 */
export function eventRoundSeed(eventSeed: Uint8Array, round: number): Uint8Array {
  if (!Number.isInteger(round) || round < 1 || round > 0xffffffff) throw new RangeError(`bad round ${round}`);
  const tail = Buffer.alloc(4);
  tail.writeUInt32BE(round, 0);
  return new Uint8Array(createHmac('sha256', eventSeed).update('dicechess-event-round').update(tail).digest());
}

/** The client seeds every game of event round `round` uses (the pair's first player's White game is `white`). */
export function eventRoundClientSeeds(eventId: string, round: number): { white: string; black: string } {
  return { white: `event:${eventId}:round${round}:white`, black: `event:${eventId}:round${round}:black` };
}

/**
 * The seeds of an event pair: by its round when the event keeps a dice book per round and the pair
 * has one (round ≥ 1), else by its index. A match or an SPRT has no rounds (every pair is round 0),
 * so its pairs play by index whatever the mode.
 */
export function eventPairDice(
  eventSeed: Uint8Array,
  eventId: string,
  perRound: boolean,
  pair: { index: number; round: number },
): { serverSeed: Uint8Array; clientSeeds: { white: string; black: string } } {
  return perRound && pair.round >= 1
    ? { serverSeed: eventRoundSeed(eventSeed, pair.round), clientSeeds: eventRoundClientSeeds(eventId, pair.round) }
    : { serverSeed: eventPairSeed(eventSeed, pair.index), clientSeeds: eventPairClientSeeds(eventId, pair.index) };
}
