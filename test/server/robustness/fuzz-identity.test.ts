// Hostile identity inputs, with fast-check: bearer tokens of every near-miss shape, and any label, unicode
// and control characters included, for anonymous and registered bot names (slugs, reserved teams, taken
// pairs). Every answer keeps the contract (robustness/support.ts), and the server still plays afterwards.
import t from 'tap';
import fc from 'fast-check';
import { lmdbApp, json, fixtures, routeOf, ops, property, uniqueMismatches, stillPlays } from '../../helpers/hostile.js';
import { headerSafe, parse, pct, type Sent } from '../../helpers/robustness.js';

t.test('hostile identity inputs', async (t) => {
  const app = await lmdbApp(t);
  const f = await fixtures(app);

  await t.test('bearer tokens: only an exact, live token authenticates', async (t) => {
    const tok = f.anonA.token;
    const good = [`Bearer ${tok}`, `bearer ${tok}`, `BEARER ${tok}`, `Bearer   ${tok}`, `Bearer ${tok}  `];
    const bad = fc.oneof(
      fc.constantFrom(
        undefined, '', 'Bearer', 'Bearer ', 'Bearer      ', 'Basic Zm9vOmJhcg==', tok, `Bearer${tok}`, `Bearer\t${tok}`, `Bearer ${tok} ${tok}`,
        `Bearer ${tok} x`, `Bearer ${tok}x`, `Bearer x${tok}`, `Bearer "${tok}"`, `Token ${tok}`, `Bearer ${tok.toUpperCase()}`,
        `Bearer ${f.rotatedOld}`, `Bearer ${'x'.repeat(10_000)}`, `Bearer ${tok.slice(0, -1)}`, `Bearer ${tok.slice(0, 4)}`, `Bearer dcb_`,
        `Bearer ${tok.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'))}`,
      ),
      fc.nat({ max: tok.length - 1 }).map((n) => `Bearer ${tok.slice(0, n)}`),
      fc.string({ unit: 'binary', maxLength: 50 }).map((s) => headerSafe(`Bearer ${s}`)),
    );
    const arb = fc.record({
      op: ops((r) => r.auth !== 'public'),
      header: fc.oneof(fc.constantFrom(...good).map((h) => ({ h, ok: true })), bad.map((h) => ({ h, ok: false }))),
      seat: fc.boolean(),
    });
    const toReq = ({ op, header, seat }: { op: string; header: { h: string | undefined }; seat: boolean }): Sent => {
      const route = routeOf(op);
      const headers: Record<string, string> = {};
      const h = seat ? `Bearer ${f.seatToken}` : header.h;
      if (h !== undefined) headers.authorization = h;
      return { method: route.method, path: route.path.replace(/\{[^}]+\}/g, 'NoSuchThing00000'), headers };
    };
    await property(t, 'tokens', app, arb, toReq, 400, ({ op, header, seat }, a) => {
      const route = routeOf(op);
      if (route.tag === 'Webhooks') return a.status === 503 ? [] : [`a webhook route answered ${a.status}, not 503`];
      const ok = seat ? route.auth === 'seatOrBearer' : header.ok;
      if (!ok && a.status !== 401) return [`expected 401, got ${a.status}`];
      if (ok && a.status === 401) return ['a valid token was refused'];
      return [];
    });
  });

  await t.test('POST /bot/anon?name=: any label, unicode and control characters included, is slugged as the contract says', async (t) => {
    const slug = (label: string | null): string => {
      if (!label) return 'bot';
      const s = label.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 20).replace(/-+$/, '');
      return s || 'bot';
    };
    const raw = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 60 }).map((s) => `name=${pct(s)}`),
      fc.string({ unit: 'grapheme', maxLength: 30 }).map((s) => `name=${pct(s)}`),
      fc.constantFrom('', 'name', 'name=', 'name=%', 'name=%zz', 'name=%FF%FE', 'name=a+b', 'name=%00%01%1F', 'name=a&name=b', `name=${'Z'.repeat(500)}`,
        'name=--a--', 'name=%E2%80%AE%E2%80%8B', 'name=K%E2%84%AA', 'name=ÀÉÎ', 'name=%20%20', 'name=a%0Ab', 'name=' + pct('İstanbul')),
    );
    await property(t, 'anon names', app, raw, (q) => ({ method: 'POST', path: `/bot/anon?${q}`, headers: {} }), 250, (q, a) => {
      if (a.status !== 201) return [`expected 201, got ${a.status}`];
      const body = parse(a.text) as { token: string; team: string; name: string; id: string };
      const want = slug(new URLSearchParams(q).get('name'));
      const out: string[] = [];
      if (!new RegExp(`^${want}-[0-9a-f]{8}$`).test(body.name)) out.push(`name ${JSON.stringify(body.name)}, expected ${want}-<8 hex>`);
      if (body.team !== 'anon' || body.id !== `bot:team:anon:${body.name}`) out.push(`team/id ${body.team} ${body.id}`);
      if (!/^dcb_[A-Za-z0-9_-]{32}$/.test(body.token)) out.push(`token ${body.token}`);
      return out;
    });
  });

  await t.test('POST /bot/register: slugs exactly as docs/API.md says, reserved teams, taken pairs', async (t) => {
    const SLUG = /^[a-z0-9][a-z0-9-]*$/;
    const valid = (s: unknown): boolean => typeof s === 'string' && s.length <= 32 && SLUG.test(s);
    const slugish = fc.stringMatching(/^[a-z0-9][a-z0-9-]{0,33}$/);
    const field = fc.oneof(
      { weight: 3, arbitrary: slugish },
      fc.constantFrom('anon', 'house', 'ANON', 'Team', '-lead', 'trail-', 'a'.repeat(32), 'a'.repeat(33), '', ' ', 'a b', 'a\n', '\na', 'a\u0000', 'ａｂｃ',
        'é', 'a_b', 'a.b', 'a/b', '0', '--', 'x\u200b', 'k\u212a'),
      fc.string({ unit: 'binary', maxLength: 12 }),
      fc.jsonValue({ maxDepth: 2 }),
    );
    const taken = new Set<string>(['fuzz reg', 'fuzz rot']);
    const arb = fc.record({ team: field, name: field });
    const toReq = (b: { team: unknown; name: unknown }): Sent => ({
      method: 'POST', path: '/bot/register', headers: { 'content-type': 'application/json' }, body: JSON.stringify(b),
    });
    await property(t, 'registrations', app, arb, toReq, 300, ({ team, name }, a) => {
      let want: number;
      if (!valid(team) || !valid(name)) want = 400;
      else if (team === 'anon' || team === 'house') want = 400;
      else want = taken.has(`${team as string} ${name as string}`) ? 409 : 201;
      if (a.status === 201) taken.add(`${team as string} ${name as string}`);
      return a.status === want ? [] : [`expected ${want}, got ${a.status}`];
    });
  });

  await stillPlays(t, app);

  t.same(uniqueMismatches(app), [], 'every answer matched the OpenAPI document');
});
