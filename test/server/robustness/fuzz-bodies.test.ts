// Hostile request bodies: wrong types for every field, deeply nested JSON within the cap, bodies over the
// cap with and without a Content-Length, and slow, partial and abandoned uploads over raw sockets. Every
// answer keeps the contract (robustness/support.ts), and the server still plays afterwards.
import t from 'tap';
import { ROUTES, type RouteSpec } from '../../../src/wire/routes.js';
import { anonBot, bootApp } from '../../helpers/app.js';
import { rawConnect } from '../../helpers/http.js';
import { CAP, lmdbApp, json, fixtures, validBody, deep, deepObject, uniqueMismatches, stillPlays } from '../../helpers/hostile.js';
import { parse, send, violations, type Sent } from '../../helpers/robustness.js';

t.test('hostile request bodies', async (t) => {
  const app = await lmdbApp(t);
  const f = await fixtures(app);

  await t.test('wrong types for every field of every body are 400 with a detail naming the field', async (t) => {
    const ctx: Record<string, { path: string; token?: string; valid: Record<string, unknown> }> = {
      register: { path: '/bot/register', valid: { team: 'typed', name: 'bot' } },
      createChallenge: { path: '/bot/challenge', token: f.anonA.token, valid: { team: 'house', name: 'random' } },
      createSeek: { path: '/bot/seeks', token: f.anonB.token, valid: {} },
      createGuestSeek: { path: '/lobby/seeks', valid: {} },
      guestAcceptSeek: { path: `/lobby/seeks/${f.seek.seekId}/accept`, valid: {} },
      submitMove: { path: `/bot/game/${f.gameAB}/move`, token: f.anonA.token, valid: { moves: ['e2e4'] } },
    };
    const wrong: Record<string, unknown[]> = {
      team: [0, 1.5, true, null, [], {}, ['house'], { house: 1 }],
      name: [0, -1, false, null, [], {}, ['random']],
      guestId: [0, true, null, [], {}, '', 'g'.repeat(65)],
      moves: ['e2e4', 0, true, null, {}, [1], [null], [[]], [{}], ['e2e4', 5], Array(17).fill('e2e4'), ['e2e4e2e4e']],
      timeControl: [
        'Fischer', 0, true, null, [], {}, { Fischer: {} }, { Fischer: { initialSeconds: '600', incrementSeconds: 10 } },
        { Fischer: { initialSeconds: 600.5, incrementSeconds: 10 } }, { Fischer: { initialSeconds: 0, incrementSeconds: 0 } },
        { Fischer: { initialSeconds: 86_401, incrementSeconds: 0 } }, { Fischer: { initialSeconds: 60, incrementSeconds: 601 } },
        { Fischer: { initialSeconds: 60, incrementSeconds: -1 } }, { PerMove: { secondsPerMove: 0 } }, { PerMove: { secondsPerMove: 86_401 } },
        { SuddenDeath: { initialSeconds: -1 } }, { SuddenDeath: {} }, { Unlimited: {}, PerMove: { secondsPerMove: 5 } }, { Blitz: {} },
        { Unlimited: null }, { Unlimited: [] }, { Unlimited: 1 }, { Fischer: null }, { Fischer: { initialSeconds: 1e400, incrementSeconds: 0 } },
      ],
    };
    const fieldsOf: Record<string, string[]> = {
      register: ['team', 'name'], createChallenge: ['team', 'name', 'timeControl'], createSeek: ['timeControl'],
      createGuestSeek: ['timeControl'], guestAcceptSeek: ['guestId'], submitMove: ['moves'],
    };
    const failures: string[] = [];
    let n = 0;
    for (const [op, fields] of Object.entries(fieldsOf)) {
      const c = ctx[op];
      for (const field of fields) {
        for (const value of wrong[field]) {
          const body = JSON.stringify({ ...c.valid, [field]: value }).replace('1e+400', '1e400');
          const req: Sent = { method: 'POST', path: c.path, headers: { 'content-type': 'application/json', ...(c.token ? { authorization: `Bearer ${c.token}` } : {}) }, body };
          const a = await send(app.port, req);
          n++;
          const p = parse(a.text) as { detail?: string; code?: string } | undefined;
          const v = violations(req, a);
          if (a.status !== 400) v.push(`expected 400, got ${a.status}`);
          else if (!p?.detail?.startsWith(field)) v.push(`detail ${JSON.stringify(p?.detail)} does not name ${field}`);
          if (v.length) failures.push(`${op}.${field}=${JSON.stringify(value).slice(0, 60)}: ${v.join('; ')}`);
        }
      }
    }
    // The required fields missing altogether.
    for (const [op, path, body, field] of [
      ['register', '/bot/register', { name: 'x' }, 'team'], ['register', '/bot/register', { team: 'x' }, 'name'],
      ['createChallenge', '/bot/challenge', { name: 'random' }, 'team'], ['submitMove', `/bot/game/${f.gameAB}/move`, { move: ['e2e4'] }, 'moves'],
    ] as const) {
      const c = ctx[op];
      const req: Sent = { method: 'POST', path, headers: { 'content-type': 'application/json', ...(c.token ? { authorization: `Bearer ${c.token}` } : {}) }, body: JSON.stringify(body) };
      const a = await send(app.port, req);
      n++;
      const detail = (parse(a.text) as { detail?: string } | undefined)?.detail ?? '';
      if (a.status !== 400 || !detail.startsWith(`${field}: is required`)) failures.push(`${op} without ${field}: ${a.status} ${detail}`);
    }
    // The seed route judges its body itself: whatever the seed looks like, 202 and never an error.
    for (const value of [0, null, [], {}, 'short', 's'.repeat(257), ['a-perfectly-good-seed'], true]) {
      const req: Sent = { method: 'POST', path: `/bot/game/${f.gameAB}/seed`, headers: { 'content-type': 'application/json', authorization: `Bearer ${f.anonA.token}` }, body: JSON.stringify({ seed: value }) };
      const a = await send(app.port, req);
      n++;
      if (a.status !== 202 || a.text !== '{}') failures.push(`seed=${JSON.stringify(value)}: ${a.status} ${a.text}`);
    }
    t.same(failures, [], `${n} mistyped bodies`);
  });

  await t.test('deeply nested JSON within the cap is a quick 400, at the top level and inside fields', async (t) => {
    const tokenFor = (r: RouteSpec): string | undefined => (r.auth === 'public' ? undefined : f.anonA.token);
    const bodyRoutes = ROUTES.filter((r) => r.request?.body && r.tag !== 'Webhooks');
    const depth = 32_000; // 64,000 bytes of brackets: just under the 64 KiB cap
    let count = 0;
    const failures: string[] = [];
    for (const route of bodyRoutes) {
      const valid = validBody(route, f) ?? {};
      // Nested at the top, and in each field the route reads (unknown fields are ignored by contract).
      const bodies = [deep(depth)];
      for (const field of Object.keys(valid)) {
        const shell = JSON.stringify({ ...valid, [field]: '@' });
        bodies.push(shell.replace('"@"', deep(Math.floor((CAP - shell.length) / 2) - 1)));
        bodies.push(shell.replace('"@"', deepObject(Math.floor((CAP - shell.length) / 6) - 1)));
        if (field === 'timeControl') bodies.push(JSON.stringify({ timeControl: { Fischer: '@' } }).replace('"@"', deep(30_000)));
      }
      for (const body of bodies) {
        count++;
        if (Buffer.byteLength(body) > CAP) failures.push(`${route.operationId}: test body over the cap`);
        const path = route.path.replace('{id}', route.tag === 'Lobby' ? f.seek.seekId : f.gameAB);
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        const tok = tokenFor(route);
        if (tok) headers.authorization = `Bearer ${tok}`;
        const req: Sent = { method: route.method, path, headers, body };
        const a = await send(app.port, req);
        const want = route.request?.lenient ? 202 : 400;
        const v = violations(req, a);
        if (a.status !== want) v.push(`expected ${want}, got ${a.status} ${a.text.slice(0, 120)}`);
        if (v.length) failures.push(`${route.operationId} ${body.slice(0, 30)}…: ${v.join('; ')}`);
      }
    }
    t.same(failures, [], `${count} deeply nested bodies, every one within the cap`);
    t.equal((await app.req('GET', '/health')).status, 200);
  });

  await t.test('bodies over 64 KiB are 413, with or without a Content-Length; 64 KiB exactly is read', async (t) => {
    const over = deep(100_000); // 10^5 nested arrays, 200 kB
    for (const route of ROUTES.filter((r) => r.request?.body && r.tag !== 'Webhooks')) {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (route.auth !== 'public') headers.authorization = `Bearer ${f.anonB.token}`;
      const path = route.path.replace('{id}', route.tag === 'Lobby' ? f.guestSeek.seekId : f.gameAB);
      const req: Sent = { method: route.method, path, headers, body: over };
      const a = await send(app.port, req);
      t.same(violations(req, a, { mayCut: true }), [], `${route.operationId}: a clean answer`);
      t.equal(a.status, 413, `${route.operationId}: 10^5 nested arrays (declared length) → 413`);
    }
    // No Content-Length (chunked): the cap applies as the bytes arrive.
    const c = await rawConnect(app.port);
    c.write('POST /bot/register HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n');
    for (let i = 0; i < 80; i++) c.write(`400\r\n${'['.repeat(0x400)}\r\n`);
    const text = await c.closed;
    t.match(text, /^HTTP\/1\.1 413 /, 'a chunked upload past the cap is cut with 413');
    t.match(text, /application\/problem\+json/);
    // At the cap exactly: read and judged (a valid registration padded with whitespace).
    const exact = JSON.stringify({ team: 'capped', name: 'exactly' });
    const padded = exact + ' '.repeat(CAP - exact.length);
    t.equal(Buffer.byteLength(padded), CAP);
    const atCap = await send(app.port, { method: 'POST', path: '/bot/register', headers: { 'content-type': 'application/json' }, body: padded });
    t.equal(atCap.status, 201, '65,536 bytes are allowed');
    const oneMore = await send(app.port, { method: 'POST', path: '/bot/register', headers: { 'content-type': 'application/json' }, body: padded + ' ' });
    t.equal(oneMore.status, 413, '65,537 bytes are not');
  });

  await t.test('slow, partial and abandoned uploads over raw sockets', async (t) => {
    const reg = (body: string, len = Buffer.byteLength(body)) =>
      `POST /bot/register HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${len}\r\n\r\n${body}`;
    const body = JSON.stringify({ team: 'slow', name: 'half' });

    // Half a body, then the client goes away: nothing is registered, nothing breaks.
    for (let i = 0; i < 20; i++) {
      const c = await rawConnect(app.port);
      c.write(reg(body).slice(0, -Math.floor(body.length / 2)));
      c.destroy();
    }
    // Headers announcing a body that never comes, then gone.
    for (let i = 0; i < 20; i++) {
      const c = await rawConnect(app.port);
      c.write(`POST /bot/game/${f.gameAB}/move HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${f.anonA.token}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n`);
      c.destroy();
    }
    // A chunked upload abandoned in the middle of a chunk.
    for (let i = 0; i < 10; i++) {
      const c = await rawConnect(app.port);
      c.write('POST /lobby/seeks HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n20\r\n{"timeControl"');
      c.destroy();
    }
    // Fifty uploads stalled mid-body and left open: everyone else is still served meanwhile.
    const stalled = await Promise.all(Array.from({ length: 50 }, () => rawConnect(app.port)));
    for (const c of stalled) c.write(reg(body).slice(0, -5));
    t.equal((await app.req('GET', '/health')).status, 200, '/health answers beside 50 stalled uploads');
    const meanwhile = await app.req('POST', '/bot/register', { body: { team: 'slow', name: 'meanwhile' } });
    t.equal(meanwhile.status, 201, 'and so does a registration');
    for (const c of stalled) c.destroy();

    const after = await app.req('POST', '/bot/register', { body: { team: 'slow', name: 'half' } });
    t.equal(after.status, 201, 'no abandoned upload registered anything');

    // A slow upload that does finish: the head in one piece, then the body one byte at a time.
    // (A head split inside its request line is another matter: see framing.test.ts.)
    const c = await rawConnect(app.port);
    const slow = reg(JSON.stringify({ team: 'slow', name: 'dribble' }));
    const cut = slow.indexOf('\r\n\r\n') + 4;
    c.write(slow.slice(0, cut));
    for (const ch of slow.slice(cut)) {
      await new Promise((r) => setTimeout(r, 1));
      c.write(ch);
    }
    const answer = await c.until((s) => s.includes('\r\n\r\n') && s.includes('"token"'));
    c.destroy();
    t.match(answer, /^HTTP\/1\.1 201 /, 'a byte-by-byte upload is answered normally');

    // A Content-Length over the cap is refused before any body byte is sent.
    const big = await rawConnect(app.port);
    big.write(`POST /bot/register HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${CAP + 1}\r\n\r\n`);
    const refused = await big.closed;
    t.match(refused, /^HTTP\/1\.1 413 /, 'declared too large: 413 at once, and the connection is closed');
    t.equal((await app.req('GET', '/health')).status, 200);
  });

  await stillPlays(t, app);

  t.same(uniqueMismatches(app), [], 'every answer matched the OpenAPI document');
});

t.test('the 64 KiB cap on routes without a body is declared in the OpenAPI document', async (t) => {
  const app = await bootApp(t);
  const bot = await anonBot(app, 'bodiless');
  const bodiless = ROUTES.filter((r) => r.method !== 'GET' && !r.request?.body && r.tag !== 'Webhooks');
  for (const route of bodiless) {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (route.auth !== 'public') headers.authorization = `Bearer ${bot.token}`;
    const req: Sent = { method: route.method, path: route.path.replace(/\{[^}]+\}/g, 'NoSuchThing00000'), headers, body: deep(40_000) };
    const a = await send(app.port, req);
    t.same(violations(req, a, { mayCut: true }), [], `${route.operationId}: a clean answer`);
    t.equal(a.status, 413, `${route.operationId}: an 80 kB body is refused with 413`);
  }
  t.same(uniqueMismatches(app), [], 'and every such 413 is a status the document declares');
});
