// CORS (docs/DECISIONS.md): public reads may be fetched from any web page; routes that take a
// token only from the origins the operator lists, so a token pasted into a random site's page can't
// be used from there by script.
import { noContent, type Reply } from './reply.js';
import type { HeaderList } from './responder.js';

/** 'public': any origin (`*`); 'restricted': the configured origins only (echoed, with Vary). */
export type CorsPolicy = 'public' | 'restricted';

// Browsers hide non-safelisted response headers from scripts unless exposed; a web client needs
// the first two to honour 429 and 401, and reads the cluster's two to find a game's owner (placement.ts).
const EXPOSE = ['access-control-expose-headers', 'Retry-After, WWW-Authenticate, Dicechess-Node, Dicechess-Owner'] as const;
const PUBLIC: HeaderList = [['access-control-allow-origin', '*'], EXPOSE];
// Even a refusal varies by origin: a cache must not hand it to an allowed origin.
const VARY_ONLY: HeaderList = [['vary', 'Origin']];
const ALLOWED_REQUEST_HEADERS = 'Authorization, Content-Type';
const PREFLIGHT_MAX_AGE = '600';

export class CorsRules {
  private readonly origins: ReadonlySet<string>;

  constructor(origins: readonly string[] = []) {
    this.origins = new Set(origins.map(normalizeOrigin));
  }

  allows(policy: CorsPolicy, origin: string | undefined): boolean {
    return policy === 'public' || (origin !== undefined && this.origins.has(normalizeOrigin(origin)));
  }

  /**
   * True when a browser sent this request from another site that is not a configured origin. Used on
   * the routes that write without a token (guest games, guest seeks, mints): a page elsewhere could
   * otherwise make its visitors' browsers spend their address's budgets there, since a form post or a
   * body-less or text/plain fetch needs no preflight. Browsers mark such requests with
   * `Sec-Fetch-Site`, and with `Origin` (older ones); a request with neither (curl, bots) is not a
   * browser's and passes.
   */
  foreignWrite(origin: string | undefined, fetchSite: string | undefined, host: string | undefined): boolean {
    if (origin !== undefined && this.origins.has(normalizeOrigin(origin))) return false;
    if (fetchSite === 'cross-site' || fetchSite === 'same-site') return true;
    if (fetchSite === 'same-origin' || fetchSite === 'none') return false;
    if (origin === undefined) return false;
    if (origin === 'null') return true;
    try {
      return host === undefined || new URL(origin).host !== host.toLowerCase();
    } catch {
      return true;
    }
  }

  /** Headers for an actual (non-preflight) response. */
  headers(policy: CorsPolicy, origin: string | undefined): HeaderList {
    if (policy === 'public') return PUBLIC;
    if (origin === undefined || !this.origins.has(normalizeOrigin(origin))) return VARY_ONLY;
    return [['access-control-allow-origin', origin], ['vary', 'Origin'], EXPOSE];
  }

  /**
   * The answer to OPTIONS on a known path: 204 always; the CORS grant only when the requested
   * method exists there and its policy admits the origin. Without a grant the browser refuses.
   */
  preflight(
    methods: ReadonlyMap<string, CorsPolicy>,
    allow: string,
    origin: string | undefined,
    requestedMethod: string | undefined,
  ): Reply {
    if (origin === undefined || requestedMethod === undefined) return noContent({ allow });
    const policy = methods.get(requestedMethod.toUpperCase());
    if (policy === undefined || !this.allows(policy, origin)) return noContent({ allow, vary: 'Origin' });
    const granted: string[] = [];
    for (const [m, p] of methods) if (this.allows(p, origin)) granted.push(m);
    return noContent({
      allow,
      'access-control-allow-origin': policy === 'public' ? '*' : origin,
      'access-control-allow-methods': granted.join(', '),
      'access-control-allow-headers': ALLOWED_REQUEST_HEADERS,
      'access-control-max-age': PREFLIGHT_MAX_AGE,
      vary: 'Origin',
    });
  }
}

// Browsers send scheme://host[:port] in lower case; operators may write a trailing slash or capitals.
function normalizeOrigin(origin: string): string {
  return origin.trim().replace(/\/+$/, '').toLowerCase();
}
