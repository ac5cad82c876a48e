// Client addresses: normalisation of what uWS reports, the right-most untrusted X-Forwarded-For hop
// behind trusted proxies, and the same over real HTTP.
import t from 'tap';
import { AddressKeys } from '../../src/edge/client-ip.js';
import { json, normalizeIp, parseTrustedProxies, rateLimitKey, resolveClientIp, type TrustedProxies } from '../../src/edge/toolkit.js';
import { request, serve } from '../helpers/http.js';

function trust(list: string[]): TrustedProxies {
  const r = parseTrustedProxies(list);
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

t.test('normalizeIp', async (t) => {
  t.equal(normalizeIp('127.0.0.1'), '127.0.0.1');
  t.equal(normalizeIp('::ffff:1.2.3.4'), '1.2.3.4', 'IPv4-mapped IPv6 becomes IPv4');
  t.equal(normalizeIp('0000:0000:0000:0000:0000:ffff:7f00:0001'), '127.0.0.1', 'the long form some uWS builds print');
  t.equal(normalizeIp('2001:DB8:0:0:0:0:0:1'), '2001:db8::1');
  t.equal(normalizeIp('fe80::1%eth0'), 'fe80::1');
  t.equal(normalizeIp('127.1'), undefined, 'legacy shorthand is not an address here');
  t.equal(normalizeIp('unknown'), undefined);
  t.equal(normalizeIp(''), undefined);
});

t.test('without trusted proxies the peer is the client, whatever the header says', async (t) => {
  t.equal(resolveClientIp('198.51.100.7', '203.0.113.1', undefined), '198.51.100.7');
  t.equal(resolveClientIp('::ffff:198.51.100.7', undefined, undefined), '198.51.100.7');
  const proxies = trust(['10.0.0.0/8']);
  t.equal(resolveClientIp('198.51.100.7', '203.0.113.1', proxies), '198.51.100.7', 'an untrusted peer cannot speak for others');
});

t.test('behind trusted proxies: the right-most untrusted hop', async (t) => {
  const proxies = trust(['10.0.0.0/8', '192.0.2.5', '2001:db8:ffff::/48']);
  t.equal(resolveClientIp('10.1.1.1', '203.0.113.9', proxies), '203.0.113.9');
  t.equal(resolveClientIp('10.1.1.1', '6.6.6.6, 203.0.113.9, 192.0.2.5', proxies), '203.0.113.9', 'forged entries on the left are ignored');
  t.equal(resolveClientIp('::ffff:10.1.1.1', '203.0.113.9', proxies), '203.0.113.9', 'a mapped peer matches IPv4 ranges');
  t.equal(resolveClientIp('2001:db8:ffff::1', '2001:db8:1::5', proxies), '2001:db8:1::5');
  t.equal(resolveClientIp('10.1.1.1', '[2001:db8:1::5]:443', proxies), '2001:db8:1::5', 'bracketed IPv6 with a port');
  t.equal(resolveClientIp('10.1.1.1', '203.0.113.9:5678', proxies), '203.0.113.9', 'IPv4 with a port');
  t.equal(resolveClientIp('10.1.1.1', '::ffff:203.0.113.9', proxies), '203.0.113.9');
  t.equal(resolveClientIp('10.1.1.1', '10.2.2.2, 10.3.3.3', proxies), '10.2.2.2', 'all trusted: the furthest hop');
  t.equal(resolveClientIp('10.1.1.1', undefined, proxies), '10.1.1.1', 'no header: the proxy itself');
  t.equal(resolveClientIp('10.1.1.1', 'garbage, 10.3.3.3', proxies), '10.3.3.3', 'garbage: the last hop we could read');
  t.equal(resolveClientIp('10.1.1.1', '', proxies), '10.1.1.1');
});

t.test('trusted proxy lists', async (t) => {
  const p = trust(['::ffff:10.0.0.0/104', '127.0.0.1']);
  t.ok(p.has('10.9.9.9'), 'a mapped CIDR covers plain IPv4');
  t.ok(p.has('127.0.0.1'));
  t.notOk(p.has('127.0.0.2'));
  t.notOk(p.has('not an ip'));
  t.notOk(trust([]).has('127.0.0.1'));
  const bad = parseTrustedProxies(['10.0.0.0/8', 'proxy.internal']);
  t.notOk(bad.ok);
  if (!bad.ok) t.match(bad.error, /proxy\.internal/);
  t.notOk(parseTrustedProxies(['10.0.0.0/99']).ok);
});

t.test('rate-limit keys group an IPv6 host by /64', async (t) => {
  t.equal(rateLimitKey('203.0.113.9'), '203.0.113.9');
  t.equal(rateLimitKey('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64');
  t.equal(rateLimitKey('2001:db8:1:2:bbbb::9'), '2001:db8:1:2::/64');
});

t.test('over HTTP: ctx.ip and ctx.peer', async (t) => {
  const setup = (r: Parameters<Parameters<typeof serve>[1]>[0]) => r.get('/ip', (ctx) => json(200, { ip: ctx.ip, peer: ctx.peer }));
  const direct = await serve(t, setup);
  const d = await request('GET', direct.base + '/ip', { headers: { 'x-forwarded-for': '203.0.113.9' } });
  t.same(d.json, { ip: '127.0.0.1', peer: '127.0.0.1' }, 'the header is ignored without trusted proxies');
  const proxied = await serve(t, setup, { trustedProxies: trust(['127.0.0.0/8']) });
  const p = await request('GET', proxied.base + '/ip', { headers: { 'x-forwarded-for': '6.6.6.6, 203.0.113.9' } });
  t.same(p.json, { ip: '203.0.113.9', peer: '127.0.0.1' });
});

t.test('AddressKeys: the memo answers exactly what resolving and keying each time would', async (t) => {
  const trusted = trust(['10.0.0.0/8']);
  const cases: [string, string | undefined][] = [
    ['127.0.0.1', undefined],
    ['127.0.0.1', '203.0.113.9'],
    ['::ffff:127.0.0.1', undefined],
    ['10.1.2.3', '203.0.113.9'],
    ['10.1.2.3', '203.0.113.10'],
    ['10.1.2.3', '198.51.100.1, 10.9.9.9'],
    ['10.1.2.3', undefined],
    ['2001:db8:1:2:3:4:5:6', undefined],
    ['2001:db8:1:2:ffff::1', undefined],
  ];
  for (const proxies of [undefined, trusted]) {
    const memo = new AddressKeys(proxies, 3);
    for (let round = 0; round < 2; round++) {
      for (const [peer, xff] of cases) {
        t.equal(memo.keyOf(peer, xff), rateLimitKey(resolveClientIp(peer, xff, proxies)), `${peer} / ${xff ?? '-'} / ${proxies ? 'trusted' : 'no proxies'}`);
      }
    }
  }
});
