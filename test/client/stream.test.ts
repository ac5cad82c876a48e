// The client's ndjson reader against a server that misbehaves: a line that never ends must not fill
// memory (the stream fails once the line passes the limit), and an export cut in the middle is
// fetched again and resumed, so the caller sees each line once, or a clear error when the second
// copy differs from what was already handed out.
import t from 'tap';
import { Client, StreamError } from '../../src/client/index.js';
import { LineReader } from '../../src/client/stream.js';
import { fakeServer, ndjson, problem } from '../helpers/fake-server.js';

const bounded = <T>(p: Promise<T>, ms: number, what: string): Promise<T> =>
  new Promise<T>((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`timed out waiting for ${what}`)), ms);
    p.then(
      (v) => (clearTimeout(timer), res(v)),
      (e) => (clearTimeout(timer), rej(e)),
    );
  });

t.test('the line reader splits at newlines and holds at most the limit of an unfinished line', async (t) => {
  const bytes = (s: string) => new TextEncoder().encode(s);
  const r = new LineReader(8);
  t.same(r.push(bytes('ab\ncd')), ['ab'], 'a whole line, and the start of the next kept');
  const snow = bytes('é\n'); // two bytes of UTF-8, split across two chunks
  t.same(r.push(snow.subarray(0, 1)), [], 'half a character');
  t.same(r.push(snow.subarray(1)), ['cdé'], 'the line decodes whole');
  t.same(r.push(bytes('12345678\n')), ['12345678'], 'a line of exactly the limit is fine');
  t.throws(() => r.push(bytes('123456789\n')), { name: 'StreamError', message: /longer than 8 bytes/ }, 'one byte over, in one chunk');
  const s = new LineReader(8);
  s.push(bytes('1234'));
  s.push(bytes('5678'));
  t.throws(() => s.push(bytes('9')), StreamError, 'one byte over, across chunks, with no newline in sight');
});

t.test('a server that never ends its line: the stream fails with a clear error, having read little', async (t) => {
  const CAP = 32 * 1024 * 1024;
  let written = 0;
  let connectionClosed!: () => void;
  const closed = new Promise<void>((r) => (connectionClosed = r));
  const chunk = Buffer.alloc(64 * 1024, 'x');
  const server = await fakeServer(t, {
    streamAccountEvents: async (_r, res) => {
      if (written > 0) return problem(res, 404, 'only one connection is served');
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      let open = true;
      res.on('close', () => {
        open = false;
        connectionClosed();
      });
      // Writes as fast as the client reads, up to the cap; a client that keeps reading gets it all.
      while (open && written < CAP) {
        written += chunk.length;
        if (!res.write(chunk)) {
          await new Promise<void>((r) => {
            const on = () => (res.off('drain', on).off('close', on), r());
            res.on('drain', on).on('close', on);
          });
        }
      }
      if (open) res.destroy();
    },
  });
  const limit = 256 * 1024;
  const c = new Client({ url: server.base, token: 'x', maxLineBytes: limit, backoff: { initialMs: 5, maxMs: 5 } });
  const stream = c.streamAccountEvents();
  const read = (async () => {
    for await (const line of stream) void line;
  })();
  await t.rejects(bounded(read, 30_000, 'the stream to fail'), { name: 'StreamError', message: `the server sent a line longer than ${limit} bytes; stream closed` });
  await bounded(closed, 10_000, 'the connection to close');
  t.ok(written < CAP, `the client hung up after ${written} bytes, long before the server's ${CAP}`);
  t.equal(server.count('streamAccountEvents'), 1, 'not reopened: waiting would not mend it');
});

/** The export of an event: the event line, then its games. */
const EXPORT = [
  { Event: { eventId: 'e1', state: 'finished' } },
  ...[0, 1, 2, 3].map((pair) => ({ Game: { pair, game: 0, gameId: `g${pair}`, history: ['e2e4'] } })),
];

t.test('an export cut in the middle is resumed: every line once, in order', async (t) => {
  let attempts = 0;
  let cut!: () => void;
  const mayCut = new Promise<void>((r) => (cut = r));
  const server = await fakeServer(t, {
    getEventGames: async (_r, res) => {
      const write = ndjson(res);
      if (++attempts === 1) {
        for (const line of EXPORT.slice(0, 3)) write(line);
        res.write('{"Game":{"pair":3,"ga'); // and the connection breaks inside a line
        await mayCut;
        res.destroy();
        return;
      }
      for (const line of EXPORT) write(line);
      res.end();
    },
  });
  const c = new Client({ url: server.base, backoff: { initialMs: 5, maxMs: 5 } });
  const got: unknown[] = [];
  for await (const line of c.getEventGames('e1')) {
    got.push(line);
    if (got.length === 3) cut(); // the three first lines are in the caller's hands: now break
  }
  t.equal(attempts, 2, 'fetched a second time after the break');
  t.same(got, EXPORT, 'each line once, in the order of the export');
});

t.test('an export that changed between the attempts ends with a clear error, never a mixture', async (t) => {
  for (const [name, second] of [
    ['a line differs', [EXPORT[0], { Game: { pair: 0, game: 0, gameId: 'other' } }, ...EXPORT.slice(2)]],
    ['shorter', EXPORT.slice(0, 1)],
  ] as const) {
    let attempts = 0;
    let cut!: () => void;
    const mayCut = new Promise<void>((r) => (cut = r));
    const server = await fakeServer(t, {
      getEventGames: async (_r, res) => {
        const write = ndjson(res);
        if (++attempts === 1) {
          for (const line of EXPORT.slice(0, 3)) write(line);
          await mayCut;
          res.destroy();
          return;
        }
        for (const line of second) write(line);
        res.end();
      },
    });
    const c = new Client({ url: server.base, backoff: { initialMs: 5, maxMs: 5 } });
    const got: unknown[] = [];
    const read = (async () => {
      for await (const line of c.getEventGames('e1')) {
        got.push(line);
        if (got.length === 3) cut();
      }
    })();
    await t.rejects(read, { name: 'StreamError', message: /^the export (changed between two attempts \(line 2 differs\)|ended after 1 lines on a second attempt)/ }, `${name}: a StreamError`);
    t.same(got, EXPORT.slice(0, 3), `${name}: the caller got the first attempt's lines, none twice, none of the second copy`);
    t.equal(attempts, 2, `${name}: two attempts`);
  }
});
