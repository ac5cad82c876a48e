// The web page: the HTML shell and its bundled assets, built by `make build` into dist/web (see
// scripts/build-web.mjs) and held in memory. Every file is served from bytes compressed at build
// time (brotli or gzip, as the request's Accept-Encoding allows). Hashed asset names never change
// content, so they are cached for a year; the shell is revalidated on every load (no-cache + ETag).
//
// These routes sit beside the catalogue, not in it: they are pages, not API. They are bound on the
// uWS app directly (not through the Router) so that no 405 or OPTIONS answers are added for their
// patterns: every API route keeps its exact behaviour (see docs/DECISIONS.md, "The web page").
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import type { HttpRequest, HttpResponse, TemplatedApp } from 'uWebSockets.js';
import { problemJson } from '../wire/encode.js';
import { allowedMethods } from '../wire/routes.js';
import { PROBLEM_TYPE, statusLine } from './reply.js';
import { PAGE_ROUTES } from '../domain/pages.js';

interface Asset {
  readonly type: string;
  readonly cache: string;
  readonly etag: string;
  readonly identity: Buffer;
  readonly gzip: Uint8Array | undefined;
  readonly br: Uint8Array | undefined;
}

export interface WebAssets {
  readonly shell: Asset;
  /** By file name under /assets/. */
  readonly assets: ReadonlyMap<string, Asset>;
}

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.map': 'application/json',
  '.json': 'application/json',
};

const IMMUTABLE = 'public, max-age=31536000, immutable';
const REVALIDATE = 'no-cache';
/** The page talks to this server only: no script, style, image or connection to any other host. */
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

function load(path: string, cache: string): Asset {
  const identity = readFileSync(path);
  const optional = (p: string): Buffer | undefined => (existsSync(p) ? readFileSync(p) : undefined);
  return {
    type: TYPES[extname(path)] ?? 'application/octet-stream',
    cache,
    etag: `"${createHash('sha256').update(identity).digest('base64url').slice(0, 22)}"`,
    identity,
    gzip: optional(`${path}.gz`),
    br: optional(`${path}.br`),
  };
}

/** Reads a built web directory; undefined when it was not built (the API still works without it). */
export function loadWebAssets(dir: string): WebAssets | undefined {
  const shellPath = join(dir, 'index.html');
  if (!existsSync(shellPath)) return undefined;
  const assets = new Map<string, Asset>();
  const assetDir = join(dir, 'assets');
  if (existsSync(assetDir)) {
    for (const name of readdirSync(assetDir)) {
      if (name.endsWith('.gz') || name.endsWith('.br')) continue;
      assets.set(name, load(join(assetDir, name), IMMUTABLE));
    }
  }
  return { shell: load(shellPath, REVALIDATE), assets };
}

/** The encoding to send: brotli, else gzip, else none, as the client accepts (q=0 refuses). */
export function pickEncoding(acceptEncoding: string, asset: { readonly br?: Uint8Array; readonly gzip?: Uint8Array }): 'br' | 'gzip' | undefined {
  const accepted = new Set<string>();
  for (const part of acceptEncoding.toLowerCase().split(',')) {
    const [name, ...params] = part.trim().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    if (q !== undefined && Number(q.slice(2)) === 0) continue;
    accepted.add(name.trim());
  }
  if (asset.br && accepted.has('br')) return 'br';
  if (asset.gzip && accepted.has('gzip')) return 'gzip';
  return undefined;
}

interface Incoming {
  readonly head: boolean;
  readonly acceptEncoding: string;
  readonly ifNoneMatch: string;
}

function read(req: HttpRequest, head: boolean): Incoming {
  return { head, acceptEncoding: req.getHeader('accept-encoding'), ifNoneMatch: req.getHeader('if-none-match') };
}

function send(res: HttpResponse, inc: Incoming, asset: Asset): void {
  // Answered synchronously, inside the uWS handler: no onAborted needed.
  const encoding = pickEncoding(inc.acceptEncoding, asset);
  const body = encoding === 'br' ? asset.br! : encoding === 'gzip' ? asset.gzip! : asset.identity;
  res.cork(() => {
    const fresh = inc.ifNoneMatch !== '' && inc.ifNoneMatch.split(',').some((t) => t.trim() === asset.etag);
    res.writeStatus(statusLine(fresh ? 304 : 200));
    res.writeHeader('cache-control', asset.cache);
    res.writeHeader('etag', asset.etag);
    res.writeHeader('vary', 'accept-encoding');
    res.writeHeader('x-content-type-options', 'nosniff');
    if (asset.type.startsWith('text/html')) {
      res.writeHeader('content-security-policy', CSP);
      res.writeHeader('referrer-policy', 'no-referrer');
    }
    if (fresh) {
      res.endWithoutBody();
      return;
    }
    res.writeHeader('content-type', asset.type);
    if (encoding) res.writeHeader('content-encoding', encoding);
    if (inc.head) {
      res.writeHeader('content-length', String(body.byteLength));
      res.endWithoutBody();
    } else res.end(body);
  });
}

function notFound(res: HttpResponse, detail: string): void {
  res.cork(() => {
    res.writeStatus(statusLine(404));
    res.writeHeader('content-type', PROBLEM_TYPE);
    res.end(problemJson('not_found', detail));
  });
}

/** Page paths the shell answers (the client-side router draws the page from the same table). */
const PAGES = PAGE_ROUTES.filter((p) => p.browserOnly === undefined).map((p) => p.pattern);
const BROWSER_ONLY = PAGE_ROUTES.filter((p) => p.browserOnly !== undefined).map((p) => p.pattern);

/**
 * Binds the shell and the assets. `/bot/{team}/{name}` (a bot's profile page) shares its prefix with
 * API routes, so it serves the shell only to a browser (Accept names text/html) on a path no API
 * route has; every other request goes on to the API routes exactly as if this pattern did not exist.
 */
export function bindWebPages(app: TemplatedApp, web: WebAssets): void {
  const both = (pattern: string, handler: (res: HttpResponse, req: HttpRequest, head: boolean) => void) => {
    app.get(pattern, (res, req) => handler(res, req, false));
    app.head(pattern, (res, req) => handler(res, req, true));
  };
  for (const page of PAGES) both(page, (res, req, head) => send(res, read(req, head), web.shell));
  for (const page of BROWSER_ONLY) both(page, (res, req, head) => {
    // uWS would pick this GET over an API pattern's 405 (e.g. GET /bot/ladder/join): yield to the
    // API routes and the 404 catch-all unless a browser asks for a page that no API route names.
    if (!req.getHeader('accept').includes('text/html') || allowedMethods(req.getUrl()).length > 0) {
      req.setYield(true);
      return;
    }
    send(res, read(req, head), web.shell);
  });
  both('/assets/:file', (res, req, head) => {
    const asset = web.assets.get(req.getParameter(0) ?? '');
    if (!asset) return notFound(res, 'no such asset');
    send(res, read(req, head), asset);
  });
}
