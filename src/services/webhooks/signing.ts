// Delivery signatures: lowercase hex HMAC-SHA256 keyed by the UTF-8 bytes of the per-bot secret
// string, over `<unix seconds>.<raw body>`. The same two values go out under the current header
// names and under the names bots written against the earlier deployment check.
import { createHmac, randomBytes } from 'node:crypto';

export function signature(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${timestamp}.${body}`, 'utf8').digest('hex');
}

/** The four signature headers of one delivery. */
export function signatureHeaders(secret: string, nowMs: number, body: string): Record<string, string> {
  const ts = Math.floor(nowMs / 1000);
  const sig = signature(secret, ts, body);
  return {
    'x-game-timestamp': String(ts),
    'x-game-signature': sig,
    'x-dicechess-timestamp': String(ts),
    'x-dicechess-signature': sig,
  };
}

/** A fresh per-bot secret: 32 random bytes as 64 lowercase hex characters. */
export const newSecret = (): string => randomBytes(32).toString('hex');

/** A fresh handshake nonce. */
export const newNonce = (): string => `n-${randomBytes(12).toString('hex')}`;
