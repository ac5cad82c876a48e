// One server per port and per data directory, with real `dicechess serve` processes. A second
// server on a busy port, or on a directory another server holds, must refuse to start with one plain
// line on stderr (the port; the directory and the holder's PID), and the first must go on serving
// alone. A holder killed with SIGKILL leaves nothing behind that blocks the next start.
import t from 'tap';
import type * as Tap from 'tap';
import { join } from 'node:path';
import { freePort } from '../../helpers/http.js';
import { harness, type Refusal, type ServerProcess } from '../../helpers/persistence.js';

/** The lines a refused start wrote to stderr, blank ones dropped. */
const stderrLines = (r: Refusal): string[] => r.stderr.split('\n').filter((l) => l.trim() !== '');

/** A fresh anonymous token works on the same server for several requests in a row. */
async function servesAlone(t: Tap.Test, p: ServerProcess): Promise<void> {
  const anon = await p.req('POST', '/bot/anon?name=alone');
  t.equal(anon.status, 201, 'the first server still mints tokens');
  const token = (anon.json as { token: string }).token;
  for (let i = 0; i < 5; i++) {
    // With two servers splitting one port, a token minted on one is a 401 on the other.
    const me = await p.req('GET', '/bot/account', { token });
    t.equal(me.status, 200, `request ${i + 1} with the fresh token reaches the server that minted it`);
  }
}

t.test('a second server on a busy port exits non-zero with "port N is already in use"', async (t) => {
  // A port given on the command line, as in production: a socket bound to port 0 is never shared
  // with another anyway, so the hole this test guards against needs a fixed port.
  const first = await harness(t, 'port-a').start({}, ['--port', String(await freePort())]);
  const other = harness(t, 'port-b');
  const r = await other.startRefused(['--port', String(first.port)]);
  t.not(r.exit, undefined, `the second server did not start (its output: ${r.stdout}${r.stderr})`);
  t.equal(r.exit?.code, 1, 'exit code 1');
  const lines = stderrLines(r);
  t.equal(lines.length, 1, `one line on stderr: ${JSON.stringify(r.stderr)}`);
  t.match(lines[0], new RegExp(`port ${first.port} is already in use`));
  t.notMatch(r.stderr, /\n\s+at /, 'no stack trace');
  await servesAlone(t, first);
});

t.test('a second server on the same data directory exits non-zero naming the directory and the holder', async (t) => {
  const h = harness(t, 'dir');
  const first = await h.start();
  const r = await h.startRefused(); // its own port 0, the same --data
  t.not(r.exit, undefined, `the second server did not start (its output: ${r.stdout}${r.stderr})`);
  t.equal(r.exit?.code, 1, 'exit code 1');
  const lines = stderrLines(r);
  t.equal(lines.length, 1, `one line on stderr: ${JSON.stringify(r.stderr)}`);
  t.ok(lines[0].includes(join(h.dir, 'data')), `names the directory: ${lines[0]}`);
  t.ok(lines[0].includes(`pid ${first.pid}`), `names the holder's pid ${first.pid}: ${lines[0]}`);
  await servesAlone(t, first);
});

t.test('after kill -9 of the holder the next server starts at once, and holds the directory in turn', async (t) => {
  const h = harness(t, 'dir-kill');
  const first = await h.start();
  // Registered tokens survive a restart (anonymous ones do not), so this one tells the directory apart.
  const reg = await first.req('POST', '/bot/register', { body: { team: 'lock', name: 'survivor' } });
  t.equal(reg.status, 201);
  t.same(await first.stop('SIGKILL'), { code: null, signal: 'SIGKILL' });

  const second = await h.start();
  const me = await second.req('GET', '/bot/account', { token: (reg.json as { token: string }).token });
  t.equal(me.status, 200, 'the directory is the same one: the token registered before the kill still works');

  const third = await h.startRefused();
  t.equal(third.exit?.code, 1, 'a third server is refused: the new holder has the lock');
  t.match(stderrLines(third)[0] ?? '', new RegExp(`pid ${second.pid}\\b`), 'and it names the new holder');
});

t.test('a clean stop lets go of the directory as well', async (t) => {
  const h = harness(t, 'dir-stop');
  const first = await h.start();
  t.same(await first.stop('SIGTERM'), { code: 0, signal: null });
  const second = await h.start();
  t.equal((await second.req('GET', '/health')).status, 200);
});
