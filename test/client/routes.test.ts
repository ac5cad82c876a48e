// The typed client against the real server: every route of the catalogue is called through its
// method (the test fails naming any route it did not call), every success parses with the
// catalogue's own schema for its status, every error is a Problem. That the Client has a method for
// every route is the type checker's part (Client implements RouteMethods; see the check below).
// The streams are typed async iterators that end after GameEnded and reconnect after a failure.
import t from 'tap';
import { Client, unwrap, type OperationId, type RouteMethods } from '../../src/client/index.js';
import { CONTENT_TYPES, ROUTES } from '../../src/wire/routes.js';
import { Problem } from '../../src/wire/schemas.js';
import { bootApp } from '../helpers/app.js';
import { randomPath, type Tree } from '../helpers/play.js';

// @ts-expect-error a client missing one route's method does not type-check as the whole catalogue
const missing: RouteMethods = {} as Omit<Client, 'getGame'>;
void missing;

/** The first line of a stream that matches, bounded. */
async function first<T>(stream: AsyncIterable<T> & { close(): void }, pred: (e: T) => boolean, what: string): Promise<T> {
  const timer = setTimeout(() => stream.close(), 10_000);
  try {
    for await (const e of stream) if (pred(e)) return e;
    throw new Error(`the stream ended without ${what}`);
  } finally {
    clearTimeout(timer);
  }
}

