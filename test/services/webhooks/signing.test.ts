// Delivery signatures: the contract's golden vector, and the four headers carrying one value pair.
import t from 'tap';
import { newSecret, signature, signatureHeaders } from '../../../src/services/webhooks/signing.js';
import { expectedSignature } from '../../helpers/webhook-receiver.js';

const SECRET = '3f1c9b2a7d4e6f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7a8';
const BODY = '{"type":"verification","nonce":"n-0123456789abcdef"}';
const GOLDEN = '2282ffd53be73c98bb716fe134deea35d4b5a71952498eddab8dd247a69e5fb9';

t.test('the golden vector', async (t) => {
  t.equal(signature(SECRET, 1767225600, BODY), GOLDEN, 'the server signs it as the contract says');
  t.equal(expectedSignature(SECRET, '1767225600', BODY), GOLDEN, 'and so does the test receiver');
  t.not(signature(SECRET, 1767225601, BODY), GOLDEN, 'the timestamp is signed');
  t.not(signature(SECRET, 1767225600, `${BODY} `), GOLDEN, 'every body byte is signed');
});

t.test('headers: seconds, and the same pair under both names', async (t) => {
  const h = signatureHeaders(SECRET, 1767225600_999, BODY);
  t.same(h, {
    'x-game-timestamp': '1767225600',
    'x-game-signature': GOLDEN,
    'x-dicechess-timestamp': '1767225600',
    'x-dicechess-signature': GOLDEN,
  });
});

t.test('secrets are 64 lowercase hex characters and never repeat', async (t) => {
  const a = newSecret();
  t.match(a, /^[0-9a-f]{64}$/);
  t.not(newSecret(), a);
});
