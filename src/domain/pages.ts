// The web page's paths, in one table: the server answers each with the page's shell, and the page's
// own router (web/src) picks what to draw from the same table.

export interface PageRoute {
  readonly name: 'home' | 'game' | 'ladder' | 'profile' | 'events' | 'event';
  /** uWS-style pattern: `:x` is one path segment. */
  readonly pattern: string;
  /**
   * The path shares its prefix with API routes: the server gives the shell only to a browser
   * (Accept names text/html) on a path no API route has.
   */
  readonly browserOnly?: true;
}

export const PAGE_ROUTES: readonly PageRoute[] = [
  { name: 'home', pattern: '/' },
  { name: 'game', pattern: '/game/:id' },
  { name: 'ladder', pattern: '/ladder' },
  { name: 'events', pattern: '/tournaments' },
  { name: 'event', pattern: '/tournament/:id' },
  { name: 'profile', pattern: '/bot/:team/:name', browserOnly: true },
];

function decoded(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null; // a malformed escape names no page
  }
}

/** The page a path shows, with its parameters decoded, in pattern order; null for any other path. */
export function matchPage(path: string): { name: PageRoute['name']; params: string[] } | null {
  const parts = path.split('/');
  for (const route of PAGE_ROUTES) {
    const want = route.pattern.split('/');
    if (want.length !== parts.length) continue;
    const params: string[] = [];
    let ok = true;
    for (let i = 0; i < want.length && ok; i++) {
      if (want[i].startsWith(':')) {
        const p = parts[i] === '' ? null : decoded(parts[i]);
        if (p === null) ok = false;
        else params.push(p);
      } else if (want[i] !== parts[i]) {
        ok = false;
      }
    }
    if (ok) return { name: route.name, params };
  }
  return null;
}
