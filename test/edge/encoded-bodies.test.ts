// Large legal-move bodies: made once per game version and kept as bytes, compressed (gzip, brotli) off
// the main thread, served compressed to clients that accept it; small bodies take the ordinary path.
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import t from 'tap';
import { EncodedBodies } from '../../src/edge/encoded-bodies.js';
import { gameHandlers, type GameRouteDeps } from '../../src/edge/handlers/games.js';
import type { Reply } from '../../src/edge/reply.js';
import type { GameHandle } from '../../src/game/types.js';
import { until } from '../helpers/poll.js';

const big = (n: number): string => JSON.stringify({ legalMoves: { a: 'x'.repeat(n) } });

t.test('a large body is kept as bytes with gzip and brotli copies; a small one is not kept', async (t) => {
  const bodies = new EncodedBodies({ minBytes: 1000, maxBytes: 1_000_000 });
  t.equal(bodies.keep('small', '{"a":1}'), '{"a":1}', 'small text comes back as it is');
  t.equal(bodies.find('small'), undefined);
  const text = big(200_000);
  const kept = bodies.keep('g:1', text);
  t.not(typeof kept, 'string');
  t.equal(Buffer.from(bodies.find('g:1')!.identity).toString('utf8'), text);
  await until(() => (bodies.find('g:1')?.gzip !== undefined ? true : undefined), 'the gzip copy');
  t.equal(gunzipSync(bodies.find('g:1')!.gzip!).toString('utf8'), text, 'the gzip copy holds the same text');
  await until(() => (bodies.find('g:1')?.br !== undefined ? true : undefined), 'the brotli copy');
  t.equal(brotliDecompressSync(bodies.find('g:1')!.br!).toString('utf8'), text, 'the brotli copy holds the same text');
  const copies = bodies.find('g:1')!.gzip!.byteLength + bodies.find('g:1')!.br!.byteLength;
  t.equal(bodies.size, Buffer.byteLength(text) + copies, 'the budget counts the text and both copies');
  bodies.keep('huge', big(2_000_000));
  t.equal(bodies.find('huge'), undefined, 'a body over the whole budget is not kept');
});

t.test('GET /games/{id}/moves builds a large body once per version and sends brotli or gzip when accepted', async (t) => {
  let built = 0;
  let version = 7;
  const text = big(300_000);
  const game = {
    id: 'G',
    record: () => ({ version }),
    movesJson: () => {
      built++;
      return text;
    },
  } as unknown as GameHandle;
  const deps = { games: { find: () => game }, movesBodies: new EncodedBodies({ minBytes: 1000 }) } as unknown as GameRouteDeps;
  const get = gameHandlers(deps).getLegalMoves as (call: unknown) => Reply;
  const call = (accept: string) => ({ params: { id: 'G' }, ctx: { headers: { other: new Map(accept ? [['accept-encoding', accept]] : []) } } });
  const first = get(call(''));
  t.equal(first.status, 200);
  t.equal(Buffer.from(first.body as Uint8Array).toString('utf8'), text);
  await until(() => (deps.movesBodies!.compressed === 2 ? true : undefined), 'the gzip and brotli copies');
  const br = get(call('gzip, deflate, br'));
  t.equal(br.headers?.['content-encoding'], 'br', 'brotli first when both are accepted');
  t.equal(br.headers?.vary, 'accept-encoding');
  t.equal(brotliDecompressSync(br.body as Uint8Array).toString('utf8'), text);
  const zipped = get(call('gzip, deflate'));
  t.equal(zipped.headers?.['content-encoding'], 'gzip');
  t.equal(gunzipSync(zipped.body as Uint8Array).toString('utf8'), text);
  t.equal(get(call('gzip;q=0')).headers?.['content-encoding'], undefined, 'refused gzip: identity');
  t.equal(built, 1, 'the JSON text was made once for the four reads');
  version = 8;
  get(call(''));
  t.equal(built, 2, 'a new version is a new body');
});
