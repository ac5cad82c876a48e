// listen(): port 0 yields the real port, and close() really lets go, open connections included.
import t from 'tap';
import net from 'node:net';
import uWS from 'uWebSockets.js';
import { createRouter, json, listen } from '../../src/edge/toolkit.js';
import { MemoryLogger, openLines, request } from '../helpers/http.js';

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
