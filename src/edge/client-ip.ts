// Which address a request comes from, for rate limits (docs/DECISIONS.md, "Identities and tokens"): the socket peer,
// unless the peer is a proxy the operator trusts; then walk X-Forwarded-For from the right (each
// trusted proxy appends the address it saw) and take the first entry that is not a trusted proxy.
// Entries further left were written by the client and can be forged.
import ipaddr from 'ipaddr.js';
import { err, ok, type Result } from '../domain/result.js';

type Addr = ipaddr.IPv4 | ipaddr.IPv6;

export interface TrustedProxies {
  /** True if the (normalised) address belongs to a trusted proxy. */
  has(ip: string): boolean;
}

/**
 * Parses the operator's list: CIDR ranges or single addresses, IPv4 or IPv6. IPv4-mapped IPv6
 * ranges (::ffff:10.0.0.0/104) are turned into IPv4 ones, because addresses are normalised that way.
 */
export function parseTrustedProxies(list: readonly string[]): Result<TrustedProxies, string> {
  const ranges: [Addr, number][] = [];
  for (const entry of list) {
    const text = entry.trim();
    let range: [Addr, number];
    try {
      if (text.includes('/')) range = ipaddr.parseCIDR(text);
      else {
        const a = parseStrict(text);
        if (a === undefined) return err(`trusted proxy "${entry}" is not an IP address or CIDR range`);
        range = [a, a.kind() === 'ipv4' ? 32 : 128];
      }
    } catch {
      return err(`trusted proxy "${entry}" is not an IP address or CIDR range`);
    }
    const [a, bits] = range;
    if (a.kind() === 'ipv6' && (a as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96) {
      range = [(a as ipaddr.IPv6).toIPv4Address(), bits - 96];
    }
    ranges.push(range);
  }
  return ok({
    has(ip: string): boolean {
      if (ranges.length === 0) return false;
      const a = parseStrict(ip);
      if (a === undefined) return false;
      for (const r of ranges) if (r[0].kind() === a.kind() && a.match(r)) return true;
      return false;
    },
  });
}

/**
 * Canonical text of an address: IPv4 dotted quad (also for IPv4-mapped IPv6, which some uWS builds
 * report for IPv4 peers on a dual-stack socket), IPv6 in RFC 5952 form without zone.
 * Undefined if the text is not an address.
 */
export function normalizeIp(text: string): string | undefined {
  const a = parseStrict(text);
  if (a === undefined) return undefined;
  return a.kind() === 'ipv4' ? a.toString() : (a as ipaddr.IPv6).toRFC5952String();
}

/** The client address of a request: see the file comment. Never throws; falls back to the peer. */
export function resolveClientIp(peer: string, forwardedFor: string | undefined, trusted: TrustedProxies | undefined): string {
  let current = normalizeIp(peer) ?? peer;
  if (trusted === undefined || forwardedFor === undefined || !trusted.has(current)) return current;
  const hops = forwardedFor.split(',');
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = normalizeIp(stripPort(hops[i].trim()));
    // Garbage from a trusted proxy: the hop that handed it over is the best we know.
    if (hop === undefined) return current;
    current = hop;
    if (!trusted.has(hop)) return hop;
  }
  // Every hop is a trusted proxy: the furthest one is the client as far as we can tell.
  return current;
}

/** True for a loopback address (127.0.0.0/8, ::1, and IPv4-mapped loopback). */
export function isLoopback(ip: string): boolean {
  const a = parseStrict(ip);
  if (a === undefined) return false;
  const v4 = a.kind() === 'ipv6' && (a as ipaddr.IPv6).isIPv4MappedAddress() ? (a as ipaddr.IPv6).toIPv4Address() : a;
  return v4.range() === 'loopback';
}

/**
 * The key to rate-limit an address under. One IPv6 host usually owns a whole /64, so keying on
 * the full address would give it 2^64 budgets.
 */
export function rateLimitKey(ip: string): string {
  const a = parseStrict(ip);
  if (a === undefined || a.kind() === 'ipv4') return ip;
  const p = (a as ipaddr.IPv6).parts;
  return `${p[0].toString(16)}:${p[1].toString(16)}:${p[2].toString(16)}:${p[3].toString(16)}::/64`;
}

// ipaddr.parse accepts legacy IPv4 forms ("127.1", "0x7f.0.0.1"); an address in a header should be
// a plain dotted quad, anything else is noise.
function parseStrict(text: string): Addr | undefined {
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return ipaddr.IPv4.parse(text);
  if (!ipaddr.IPv6.isValid(text)) return undefined;
  const v6 = ipaddr.IPv6.parse(text);
  v6.zoneId = undefined; // a zone names a local interface, not a different client
  return v6.isIPv4MappedAddress() ? v6.toIPv4Address() : v6;
}

// Some proxies write "1.2.3.4:5678" or "[2001:db8::1]:443".
function stripPort(hop: string): string {
  if (hop.startsWith('[')) {
    const end = hop.indexOf(']');
    return end > 0 ? hop.slice(1, end) : hop;
  }
  const colon = hop.indexOf(':');
  if (colon > 0 && hop.indexOf(':', colon + 1) < 0) return hop.slice(0, colon);
  return hop;
}

/**
 * rateLimitKey(resolveClientIp(peer, forwardedFor, trusted)), remembered for the most recent few
 * thousand (peer, X-Forwarded-For) pairs: parsing addresses costs microseconds, and the per-address
 * count of open requests needs the key of every request. Without trusted proxies the header plays no
 * part, so it is not part of the memo key either. When full, the memo starts over.
 */
export class AddressKeys {
  private readonly keys = new Map<string, string>();

  constructor(
    private readonly trusted: TrustedProxies | undefined,
    private readonly max = 4096,
  ) {}

  keyOf(peer: string, forwardedFor: string | undefined): string {
    const memo = this.trusted === undefined || forwardedFor === undefined ? peer : `${peer} ${forwardedFor}`;
    let key = this.keys.get(memo);
    if (key === undefined) {
      key = rateLimitKey(resolveClientIp(peer, forwardedFor, this.trusted));
      if (this.keys.size >= this.max) this.keys.clear();
      this.keys.set(memo, key);
    }
    return key;
  }
}
