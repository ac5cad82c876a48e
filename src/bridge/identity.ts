// The bridge's identity at start: wait for the server to answer, then play as `--token`, as an
// identity kept in the token file for this server, as a newly registered bot, or as a new anonymous
// one. A registered identity is never lost on the way: its saved token is used whenever it fits the
// run, a refused one stops the bridge with what to do instead of being replaced, and a new identity is
// written next to those already in the file (token-file.ts).
import { isTransient, type Client, type Failure } from '../client/index.js';
import type { BridgeConfig } from './config.js';
import type { Reporter } from './report.js';
import { checkTokenPath, isAnonymous, readTokens, saveToken, tokensFor, type SavedIdentity } from './token-file.js';

export interface Who {
  id: string;
  team: string;
  name: string;
}

export interface IdentityDeps {
  client: Client;
  config: BridgeConfig;
  report: Reporter;
  /** Waits this long (tests pass one that does not wait on the wall clock). */
  sleep: (ms: number) => Promise<void>;
  /** True once the bridge was told to stop: the waiting ends. */
  stopping: () => boolean;
}

/** The wait before the next try: 0.5 s doubling to 10 s, or longer when the server asked for it. */
const FIRST_WAIT_MS = 500;
const LONGEST_WAIT_MS = 10_000;

/** Gateways and a server not ready yet answer these without having done anything. */
const notServing = (f: Failure): boolean => f.status === 0 || f.status === 502 || f.status === 503 || f.status === 504;

/** A request that never reached a server (nothing listens there): safe to send again, whatever it was. */
const neverArrived = (f: Failure): boolean =>
  f.status === 0 && /ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|ENETUNREACH|EAI_AGAIN/.test(f.problem.detail);

/**
 * Sends `call` until its answer is not `retry`-able, waiting between tries and saying so each time;
 * gives up (the last failure is returned) after `waitForServerSeconds`, or when the bridge stops.
 */
async function patiently<T extends { ok: boolean }>(deps: IdentityDeps, what: string, call: () => Promise<T>, retry: (r: T) => boolean): Promise<T> {
  const limitMs = deps.config.waitForServerSeconds === null ? Infinity : deps.config.waitForServerSeconds * 1000;
  let waited = 0;
  let wait = FIRST_WAIT_MS;
  for (let attempt = 1; ; attempt++) {
    const r = await call();
    if (r.ok || !retry(r) || deps.stopping()) return r;
    const f = r as unknown as Failure;
    const waitMs = Math.min(LONGEST_WAIT_MS, Math.max(wait, (f.retryAfter ?? 0) * 1000));
    if (waited + waitMs > limitMs) return r;
    deps.report.emit({ event: 'waitingForServer', url: deps.config.url, what, status: f.status, detail: f.problem.detail, attempt, waitMs });
    await deps.sleep(waitMs);
    waited += waitMs;
    wait = Math.min(LONGEST_WAIT_MS, wait * 2);
  }
}

/** Returns once the server answers at all; throws when it did not within `waitForServerSeconds`. */
export async function waitForServer(deps: IdentityDeps): Promise<void> {
  const r = await patiently(deps, 'the server', () => deps.client.health(), (r) => !r.ok && notServing(r));
  if (deps.stopping()) throw new Error('stopped while waiting for the server');
  if (!r.ok && notServing(r)) {
    throw new Error(`the server at ${deps.config.url} did not answer within ${deps.config.waitForServerSeconds} s (--wait-for-server): ${r.problem.detail}`);
  }
}

/** The account a token belongs to; a failure only when the server refused it (or never answered in time). */
async function accountOf(deps: IdentityDeps, token: string) {
  deps.client.token = token;
  return patiently(deps, 'the account', () => deps.client.getAccount(), (r) => !r.ok && isTransient(r));
}

const reissueHint = (who: string) =>
  `if its token is lost, the server's operator can issue a new one (dicechess reissue-token ${who} --data DIR) and the bridge is run once with --token NEW, which puts it in the token file`;

