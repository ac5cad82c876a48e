// A bridge started before its server waits for it: it tries again with back-off (0.5 s doubling to
// 10 s, on an injected sleep here, so no real waiting), prints a line each time, and registers and
// announces ready once the server listens. A bound (--wait-for-server) ends the waiting with a clear
// error. A token the server answers with 401 still stops it at once (hostile.test.ts).
import t from 'tap';
import net from 'node:net';
import { bootApp } from '../helpers/app.js';
import { RANDOM_ENGINE, startBridge } from '../helpers/bridge.js';
import { tick, until } from '../helpers/poll.js';

/** A loopback port nothing listens on now: bound to port 0 and closed again. */
async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

t.test('started before the server: waits with back-off, then registers and is ready', async (t) => {
  const port = await freePort();
  const waits: number[] = [];
  let serverUp!: () => void;
  const up = new Promise<void>((r) => (serverUp = r));
  // The first four waits pass at once (their lengths are recorded); the fifth lasts until the server listens.
  const sleep = async (ms: number) => {
    waits.push(ms);
    await (waits.length >= 5 ? up : tick());
  };
  const starting = startBridge(t, `http://127.0.0.1:${port}`, ['--register', 'kit/late', '--json'], RANDOM_ENGINE, { sleep });
  await until(() => (waits.length >= 5 ? true : undefined), 'the bridge to wait five times');
  await bootApp(t, { overrides: { port } });
  serverUp();
  const b = await starting;
  t.same(waits, [500, 1000, 2000, 4000, 8000], 'the waits double from 0.5 s');
  const waiting = b.events.filter((e) => e.event === 'waitingForServer');
  t.equal(waiting.length, 5, 'a line for each wait');
  t.match(waiting[0], { url: `http://127.0.0.1:${port}`, status: 0, detail: /ECONNREFUSED/, attempt: 1, waitMs: 500 });
  t.match(b.events.find((e) => e.event === 'ready'), { id: 'bot:team:kit:late' }, 'registered and ready once the server answered');
  t.notOk(b.events.some((e) => e.event === 'error'), 'no error');
});

t.test('the waits stop growing at 10 s, and --wait-for-server bounds them', async (t) => {
  const port = await freePort();
  const waits: number[] = [];
  const sleep = async (ms: number) => void waits.push(ms);
  await t.rejects(startBridge(t, `http://127.0.0.1:${port}`, ['--wait-for-server', '40'], RANDOM_ENGINE, { sleep }), {
    message: new RegExp(`^the server at http://127\\.0\\.0\\.1:${port} did not answer within 40 s \\(--wait-for-server\\): .*ECONNREFUSED`),
  });
  t.same(waits, [500, 1000, 2000, 4000, 8000, 10_000, 10_000], 'capped at 10 s; the next wait would pass 40 s');
});
