// Boots the whole service on 127.0.0.1:0 for a test, with every response checked against the
// OpenAPI document (the conformance test rides along with every server-level test), and stops it at
// teardown. Defaults: memory store, in-thread rules, a ManualClock, no seed grace, no house delay,
// fixed server seeds and house RNG (a game goes the same way every run, given the same moves),
// and webhooks off (tests that want them turn them on), so no test calls out by accident; when on,
// webhook host names resolve only through the test's own resolver.
import { Client } from '../../src/client/index.js';
import { loadConfig, testConfig, type Config } from '../../src/server-config.js';
import { ManualClock, systemClock, type Clock } from '../../src/domain/clock.js';
import { silentLogger, type Logger } from '../../src/domain/log.js';
import { startServer, type RunningServer } from '../../src/main.js';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../src/store/index.js';
import type { Store } from '../../src/store/types.js';
import { createConformance, type Conformance } from './conformance.js';
import { prng } from './prng.js';
import { keepAliveAgent, openLines, request, type HttpResult, type LineReader, type Teardown } from './http.js';

export interface BootOptions {
  overrides?: Record<string, unknown>;
  /** Default: a fresh ManualClock. Pass `systemClock` for real time. */
  clock?: Clock;
  store?: Store;
  /**
   * 'inline' (default): the game shards run in this thread (loopback transport);
   * 'workers': real shard worker threads, on the system clock.
   */
  rules?: 'inline' | 'workers';
  /** House players' RNG; default a fixed-seed PRNG (reproducible games). */
  random?: () => number;
  /**
   * Server seeds of new games; default a fixed sequence (the n-th game of an app always gets the same
   * dice), so a game's course does not change from run to run. Ignored with 'workers'.
   */
  serverSeed?: () => Uint8Array;
  /** DNS of webhook hosts. */
  webhookResolver?: (host: string) => Promise<string[]>;
  /** The server's logger (default silent); a test that must see nothing go wrong records it. */
  log?: Logger;
  /** DICECHESS_* variables read as the server reads them (under the test's own settings and overrides). */
  env?: Record<string, string>;
  /** Holds each account stream between its subscription and its catch-up (StartOptions.catchUpHold). */
  catchUpHold?: (principalId: string) => Promise<void>;
}

/**
 * DICECHESS_HTTP_THREADS runs a test's server with that many edge threads (scripts/test.mjs runs the
 * HTTP conformance files a second time so); a test's own `http.threads` override wins.
 */
function threadsFromEnv(): Record<string, unknown> {
  const raw = process.env.DICECHESS_HTTP_THREADS;
  if (raw === undefined || raw === '') return {};
  return { 'http.threads': raw === 'auto' ? 'auto' : Number(raw) };
}

/** Server seeds 0, 1, 2… of an app: the SHA-256 of a counter (distinct, and the same every run). */
function seedSequence(): () => Uint8Array {
  let n = 0;
  return () => new Uint8Array(createHash('sha256').update(`dicechess test server seed ${n++}`).digest());
}

export interface ReqOptions {
  token?: string;
  /** An object is sent as JSON; a string as is (with the content type given in headers). */
  body?: unknown;
  headers?: Record<string, string>;
}

export interface TestApp {
  base: string;
  port: number;
  server: RunningServer;
  config: Config;
  clock: Clock;
  conformance: Conformance;
  req(method: string, path: string, opts?: ReqOptions): Promise<HttpResult>;
  stream(path: string, token?: string): Promise<LineReader>;
}

/** The default webhook resolver of tests: no name resolves, so nothing leaves the machine. */
const noDns = async (host: string): Promise<string[]> => {
  throw Object.assign(new Error(`tests resolve no host names (${host})`), { code: 'ENOTFOUND' });
};

