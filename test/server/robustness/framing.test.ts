// Malformed HTTP framing, below the routes: what a client gets when its bytes do not make a clean
// HTTP/1.1 request, or make one in an unusual way. Some of these never reach our code: uWebSockets'
// native HTTP parser refuses them itself, and no JavaScript runs for them. The binding this project
// uses (docs/OPERATIONS.md "Limits of the HTTP layer") answers none of those: it closes the connection, or
// holds it without a word until the client closes it or its idle timeout; an older build answered
// some with small HTML pages, still recognised here. Everything our code answers must meet the
// contract's error rules (a 4xx problem JSON, never a 5xx), and after every case the server must
// still serve normally.
import t from 'tap';
import type * as Tap from 'tap';
import { bootApp, type TestApp } from '../../helpers/app.js';
import { rawConnect } from '../../helpers/http.js';
import { parse } from '../../helpers/robustness.js';

interface Raw {
  status: number;
  contentType: string;
  body: string;
  /** What came back, for the failure message. */
  text: string;
}

/**
 * Writes the parts with a short pause between them (so they reach the server as separate reads),
 * half-closes (so a request the parser is still waiting on ends at once), then reads one answer.
 * Bounded: no answer within `ms` is reported as status 0.
 */
async function exchange(app: TestApp, parts: (string | Buffer)[], ms = 3000): Promise<Raw> {
  const c = await rawConnect(app.port);
  try {
    for (let i = 0; i < parts.length; i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 25));
      c.write(parts[i]);
    }
    c.end();
    const complete = (s: string): boolean => {
      const end = s.indexOf('\r\n\r\n');
      if (end < 0) return false;
      const len = /\r\ncontent-length: *(\d+)/i.exec(s.slice(0, end));
      return len ? s.length - end - 4 >= Number(len[1]) : /\r\nconnection: close/i.test(s.slice(0, end));
    };
    let timer: NodeJS.Timeout | undefined;
    const text = await Promise.race([
      c.until(complete).catch(() => c.received()),
      c.closed,
      new Promise<string>((r) => (timer = setTimeout(() => r(c.received()), ms))),
    ]);
    clearTimeout(timer);
    const m = /^HTTP\/1\.[01] (\d{3})/.exec(text);
    const end = text.indexOf('\r\n\r\n');
    const head = end < 0 ? text : text.slice(0, end);
    return {
      status: m ? Number(m[1]) : 0,
      contentType: /\r\ncontent-type: *([^\r]*)/i.exec(head)?.[1] ?? '',
      body: end < 0 ? '' : text.slice(end + 4),
      text: text.replace(/\r\nDate: [^\r]*/i, '').slice(0, 300),
    };
  } finally {
    c.destroy();
  }
}

/** Older builds of the native parser signed their own error pages; our code never produces this text. */
const NATIVE = 'uWebSockets/20 Server';
const fromNativeParser = (a: Raw): boolean => a.status === 0 || a.body.includes(NATIVE);

/** The contract's error shape, or what is wrong with the answer. */
function problems(a: Raw): string[] {
  const out: string[] = [];
  if (a.status === 0) return [`no answer: ${JSON.stringify(a.text)}`];
  if (a.status >= 500) out.push(`a ${a.status}`);
  if (a.status >= 400) {
    if (!a.contentType.startsWith('application/problem+json')) out.push(`content type ${JSON.stringify(a.contentType)}`);
    const p = parse(a.body) as { status?: number; code?: string } | undefined;
    if (p?.status !== a.status || typeof p?.code !== 'string') out.push(`body is not a problem: ${JSON.stringify(a.body.slice(0, 120))}`);
  }
  return out;
}

const GOOD = 'GET /health HTTP/1.1\r\nHost: x\r\nAccept: */*\r\n\r\n';

/**
 * Sends one framing case and checks what can be checked: an answer from our code meets the
 * contract, an answer from the native parser is recognised as such, and the server is still fine.
 */
async function framingCase(t: Tap.Test, app: TestApp, parts: (string | Buffer)[]): Promise<Raw> {
  const a = await exchange(app, parts);
  if (!fromNativeParser(a)) t.same(problems(a), [], `our answer meets the contract: ${a.text}`);
  else t.ok(a.status === 0 || a.status >= 400, `the native parser refused it (${a.status || 'no answer'})`);
  t.equal((await exchange(app, [GOOD])).status, 200, 'the server still answers');
  return a;
}

t.test('a valid request split across reads is answered wherever the split falls', async (t) => {
  const app = await bootApp(t);
  // Inside the method, the request target, the version and the headers (every byte position is
  // covered in clients.test.ts; an older binding refused splits inside the target with a 505).
  for (const at of [2, 8, 13, 20, 30]) {
    const a = await exchange(app, [GOOD.slice(0, at), GOOD.slice(at)]);
    t.equal(a.status, 200, `split after ${JSON.stringify(GOOD.slice(0, at))}: ${a.text}`);
  }
  const path = `/games/${'x'.repeat(3000)}`;
  const long = `GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`;
  t.equal((await exchange(app, [long])).status, 404, 'a 3 kB request line in one read is read (an unknown game)');
  const split = await exchange(app, [long.slice(0, 1400), long.slice(1400)]);
  t.equal(split.status, 404, 'and split in two reads as well');
  t.same(problems(split), [], 'with a problem body');
});

const MALFORMED: [string, (string | Buffer)[]][] = [
  ['an HTTP/1.0 request', ['GET /health HTTP/1.0\r\n\r\n']],
  ['a garbage request line', ['GARBAGE\r\n\r\n']],
  ['a control character in the request target', [Buffer.from('GET /games/\x01 HTTP/1.1\r\nHost: x\r\n\r\n', 'latin1')]],
  ['a tab in the request target', ['GET /he\tlth HTTP/1.1\r\nHost: x\r\n\r\n']],
  ['a non-numeric Content-Length', ['POST /lobby/seeks HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n']],
  ['a negative Content-Length', ['POST /lobby/seeks HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n']],
  ['a Content-Length of 20 digits', ['POST /lobby/seeks HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999\r\n\r\n']],
  ['Transfer-Encoding and Content-Length together', ['POST /lobby/seeks HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n']],
  ['two different Content-Length headers', ['POST /lobby/seeks HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 5\r\n\r\n{}{}}']],
  ['100 short headers', [`GET /health HTTP/1.1\r\nHost: x\r\n${Array.from({ length: 100 }, (_, i) => `X-H${i}: v\r\n`).join('')}\r\n`]],
  ['200 long headers (20 kB)', [`GET /health HTTP/1.1\r\nHost: x\r\n${Array.from({ length: 200 }, (_, i) => `X-${'h'.repeat(100)}${i}: v\r\n`).join('')}\r\n`]],
  ['a control character in a header value', [Buffer.from('GET /health HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \x01\x02\r\n\r\n', 'latin1')]],
  ['a NUL in a header value', [Buffer.from('GET /health HTTP/1.1\r\nHost: x\r\nX-A: \x00\r\n\r\n', 'latin1')]],
  ['a valid request followed by garbage in the same read', ['POST /bot/anon HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}GARBAGE\r\n\r\n']],
];

for (const [name, parts] of MALFORMED) {
  t.test(`${name}: never a 5xx or a non-problem from our code, and the server stays up`, async (t) => {
    const app = await bootApp(t);
    const a = await framingCase(t, app, parts);
    if (!fromNativeParser(a)) t.ok(a.status < 500, `not a 5xx (got ${a.status})`);
  });
}
