import t from 'tap';
import {
  TOKEN_PREFIX, coinFlip, deriveSeatToken, hashToken, newGuestId, newId, newSecret, newToken, randomBase62, randomHex,
} from '../../src/services/tokens.js';

t.test('bearer tokens: dcb_ + 32 base64url characters, all different', async (t) => {
  const seen = new Set<string>();
  for (let i = 0; i < 1000; i++) {
    const tok = newToken();
    t.match(tok, /^dcb_[A-Za-z0-9_-]{32}$/);
    seen.add(tok);
  }
  t.equal(seen.size, 1000);
  t.equal(TOKEN_PREFIX, 'dcb_');
});

t.test('hashToken is lowercase hex SHA-256 of the UTF-8 bytes', async (t) => {
  t.equal(hashToken('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  t.match(hashToken(newToken()), /^[0-9a-f]{64}$/);
});

t.test('ids are 16 base62 characters, random rather than sequential', async (t) => {
  const ids = Array.from({ length: 2000 }, () => newId());
  for (const id of ids) t.match(id, /^[0-9A-Za-z]{16}$/);
  t.equal(new Set(ids).size, ids.length);
  // Every base62 character shows up somewhere over 32000 draws (a biased or narrow alphabet would not).
  t.equal(new Set(ids.join('')).size, 62);
  t.match(newGuestId(), /^[0-9A-Za-z]{16}$/);
  t.equal(randomBase62(40).length, 40);
});

t.test('seek secrets are 32 base64url characters', async (t) => {
  for (let i = 0; i < 100; i++) t.match(newSecret(), /^[A-Za-z0-9_-]{32}$/);
  t.not(newSecret(), newSecret());
});

t.test('randomHex and coinFlip', async (t) => {
  t.match(randomHex(8), /^[0-9a-f]{8}$/);
  t.match(randomHex(7), /^[0-9a-f]{7}$/);
  const flips = new Set(Array.from({ length: 200 }, () => coinFlip()));
  t.same([...flips].sort(), [0, 1]);
});

t.test('a seat token derived from a secret is stable, token-shaped and secret-specific', async (t) => {
  const s = newSecret();
  t.equal(deriveSeatToken(s), deriveSeatToken(s));
  t.match(deriveSeatToken(s), /^dcb_[A-Za-z0-9_-]{32}$/);
  t.not(deriveSeatToken(s), deriveSeatToken(newSecret()));
});
