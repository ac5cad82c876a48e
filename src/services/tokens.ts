// Every secret and identifier the services hand out. All randomness comes from the OS CSPRNG
// (node:crypto); ids are random rather than counters so they stay unique across restarts.
import { createHash, createHmac, randomBytes, randomInt } from 'node:crypto';

export const TOKEN_PREFIX = 'dcb_';

/** Bearer token: `dcb_` + 32 base64url characters (24 random bytes, 192 bits). */
export function newToken(): string {
  return TOKEN_PREFIX + randomBytes(24).toString('base64url');
}

/** What is stored instead of a token: lowercase hex SHA-256 of its UTF-8 bytes. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `length` uniformly random base62 characters (rejection sampling keeps the distribution flat). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      // 248 = 4 * 62: bytes at or above it would bias the first characters, so they are skipped.
      if (b < 248) out += BASE62[b % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** Game, challenge and seek ids: 16 base62 characters (about 95 bits), URL-safe. */
export function newId(): string {
  return randomBase62(16);
}

/** Seek capability secret: 32 base64url characters (24 random bytes). */
export function newSecret(): string {
  return randomBytes(24).toString('base64url');
}

/** A human guest's id (the part after `guest:`). */
export function newGuestId(): string {
  return randomBase62(16);
}

/** `n` random lowercase hex characters. */
export function randomHex(n: number): string {
  return randomBytes(Math.ceil(n / 2)).toString('hex').slice(0, n);
}

/** Uniform 0 or 1 from the CSPRNG (seek colours). */
export function coinFlip(): 0 | 1 {
  return randomInt(2) as 0 | 1;
}

/**
 * The seat token of a guest seek's owner, derived one-way from the seek secret. The lobby keeps only
 * hashes (of the secret and of this token), yet the owner can still be handed the token when it polls
 * with its secret: whoever holds the secret may learn the seat token anyway, so nothing is weakened.
 */
export function deriveSeatToken(secret: string): string {
  const mac = createHmac('sha256', secret).update('dicechess guest seat token').digest();
  return TOKEN_PREFIX + mac.subarray(0, 24).toString('base64url');
}
