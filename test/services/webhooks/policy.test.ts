// The webhook URL policy with an injected resolver: every blocked range, the IPv4-mapped and NAT64
// forms of blocked IPv4 addresses, odd IPv4 literals, mixed answers, schemes, and insecure-local mode.
import t from 'tap';
import { checkUrl, refuseAddress, type Resolver } from '../../../src/services/webhooks/policy.js';

const table = (m: Record<string, string[]>): Resolver => async (host) => {
  const a = m[host];
  if (!a) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
  return a;
};
const strict = (m: Record<string, string[]> = {}) => ({ resolve: table(m), allowInsecureLocalTargets: false });

const BLOCKED: [string, string][] = [
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['10.0.0.1', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.1.1', 'private'],
  ['169.254.169.254', 'link-local'],
  ['169.254.0.1', 'link-local'],
  ['100.64.0.1', 'carrier-grade'],
  ['100.127.255.254', 'carrier-grade'],
  ['192.0.0.8', 'reserved'],
  ['192.0.2.1', 'reserved'],
  ['198.51.100.7', 'reserved'],
  ['203.0.113.9', 'reserved'],
  ['198.18.0.1', 'reserved'],
  ['198.19.255.1', 'reserved'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.255', 'broadcast'],
  ['::1', 'loopback'],
  ['::', 'unspecified'],
  ['fc00::1', 'unique-local'],
  ['fd12:3456::1', 'unique-local'],
  ['fe80::1', 'link-local'],
  ['2001:db8::1', 'reserved'],
  ['ff02::1', 'multicast'],
  ['::7f00:1', 'IPv4-compatible'],
  ['::a9fe:a9fe', 'IPv4-compatible'],
  ['::808:808', 'IPv4-compatible'],
  ['::1:0:0:1', 'IETF-reserved'],
  ['::ffff:0:7f00:1', 'IPv4-translated'],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
  ['2002:7f00:1::1', '6to4'],
  ['fec0::1', 'site-local'],
  ['100::1', 'discard'],
  ['2001:10::1', 'not public'],
  ['5f00::1', 'not public'],
];

t.test('every blocked range is refused, directly and behind a host name', async (t) => {
  for (const [addr, words] of BLOCKED) {
    const why = refuseAddress(addr, false);
    t.ok(why?.includes(words), `${addr}: ${why}`);
    const r = await checkUrl('https://hook.example/x', strict({ 'hook.example': [addr] }));
    t.equal(r.ok, false, `a host resolving to ${addr}`);
    if (!r.ok) t.equal(r.error.rule, 'address');
  }
});

t.test('IPv4-mapped and NAT64 forms of blocked IPv4 addresses are refused', async (t) => {
  for (const [v4] of BLOCKED.filter(([a]) => !a.includes(':'))) {
    const [a, b, c, d] = v4.split('.').map(Number);
    const hex = `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
    for (const form of [`::ffff:${v4}`, `::ffff:${hex}`, `64:ff9b::${v4}`, `64:ff9b::${hex}`]) {
      t.ok(refuseAddress(form, false), `${form} refused`);
      t.equal((await checkUrl(`https://[${form}]/hook`, strict())).ok, false, `literal [${form}] refused`);
    }
  }
  t.equal(refuseAddress('::ffff:8.8.8.8', false), null, 'a mapped public address is public');
  t.equal(refuseAddress('64:ff9b::808:808', false), null, 'NAT64 of a public address is public');
  t.ok(refuseAddress('64:ff9b:1::808:808', false), 'the local-use NAT64 prefix is not');
});

t.test('IPv4 literals in decimal, hex and octal are normalised before the check', async (t) => {
  for (const raw of ['https://2130706433/', 'https://0x7f000001/', 'https://0x7f.0.0.1/', 'https://0177.0.0.1/', 'https://017700000001/', 'https://127.1/', 'https://0xa9fea9fe/', 'https://3232235777/']) {
    const r = await checkUrl(raw, strict());
    t.equal(r.ok, false, raw);
    if (!r.ok) t.equal(r.error.rule, 'address', `${raw}: ${r.error.detail}`);
  }
  const pub = await checkUrl('https://134744072/hook', strict());
  t.ok(pub.ok && pub.value.address === '8.8.8.8', 'decimal 134744072 is 8.8.8.8, which is public');
});

t.test('every resolved address must be public', async (t) => {
  const mixed = await checkUrl('https://mixed.example/hook', strict({ 'mixed.example': ['93.184.216.34', '10.0.0.5'] }));
  t.equal(mixed.ok, false, 'one public and one private address: refused');
  if (!mixed.ok) t.match(mixed.error.detail, /10\.0\.0\.5/);
  const v6 = await checkUrl('https://mixed6.example/hook', strict({ 'mixed6.example': ['2606:4700::1', 'fd00::1'] }));
  t.equal(v6.ok, false, 'a public AAAA and a unique-local AAAA: refused');
  const good = await checkUrl('https://good.example/hook', strict({ 'good.example': ['93.184.216.34', '2606:4700::1'] }));
  t.ok(good.ok, 'all public');
  if (good.ok) {
    t.equal(good.value.address, '93.184.216.34', 'the first checked address is the one to connect to');
    t.equal(good.value.host, 'good.example');
  }
});

t.test('scheme, credentials, resolution', async (t) => {
  const cases: [string, string][] = [
    ['http://good.example/hook', 'scheme'],
    ['ftp://good.example/hook', 'scheme'],
    ['https://user:pw@good.example/hook', 'credentials'],
    ['https://nowhere.example/hook', 'resolve'],
    ['not a url', 'url'],
  ];
  for (const [url, rule] of cases) {
    const r = await checkUrl(url, strict({ 'good.example': ['93.184.216.34'] }));
    t.equal(r.ok ? 'ok' : r.error.rule, rule, url);
  }
  const empty = await checkUrl('https://empty.example/', strict({ 'empty.example': [] }));
  t.equal(empty.ok ? 'ok' : empty.error.rule, 'resolve', 'no addresses at all');
});

t.test('insecure-local mode lifts https and the public-address rules, but never allows unspecified or multicast', async (t) => {
  const local = { resolve: table({ 'dev.local': ['127.0.0.1'], 'zero.local': ['0.0.0.0'] }), allowInsecureLocalTargets: true };
  t.ok((await checkUrl('http://127.0.0.1:9000/hook', local)).ok, 'http to loopback');
  t.ok((await checkUrl('http://dev.local:9000/hook', local)).ok, 'a name resolving to loopback');
  t.ok((await checkUrl('http://10.1.2.3/hook', local)).ok, 'a private address');
  t.equal((await checkUrl('http://zero.local/hook', local)).ok, false, 'a name resolving to 0.0.0.0');
  t.equal((await checkUrl('http://224.0.0.1/hook', local)).ok, false, 'multicast');
  t.equal((await checkUrl('ftp://127.0.0.1/hook', local)).ok, false, 'still http(s) only');
});

t.test('IPv4-compatible IPv6 (::/96) is refused as a URL literal, even in insecure-local mode', async (t) => {
  const local = { resolve: table({}), allowInsecureLocalTargets: true };
  for (const raw of ['https://[::127.0.0.1]:18160/x', 'https://[::a9fe:a9fe]/x', 'https://[::8.8.8.8]/x']) {
    const r = await checkUrl(raw, strict());
    t.equal(r.ok ? 'ok' : r.error.rule, 'address', raw);
    if (!r.ok) t.match(r.error.detail, /IPv4-compatible/);
    t.equal((await checkUrl(raw.replace('https', 'http'), local)).ok, false, `${raw} in insecure-local mode`);
  }
  t.equal(refuseAddress('2606:4700::1', false), null, 'a public IPv6 address still passes');
});
