// listen(): port 0 yields the real port, and close() really lets go, open connections included.
import t from 'tap';
import net from 'node:net';
import uWS from 'uWebSockets.js';
import { createRouter, json, listen } from '../../src/edge/toolkit.js';
import { deferred, freePort, MemoryLogger, openLines, rawConnect, request } from '../helpers/http.js';

t.test('port 0, then close with a stream still open', async (t) => {
  const app = uWS.App();
  const closes: string[] = [];
  const r = createRouter(app, { logger: new MemoryLogger() });
  r.get('/x', () => json(200, { ok: true }));
  r.get('/s', (ctx) => ctx.ndjson().onClose((why) => closes.push(why)));
  const server = await listen(r, '127.0.0.1', 0);
  t.ok(server.port > 0);
  const res = await request('GET', `http://127.0.0.1:${server.port}/x`);
  t.equal(res.status, 200);
  const stream = await openLines(`http://127.0.0.1:${server.port}/s`);
  t.equal(await stream.next(), '');
  server.close();
  server.close(); // idempotent
  t.same(await stream.closed, { complete: false }, 'open streams are closed');
  t.same(closes, ['client']);
  const refused = await new Promise<string>((resolve) => {
    const s = net.connect(server.port, '127.0.0.1');
    s.on('connect', () => {
      s.destroy();
      resolve('connected');
    });
    s.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'));
  });
  t.equal(refused, 'ECONNREFUSED');
});

t.test('a bad address is a rejected promise, not a crash', async (t) => {
  const r = createRouter(uWS.App(), { logger: new MemoryLogger() });
  await t.rejects(listen(r, '203.0.113.1', 0), /cannot listen on 203\.0\.113\.1:0: address 203\.0\.113\.1 is not an address of this machine/);
});

t.test('a second listen on a busy port is refused: "port N is already in use"', async (t) => {
  const port = await freePort();
  const first = await listen(createRouter(uWS.App(), { logger: new MemoryLogger() }), '127.0.0.1', port);
  t.teardown(() => first.close());
  const second = createRouter(uWS.App(), { logger: new MemoryLogger() });
  await t.rejects(listen(second, '127.0.0.1', port), new RegExp(`^cannot listen on 127\\.0\\.0\\.1:${port}: port ${port} is already in use$`));
});

t.test('close() cuts requests in flight, and an idle keep-alive connection that speaks later', async (t) => {
  const app = uWS.App();
  const r = createRouter(app, { logger: new MemoryLogger() });
  const aborted: string[] = [];
  let served = 0;
  r.get('/x', () => {
    served++;
    return json(200, { ok: true });
  });
  const started = deferred<void>();
  r.get('/never', (ctx) => {
    ctx.res.onAbort(() => aborted.push('never'));
    started.resolve();
    return new Promise<never>(() => {}); // a handler still waiting when the server stops
  });
  const server = await listen(r, '127.0.0.1', 0);
  const idle = await rawConnect(server.port);
  idle.write('GET /x HTTP/1.1\r\nHost: x\r\n\r\n');
  await idle.until((s) => s.includes('{"ok":true}'));
  const waiting = await rawConnect(server.port);
  waiting.write('GET /never HTTP/1.1\r\nHost: x\r\n\r\n');
  await started.promise;

  server.close();
  t.equal(await waiting.closed, '', 'the waiting request: connection closed, nothing sent');
  t.same(aborted, ['never'], 'its handler learnt that the client is gone');
  // uWS keeps idle connections out of reach; the next request on one closes it unanswered.
  idle.write('GET /x HTTP/1.1\r\nHost: x\r\n\r\n');
  const text = await idle.closed;
  t.equal(text.split('{"ok":true}').length - 1, 1, 'the idle connection: closed, its second request unanswered');
  t.equal(served, 1, 'and no handler ran for it');
});
