// The provably fair dice, recomputed in the browser with Web Crypto: the same algorithm as the
// server's dice and `dicechess roll`. commit = SHA-256(seed bytes); the dice of roll `ply` come from
// HMAC-SHA256(seed, u32be(len W) ‖ W ‖ u32be(len B) ‖ B ‖ i64be(ply) ‖ i32be(block)), scanning bytes
// block after block, keeping those below 252 as `b mod 6 + 1` until three dice are found.

const hex = (bytes: Uint8Array): string => [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');

export function seedBytes(seedHex: string): Uint8Array<ArrayBuffer> | null {
  if (!/^[0-9a-fA-F]{64}$/.test(seedHex)) return null;
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) out[i] = parseInt(seedHex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

export async function commitOf(seed: Uint8Array<ArrayBuffer>): Promise<string> {
  return hex(new Uint8Array(await crypto.subtle.digest('SHA-256', seed)));
}

function message(white: string, black: string, ply: number): Uint8Array<ArrayBuffer> {
  const w = new TextEncoder().encode(white);
  const b = new TextEncoder().encode(black);
  const msg = new Uint8Array(4 + w.length + 4 + b.length + 8);
  const view = new DataView(msg.buffer);
  let at = 0;
  view.setUint32(at, w.length);
  msg.set(w, (at += 4));
  view.setUint32((at += w.length), b.length);
  msg.set(b, (at += 4));
  at += b.length;
  view.setUint32(at, Math.floor(ply / 0x100000000));
  view.setUint32(at + 4, ply >>> 0);
  return msg;
}

export type HmacKey = CryptoKey;

export const hmacKey = (seed: Uint8Array<ArrayBuffer>): Promise<HmacKey> =>
  crypto.subtle.importKey('raw', seed, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);

export async function rollDice(key: HmacKey, white: string, black: string, ply: number): Promise<number[]> {
  const msg = message(white, black, ply);
  const input = new Uint8Array(msg.length + 4);
  input.set(msg);
  const dice: number[] = [];
  for (let block = 0; dice.length < 3; block++) {
    new DataView(input.buffer).setInt32(msg.length, block);
    const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, input));
    for (const byte of mac) {
      if (byte >= 252) continue;
      dice.push((byte % 6) + 1);
      if (dice.length === 3) break;
    }
  }
  return dice;
}

export interface RollCheck {
  ply: number;
  shown: number[];
  computed: number[];
  ok: boolean;
}

export interface FairReport {
  commitOk: boolean;
  computedCommit: string;
  rolls: RollCheck[];
  ok: boolean;
}

/** Recomputes the commitment and every roll of a transcript; no server call. */
export async function verifyGame(
  commit: string, seedHex: string, seeds: { white: string; black: string }, rolls: readonly number[][],
): Promise<FairReport> {
  const seed = seedBytes(seedHex);
  if (!seed) return { commitOk: false, computedCommit: '(the revealed seed is not 64 hex digits)', rolls: [], ok: false };
  const computedCommit = await commitOf(seed);
  const key = await hmacKey(seed);
  const checks: RollCheck[] = [];
  for (let ply = 0; ply < rolls.length; ply++) {
    const computed = await rollDice(key, seeds.white, seeds.black, ply);
    const shown = rolls[ply];
    checks.push({ ply, shown, computed, ok: computed.join() === shown.join() });
  }
  const commitOk = computedCommit === commit.toLowerCase();
  return { commitOk, computedCommit, rolls: checks, ok: commitOk && checks.every((c) => c.ok) };
}