export async function identify(deps: IdentityDeps): Promise<Who> {
  const c = deps.config;
  await waitForServer(deps);
  if (c.token) {
    const me = await accountOf(deps, c.token);
    if (!me.ok) throw new Error(`the token was refused: ${me.problem.detail}`);
    // A registered bot's token given by hand (a reissued one) takes the place of a refused one in the file.
    if (!isAnonymous(me.value)) await keepGivenToken(deps, me.value, c.token);
    return me.value;
  }
  const mine = tokensFor(readSaved(c.tokenFile), c.url);
  const registered = mine.filter((i) => !isAnonymous(i));
  if (c.register) {
    const saved = registered.find((i) => `${i.team}/${i.name}` === c.register);
    if (saved) return useSaved(deps, saved);
    return registerNew(deps, c.register);
  }
  if (registered.length > 1) {
    const names = registered.map((i) => `${i.team}/${i.name}`).join(', ');
    throw new Error(`token file ${c.tokenFile} holds ${registered.length} registered identities for ${c.url} (${names}): choose one with --register TEAM/NAME`);
  }
  if (registered.length === 1) return useSaved(deps, registered[0]!);
  // Anonymous identities expire after a day; a refused one is replaced, a working one reused.
  const refused: string[] = [];
  for (const saved of mine.filter(isAnonymous).reverse()) {
    const me = await accountOf(deps, saved.token);
    if (me.ok) return me.value;
    if (me.status !== 401) throw new Error(`checking the saved anonymous token: ${me.problem.detail}`);
    refused.push(saved.token);
  }
  checkTokenPath(c.tokenFile);
  const r = await patiently(deps, 'an anonymous identity', () => deps.client.mintAnonymous({ name: c.anonName }), (r) => !r.ok && (r.status === 429 || neverArrived(r)));
  if (!r.ok) throw new Error(`anonymous token: ${r.problem.detail}`);
  saveToken(c.tokenFile, { url: c.url, team: r.value.team, name: r.value.name, token: r.value.token }, { dropAnonymous: refused });
  deps.client.token = r.value.token;
  return r.value;
}

/** The file's identities; a symbolic link at its name is named as such first (nothing could be saved through it). */
function readSaved(path: string): SavedIdentity[] {
  try {
    return readTokens(path);
  } catch (e) {
    checkTokenPath(path);
    throw e;
  }
}

/** A registered identity from the file: its token works, or the bridge stops (it never mints or registers over it). */
async function useSaved(deps: IdentityDeps, saved: SavedIdentity): Promise<Who> {
  const who = `${saved.team}/${saved.name}`;
  const me = await accountOf(deps, saved.token);
  if (me.ok) return me.value;
  throw new Error(
    `the token kept for ${who} at ${saved.url} in ${deps.config.tokenFile} was refused (${me.status || 'no answer'} ${me.problem.detail}); ` +
      `the bridge leaves it there and makes no other identity. ${reissueHint(who)}`,
  );
}

async function registerNew(deps: IdentityDeps, ref: string): Promise<Who> {
  const c = deps.config;
  // A new identity's token must be kept: find out now, not after it is made, that it cannot be.
  checkTokenPath(c.tokenFile);
  const [team, name] = ref.split('/') as [string, string];
  // Sent again only when it cannot have been applied (nothing listening, a limit): a second copy of a
  // registration that went through would find the name taken and its token lost.
  const r = await patiently(deps, `registering ${ref}`, () => deps.client.register({ team, name }), (r) => !r.ok && (r.status === 429 || r.status === 503 || neverArrived(r)));
  if (!r.ok) {
    const taken = r.status === 409 ? ` (its token is not in ${c.tokenFile} for ${c.url}; ${reissueHint(ref)})` : '';
    throw new Error(`register ${ref}: ${r.problem.detail}${taken}`);
  }
  saveToken(c.tokenFile, { url: c.url, team: r.value.team, name: r.value.name, token: r.value.token });
  deps.client.token = r.value.token;
  return r.value;
}

/**
 * A working `--token` of a registered bot whose entry in the file holds a token the server now refuses
 * (a lost token reissued by the operator) takes that entry's place; otherwise the file is left alone.
 */
async function keepGivenToken(deps: IdentityDeps, me: Who, token: string): Promise<void> {
  const c = deps.config;
  const kept = tokensFor(readTokens(c.tokenFile), c.url).find((i) => i.team === me.team && i.name === me.name);
  if (!kept || kept.token === token) return;
  const old = await accountOf(deps, kept.token);
  deps.client.token = token;
  if (old.ok || old.status !== 401) return;
  saveToken(c.tokenFile, { url: c.url, team: me.team, name: me.name, token }, { replace: (o) => o.token === kept.token });
}