t.test('every route through its typed method', async (t) => {
  const app = await bootApp(t);
  const seen = new Map<OperationId, unknown[]>();
  /** A client whose every method records what it answered, to check each against the catalogue. */
  const recording = (token?: string): Client => {
    const c = new Client({ url: app.base, token });
    for (const r of ROUTES) {
      const id = r.operationId as OperationId;
      const call = c[id] as (...a: unknown[]) => unknown;
      (c as unknown as Record<string, unknown>)[id] = (...a: unknown[]) => {
        const out = call(...a);
        if (out instanceof Promise) void out.then((v) => seen.set(id, [...(seen.get(id) ?? []), v]));
        else seen.set(id, [...(seen.get(id) ?? []), 'stream']);
        return out;
      };
    }
    return c;
  };
  const pub = recording();
  t.match(unwrap(await pub.health()), { status: 'ok' });
  t.match(unwrap(await pub.ready()), { status: 'ready' });
  t.match(unwrap(await pub.metrics()), /# HELP/, 'metrics as text');
  t.equal(unwrap(await pub.getOpenApi()).openapi, '3.1.0');
  t.ok(unwrap(await pub.getAsyncApi()).asyncapi);

  const anon = recording(unwrap(await pub.mintAnonymous({ name: 'typed' })).token);
  const reg = recording(unwrap(await pub.register({ team: 'typed', name: 'reg' })).token);
  t.equal(unwrap(await reg.getAccount()).name, 'reg');
  reg.token = unwrap(await reg.rotateToken()).token;
  t.equal(unwrap(await reg.joinLadder()).onLadder, true);
  t.equal(unwrap(await reg.setCapacity({ capacity: 2 })).capacity, 2);
  t.equal(unwrap(await reg.getCapacity()).capacity, 2);
  t.equal(unwrap(await reg.leaveLadder()).onLadder, false);

  // The account stream tells the registered bot of a challenge.
  const account = reg.streamAccountEvents();
  const received = first(account, (e) => 'ChallengeReceived' in e, 'ChallengeReceived');
  const c1 = unwrap(await anon.createChallenge({ team: 'typed', name: 'reg', timeControl: { Unlimited: {} } }));
  t.equal((await received as { ChallengeReceived: { id: string } }).ChallengeReceived.id, c1.id, 'ChallengeReceived on the account stream');
  account.close();
  t.equal(unwrap(await reg.listChallenges()).in[0]?.id, c1.id);
  const { gameId } = unwrap(await reg.acceptChallenge(c1.id));
  const c2 = unwrap(await anon.createChallenge({ team: 'typed', name: 'reg' }));
  t.same(unwrap(await reg.declineChallenge(c2.id)), {});
  unwrap(await anon.createChallenge({ team: 'house', name: 'random' }));

  // Seeks and the lobby.
  const s1 = unwrap(await anon.createSeek());
  t.ok(unwrap(await pub.listLobbySeeks()).seeks.some((s) => s.id === s1.seekId));
  t.equal(unwrap(await pub.pollSeek(s1.seekId, { secret: s1.secret })).matched, false);
  unwrap(await reg.acceptSeek(s1.seekId));
  const s2 = unwrap(await anon.createSeek({ timeControl: { SuddenDeath: { initialSeconds: 60 } } }));
  const cancelled = await pub.cancelSeek(s2.seekId, { secret: s2.secret });
  t.equal(cancelled.ok && cancelled.status, 204, 'a 204 has no value');
  const s3 = unwrap(await anon.createSeek());
  t.ok(unwrap(await pub.guestAcceptSeek(s3.seekId)).seatToken);
  t.ok(unwrap(await pub.createGuestSeek()).guestId);
  t.ok(unwrap(await pub.guestPlayHouse('random')).seatToken);

  // A game: the anonymous challenger plays White.
  t.same(unwrap(await anon.submitSeed(gameId, { seed: 'typed-client-seed-0001' })), {});
  t.ok(unwrap(await anon.listMyGames()).games.some((g) => g.gameId === gameId));
  const gameStream = anon.streamGameEvents(gameId);
  const publicStream = pub.streamPublicGameEvents(gameId);
  const events = gameStream[Symbol.asyncIterator]();
  const snap = (await events.next()).value;
  t.ok(snap && 'Snapshot' in snap, 'the game stream opens with a Snapshot');
  const state = unwrap(await pub.getGame(gameId));
  const moves = unwrap(await pub.getLegalMoves(gameId));
  if (state.activeSeat === 'White' && moves.dicePending && Object.keys(moves.legalMoves).length) {
    const verdict = await anon.submitMove(gameId, { moves: randomPath(moves.legalMoves as Tree), version: moves.version });
    t.match(verdict, { ok: true, status: 200, value: { applied: true } }, 'the move applied, typed by status');
  } else {
    const verdict = await anon.submitMove(gameId, { moves: [] });
    t.match(verdict, { ok: false, status: 409, problem: { code: 'refused' }, body: { applied: false } }, 'a refused move is a failure that keeps its verdict');
    t.throws(() => unwrap(verdict), { name: 'ApiError' }, 'and unwrap throws it');
  }
  t.same(unwrap(await anon.resign(gameId)), {});
  const endedOnPublic = await first(publicStream, (e) => 'GameEnded' in e, 'GameEnded');
  t.ok('GameEnded' in endedOnPublic, 'the public stream carries GameEnded');
  const rest: string[] = [];
  const bound = setTimeout(() => gameStream.close(), 10_000);
  for (let n = await events.next(); !n.done; n = await events.next()) rest.push(Object.keys(n.value)[0]!);
  clearTimeout(bound);
  t.equal(rest.at(-1), 'GameEnded', 'the game stream ends by itself after GameEnded');
  t.ok(unwrap(await pub.getGameHistory(gameId)).status);
  t.ok(unwrap(await pub.listGames()).total >= 1);

  // Errors are values: a memory server has no leaderboard; webhooks are off on this server.
  for (const r of [await pub.getLeaderboard({ limit: '5' }), await pub.getBotProfile('typed', 'reg')]) {
    t.match(r, { ok: false, status: 404 }, 'no persistence: 404 as a value');
  }
  for (const r of [await reg.registerWebhook({ url: 'https://example.invalid/hook' }), await reg.getWebhook(), await reg.deleteWebhook()]) {
    t.match(r, { ok: false, status: 503, problem: { code: 'webhooks_disabled' } }, 'webhooks off: 503 with its problem');
  }
  const wrong = await anon.acceptChallenge('nope');
  t.match(wrong, { ok: false, status: 404 }, 'an unknown challenge');
  t.throws(() => unwrap(wrong), { name: 'ApiError' }, 'unwrap throws the problem as an ApiError');

  // Events: a match of the two house bots, hosted by the registered bot, runs to its end at once;
  // an invitation to the anonymous bot is refused (only registered bots are players).
  const ev = unwrap(await reg.createEvent({ name: 'typed match', format: 'match', players: [{ team: 'house', name: 'random' }, { team: 'house', name: 'greedy' }], timeControl: { Unlimited: {} }, pairsPerEncounter: 1 }));
  t.equal(ev.format, 'match');
  const eventLines = pub.streamEvent(ev.eventId);
  const ended = await first(eventLines, (e) => typeof e === 'object' && e !== null && 'EventEnded' in e, 'EventEnded');
  t.ok('EventEnded' in ended, 'the event stream ends with EventEnded');
  t.equal(unwrap(await pub.getEvent(ev.eventId)).state, 'finished');
  t.ok(unwrap(await pub.listEvents()).events.some((e) => e.eventId === ev.eventId));
  const exported: unknown[] = [];
  for await (const line of pub.getEventGames(ev.eventId)) exported.push(line);
  t.ok(exported.length >= 2, `the export: the event line and its games (${exported.length} lines)`);
  t.match(unwrap(await pub.getEventPgn(ev.eventId)), /\[Event "typed match"\]/, 'the PGN export as text');
  t.ok(unwrap(await reg.myEvents()).events.length >= 1, 'the host sees its event');
  t.same(unwrap(await reg.setEventHosts({ hosts: [{ team: 'typed', name: 'reg' }] })), { hosts: [{ team: 'typed', name: 'reg' }], rated: false });
  for (const r of [
    await reg.acceptEvent(ev.eventId),
    await reg.declineEvent(ev.eventId),
    await reg.startEvent(ev.eventId),
    await reg.cancelEvent(ev.eventId),
    await reg.pauseEvent(ev.eventId),
    await reg.resumeEvent(ev.eventId),
    await reg.withdrawEventPlayer(ev.eventId, 'house', 'random'),
    await reg.withdrawFromEvent(ev.eventId),
  ]) {
    t.match(r, { ok: false }, 'a finished event takes no invitation answer, start, cancel, pause, resume or withdrawal');
  }

  await new Promise((r) => setImmediate(r));
  const uncovered = ROUTES.map((r) => r.operationId).filter((id) => !seen.has(id as OperationId));
  t.same(uncovered, [], 'every route of the catalogue was called');
  for (const [id, answers] of seen) {
    const route = ROUTES.find((r) => r.operationId === id)!;
    for (const a of answers) {
      if (a === 'stream') continue;
      const res = a as { ok: boolean; status: number; value?: unknown; problem?: unknown };
      const spec = route.responses[res.status];
      t.ok(spec, `${id}: status ${res.status} is in the catalogue`);
      if (!res.ok) t.ok(Problem.safeParse(res.problem).success, `${id} ${res.status}: a Problem`);
      else if (spec?.contentType === CONTENT_TYPES.json) t.ok(spec.schema!.safeParse(res.value).success, `${id} ${res.status}: matches its schema`);
    }
  }
});

t.test('a stream reconnects with back-off after failures, and tells of each', async (t) => {
  const app = await bootApp(t);
  let refusals = 2;
  const flaky: typeof fetch = async (input, init) => {
    if (String(input).includes('/stream') && refusals-- > 0) throw new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED') });
    return fetch(input, init);
  };
  const c = new Client({ url: app.base, fetch: flaky, backoff: { initialMs: 5, maxMs: 20 } });
  c.token = unwrap(await c.mintAnonymous()).token;
  const waits: number[] = [];
  let connects = 0;
  const stream = c.streamAccountEvents({ onRetry: (f, ms) => (t.equal(f.status, 0, 'a network failure'), waits.push(ms)), onConnect: () => connects++ });
  const got = first(stream, (e) => 'ChallengeReceived' in e, 'ChallengeReceived');
  const other = new Client({ url: app.base });
  other.token = unwrap(await other.mintAnonymous()).token;
  const me = unwrap(await c.getAccount());
  // The challenge must come after the stream is open: poll until the connection is made.
  for (let i = 0; i < 500 && connects === 0; i++) await new Promise((r) => setTimeout(r, 5));
  unwrap(await other.createChallenge({ team: me.team, name: me.name }));
  t.ok('ChallengeReceived' in (await got), 'events flow after the reconnects');
  t.same(waits, [5, 10], 'two failures, the wait doubling');
  t.equal(connects, 1, 'one good connection');
  stream.close();

  const noToken = new Client({ url: app.base }).streamAccountEvents();
  await t.rejects(first(noToken, () => true, 'anything'), { name: 'ApiError', failure: { status: 401 } }, 'a 401 ends the stream with an ApiError instead of retrying');
});
