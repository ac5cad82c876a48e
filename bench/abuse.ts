// What one abusive token costs the server: RSS after a burst in which one anonymous token hammers
// `POST /bot/challenge` at house/random (which accepts at once) for 10 seconds, against the RSS of
// the same server idle just before. The server runs with its default limits (only anonymous mints
// are lifted, for the warm-up) and LMDB in a temporary directory, as a deployment would. Before the
// caps, this burst made 16,789 live games and took RSS from 116 to 752 MB; the target is that RSS
// stays within 50 MB of idle.
import autocannon, { type Options } from 'autocannon';
import { dirBytes } from './persistence.js';
import { startServer, tempDir, type ServerChild } from './procs.js';
import type { BenchRow } from './types.js';

const BURST_S = 10;
const CONNECTIONS = 10;
const TARGET_MB = 50;
const MB = 1024 * 1024;

async function post(url: string, token?: string, body?: unknown): Promise<{ status: number; json: any }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(url, { method: 'POST', headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(5000) });
  return { status: res.status, json: await res.json() };
}

/** autocannon for `seconds`, with the count of answers per status. */
async function hammer(opts: Options): Promise<{ statuses: Record<string, number>; errors: number; requests: number }> {
  const statuses: Record<string, number> = {};
  const instance = autocannon({ connections: CONNECTIONS, timeout: 5, ...opts });
  instance.on('response', (_c: unknown, status: number) => {
    statuses[status] = (statuses[status] ?? 0) + 1;
  });
  const r = await instance;
  return { statuses, errors: r.errors + r.timeouts, requests: Object.values(statuses).reduce((a, b) => a + b, 0) };
}

/**
 * A busy server holds more than a fresh one whatever it serves (V8 grows its young generation under
 * a high allocation rate), so the baseline is the server after a burst of harmless authenticated
 * requests at the same concurrency and for as long as the abuse: what the abuse costs on top of that
 * is what it leaves behind.
 */
async function benignBurst(server: ServerChild): Promise<number> {
  const { json } = await post(`${server.url}/bot/anon?name=benign`);
  for (let i = 0; i < 4; i++) {
    const c = await post(`${server.url}/bot/challenge`, json.token, { team: 'house', name: 'random' });
    if (c.status !== 201) throw new Error(`warm-up challenge: ${c.status} ${JSON.stringify(c.json)}`);
  }
  const r = await hammer({ url: `${server.url}/bot/account`, duration: BURST_S, headers: { authorization: `Bearer ${json.token}` } });
  return r.requests;
}

export async function run(): Promise<BenchRow[]> {
  const tmp = tempDir('dicechess-bench-abuse-');
  const server = await startServer({ store: { dataDir: tmp.path }, limits: { anonMintsPerHour: 1_000_000 } });
  try {
    const fresh = await server.metrics();
    const benign = await benignBurst(server);
    const idle = await server.metrics();
    const idleData = dirBytes(tmp.path);
    const { json: abuser } = await post(`${server.url}/bot/anon?name=abuser`);
    const burst = await hammer({
      url: `${server.url}/bot/challenge`,
      method: 'POST',
      duration: BURST_S,
      headers: { authorization: `Bearer ${abuser.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ team: 'house', name: 'random' }),
    });
    if (!server.alive()) throw new Error(`the server died during the burst:\n${server.logTail()}`);
    const after = await server.metrics();
    const grown = (after.rssBytes - idle.rssBytes) / MB;
    const statuses = Object.entries(burst.statuses).map(([s, n]) => `${s}: ${n}`).join(', ');
    return [
      {
        bench: 'abuse.challenges',
        metric: 'RSS MB after burst',
        value: after.rssBytes / MB,
        baseline: idle.rssBytes / MB,
        baselineName: 'after a benign burst',
        note:
          `+${grown.toFixed(1)} MB (target: within ${TARGET_MB}, ${grown <= TARGET_MB ? 'met' : 'MISSED'}); ` +
          `+${((after.rssBytes - fresh.rssBytes) / MB).toFixed(1)} MB over the fresh server (${(fresh.rssBytes / MB).toFixed(1)} MB); ` +
          `one token, ${CONNECTIONS} connections, ${BURST_S} s: ${burst.requests} answers (${statuses}), ${burst.errors} errors; ` +
          `benign burst: ${benign} GET /bot/account`,
      },
      {
        bench: 'abuse.challenges',
        metric: 'live games after burst',
        value: after.liveGames,
        baseline: idle.liveGames,
        baselineName: 'before',
        note: `data dir ${(dirBytes(tmp.path) / MB).toFixed(1)} MB (before ${(idleData / MB).toFixed(1)} MB)`,
      },
    ];
  } finally {
    await server.stop();
    tmp.remove();
  }
}
