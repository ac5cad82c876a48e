// The webhook URL policy (the server-side request forgery guard). A URL is accepted only when it is
// https and every address its host resolves to is a public unicast address; the one address the
// connection will use is returned with the verdict, so the client connects to exactly what was checked.
// Address classes come from ipaddr.js; the WHATWG URL parser has already normalised IPv4 literals
// written in decimal, hex or octal (https://0x7f.1/ is 127.0.0.1 by the time we see it).
import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import { err, ok, type Result } from '../../domain/result.js';

/** Every address a host name resolves to (A and AAAA), in resolver order. */
export type Resolver = (host: string) => Promise<string[]>;

export const systemResolver: Resolver = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

export interface PolicyOptions {
  resolve: Resolver;
  /**
   * Local development only: allows http and private/loopback addresses. Addresses that are never a
   * valid destination (unspecified, multicast, broadcast) stay refused even then.
   */
  allowInsecureLocalTargets: boolean;
}

/** A URL that passed the policy, and the address it must be reached at. */
export interface CheckedTarget {
  url: URL;
  /** Host name as written (the TLS server name and the Host header). */
  host: string;
  /** The checked address the connection goes to. */
  address: string;
  family: 4 | 6;
}

export interface PolicyRefusal {
  /** Which rule: scheme, credentials, resolve, address. */
  rule: 'url' | 'scheme' | 'credentials' | 'resolve' | 'address';
  detail: string;
}

/**
 * Range names that stay refused even in insecure-local mode: ipaddr.js's, plus our own names for
 * the IPv6 blocks ipaddr.js calls unicast although nothing may route them (see addressClass).
 */
const NEVER = new Set(['unspecified', 'multicast', 'broadcast', 'ipv4Compatible', 'ietfReserved']);

/** Explains a blocked range in the words of the policy. */
const RANGE_WORDS: Record<string, string> = {
  unspecified: 'unspecified (0.0.0.0/8 or ::)',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local (169.254/16, fe80::/10; cloud metadata lives here)',
  loopback: 'loopback',
  carrierGradeNat: 'carrier-grade NAT (100.64/10)',
  private: 'private (RFC 1918)',
  reserved: 'reserved (192.0.0/24, TEST-NETs, 198.18/15, 240/4, 2001:db8::/32, …)',
  uniqueLocal: 'unique-local (fc00::/7)',
  rfc6052: 'NAT64 outside 64:ff9b::/96',
  ipv4Compatible: 'IPv4-compatible IPv6 (::/96, deprecated; it would reach the IPv4 address it carries)',
  ietfReserved: 'IETF-reserved IPv6 (::/8)',
  rfc6145: 'IPv4-translated IPv6 (::ffff:0:0:0/96)',
  teredo: 'Teredo (2001::/32)',
  '6to4': '6to4 (2002::/16, deprecated)',
  deprecatedSiteLocal: 'site-local (fec0::/10, deprecated)',
  discard: 'discard-only (100::/64)',
};

/** The IPv6 blocks below ::/8 that ipaddr.js leaves as unicast. */
const V4_COMPATIBLE = ipaddr.parseCIDR('::/96');
const IETF_RESERVED = ipaddr.parseCIDR('::/8');

/**
 * The class of one address, looking through IPv4-mapped (::ffff:a.b.c.d) and NAT64 (64:ff9b::/96)
 * forms to the IPv4 address they carry. 'unicast' means public.
 */
export function addressClass(text: string): { range: string; v4: string | null } | null {
  if (!ipaddr.isValid(text)) return null;
  const addr = ipaddr.parse(text);
  if (addr.kind() === 'ipv4') return { range: addr.range(), v4: addr.toString() };
  const v6 = addr as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return addressClass(v6.toIPv4Address().toString());
  if (v6.match(ipaddr.parseCIDR('64:ff9b::/96'))) {
    const p = v6.parts;
    return addressClass(`${p[6] >> 8}.${p[6] & 255}.${p[7] >> 8}.${p[7] & 255}`);
  }
  const range = v6.range();
  // ipaddr.js names :: and ::1 but calls the rest of ::/8 unicast. ::/96 is the deprecated
  // IPv4-compatible form (::127.0.0.1 is loopback on hosts that still honour it); the rest of ::/8 is
  // reserved and never routed. Every other special block (Teredo, 6to4, ORCHID, discard, ...) already
  // has a range name of its own and is refused because it is not 'unicast'.
  if (range === 'unicast' && v6.match(V4_COMPATIBLE)) return { range: 'ipv4Compatible', v4: null };
  if (range === 'unicast' && v6.match(IETF_RESERVED)) return { range: 'ietfReserved', v4: null };
  return { range, v4: null };
}

/** Null when the address may be connected to, else why not. */
export function refuseAddress(address: string, insecureLocal: boolean): string | null {
  const cls = addressClass(address);
  if (!cls) return `${address} is not an IP address`;
  if (cls.range === 'unicast') return null;
  if (insecureLocal && !NEVER.has(cls.range)) return null;
  const shown = cls.v4 && cls.v4 !== address ? `${address} (IPv4 ${cls.v4})` : address;
  return `address ${shown} is ${RANGE_WORDS[cls.range] ?? `not public (${cls.range})`}`;
}

/** Checks a webhook URL: scheme, host resolution, and every resolved address. */
export async function checkUrl(raw: string, opts: PolicyOptions): Promise<Result<CheckedTarget, PolicyRefusal>> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return err({ rule: 'url', detail: 'not an absolute URL' });
  }
  const schemes = opts.allowInsecureLocalTargets ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) return err({ rule: 'scheme', detail: 'the URL must use https' });
  if (url.username || url.password) return err({ rule: 'credentials', detail: 'the URL must not carry credentials' });
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  let addresses: string[];
  if (ipaddr.isValid(host)) {
    addresses = [host];
  } else {
    try {
      addresses = await opts.resolve(host);
    } catch (e) {
      return err({ rule: 'resolve', detail: `the host ${host} does not resolve (${(e as { code?: string }).code ?? 'error'})` });
    }
    if (addresses.length === 0) return err({ rule: 'resolve', detail: `the host ${host} does not resolve` });
  }
  // Every answer must pass: a host with one public and one private address is refused, since the
  // client must never be steered to the private one.
  for (const a of addresses) {
    const why = refuseAddress(a, opts.allowInsecureLocalTargets);
    if (why) return err({ rule: 'address', detail: why });
  }
  const address = addresses[0];
  return ok({ url, host, address, family: ipaddr.parse(address).kind() === 'ipv4' ? 4 : 6 });
}