export async function bootApp(t: Teardown, opts: BootOptions = {}): Promise<TestApp> {
  const settings = {
    host: '127.0.0.1',
    port: 0,
    memory: true,
    logLevel: 'silent',
    'games.seedGraceMs': 0,
    'games.houseMoveDelayMs': 0,
    'webhooks.enabled': false,
    shards: 2,
    ...threadsFromEnv(),
    ...opts.overrides,
  };
  const config = opts.env ? envConfig(opts.env, settings) : testConfig(settings);
  const workers = opts.rules === 'workers';
  // Worker shards keep time with the system clock: main's must be the same one.
  const clock = opts.clock ?? (workers ? systemClock : new ManualClock(undefined, { runDueTimers: true }));
  const conformance = createConformance();
  const started = await startServer(config, {
    clock,
    log: opts.log ?? silentLogger,
    store: opts.store,
    shards: workers ? 'worker' : 'loopback',
    random: opts.random ?? prng(20_261_127),
    serverSeed: opts.serverSeed ?? seedSequence(),
    webhookResolver: opts.webhookResolver ?? noDns,
    observe: (info) => conformance.check(info),
    catchUpHold: opts.catchUpHold,
  });
  if (!started.ok) throw new Error(started.error);
  const server = started.value;
  // The test's requests share kept-alive connections (streams still get one each).
  const agent = keepAliveAgent();
  t.teardown(async () => {
    agent.destroy();
    await server.close();
    const bad = conformance.mismatches();
    if (bad.length) throw new Error(`responses that do not match the OpenAPI document:\n${bad.join('\n')}`);
  });
  const base = server.url;
  return {
    base,
    port: server.port,
    server,
    config,
    clock,
    conformance,
    req(method, path, o = {}) {
      const headers: Record<string, string> = { ...o.headers };
      if (o.token) headers.authorization = `Bearer ${o.token}`;
      let body: string | undefined;
      if (o.body !== undefined) {
        body = typeof o.body === 'string' ? o.body : JSON.stringify(o.body);
        if (typeof o.body !== 'string' || !headers['content-type']) headers['content-type'] ??= 'application/json';
      }
      return request(method, base + path, { headers, body, agent });
    },
    async stream(path, token) {
      const reader = await openLines(base + path, token ? { authorization: `Bearer ${token}` } : undefined);
      const pattern = path.split('?')[0];
      // Every event line a test reads is checked against the document too (keep-alives are blank).
      return {
        ...reader,
        status: reader.status,
        headers: reader.headers,
        closed: reader.closed,
        async next() {
          const line = await reader.next();
          if (line) {
            conformance.check({ method: 'GET', pattern, status: reader.status, contentType: reader.headers['content-type'], body: line });
          }
          return line;
        },
      };
    },
  };
}

/** The environment's variables, under the test's settings (as command-line flags are over them). */
function envConfig(env: Record<string, string>, settings: Record<string, unknown>): Config {
  const c = loadConfig({ env, overrides: settings });
  if (!c.ok) throw new Error(c.error);
  return c.value;
}

/** Mints an anonymous bot and returns its token and identity. */
export async function anonBot(app: TestApp, name: string): Promise<{ token: string; id: string; team: string; name: string }> {
  const r = await new Client({ url: app.base }).mintAnonymous({ name });
  if (!r.ok) throw new Error(`mint failed: ${r.status} ${r.problem.code}: ${r.problem.detail}`);
  return r.value;
}

/**
 * A fresh temporary directory, removed at teardown; each call of the returned function opens an LMDB
 * store on it, so a test can restart a server on the same data (the server closes the store).
 */
export function diskDir(t: Teardown): () => Promise<Store> {
  const dir = mkdtempSync(join(tmpdir(), 'dicechess-e2e-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return async () => {
    const opened = await openStore({ memory: false, dataDir: dir });
    if (!opened.ok) throw new Error(opened.error);
    return opened.value;
  };
}

/** An LMDB store in a fresh temporary directory, removed at teardown (the server closes the store). */
export function diskStore(t: Teardown): Promise<Store> {
  return diskDir(t)();
}
