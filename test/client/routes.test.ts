// The typed client against the real server: every route of the catalogue is called through its
// grouped method, `client.<area>.<name>` (the test fails naming any route it did not call so), every
// success parses with the catalogue's own schema for its status, every error is a Problem. That the Client has a method for
// every route is the type checker's part (Client implements RouteMethods; see the check below).
// The streams are typed async iterators that end after GameEnded and reconnect after a failure.
import t from 'tap';
import { AREAS, Client, unwrap, type OperationId, type RouteMethods } from '../../src/client/index.js';
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
  /** A client whose every grouped method records what it answered, to check each against the catalogue. */
  const recording = (token?: string): Client => {
    const c = new Client({ url: app.base, token });
    for (const [area, methods] of Object.entries(AREAS)) {
      const group = c[area as keyof typeof AREAS] as unknown as Record<string, (...a: unknown[]) => unknown>;
      for (const [name, id] of Object.entries(methods)) {
        const call = group[name]!;
        group[name] = (...a: unknown[]) => {
          const out = call(...a);
          if (out instanceof Promise) void out.then((v) => seen.set(id, [...(seen.get(id) ?? []), v]));
          else seen.set(id, [...(seen.get(id) ?? []), 'stream']);
          return out;
        };
      }
    }
    return c;
  };
  const pub = recording();
  t.match(unwrap(await pub.server.health()), { status: 'ok' });
  t.match(unwrap(await pub.server.ready()), { status: 'ready' });
  t.match(unwrap(await pub.server.metrics()), /# HELP/, 'metrics as text');
  t.equal(unwrap(await pub.server.openApi()).openapi, '3.1.0');
  t.ok(unwrap(await pub.server.asyncApi()).asyncapi);

  const anon = recording(unwrap(await pub.account.mintAnonymous({ name: 'typed' })).token);
  const reg = recording(unwrap(await pub.account.register({ team: 'typed', name: 'reg' })).token);
  t.equal(unwrap(await reg.account.get()).name, 'reg');
  reg.token = unwrap(await reg.account.rotateToken()).token;
  t.equal(unwrap(await reg.ladder.join()).onLadder, true);
  t.equal(unwrap(await reg.account.setCapacity({ capacity: 2 })).capacity, 2);
  t.equal(unwrap(await reg.account.getCapacity()).capacity, 2);
  t.equal(unwrap(await reg.ladder.leave()).onLadder, false);

  // The account stream tells the registered bot of a challenge.
  const account = reg.streams.account();
  const received = first(account, (e) => 'ChallengeReceived' in e, 'ChallengeReceived');
  const c1 = unwrap(await anon.challenges.create({ team: 'typed', name: 'reg', timeControl: { Unlimited: {} } }));
  t.equal((await received as { ChallengeReceived: { id: string } }).ChallengeReceived.id, c1.id, 'ChallengeReceived on the account stream');
  account.close();
  t.equal(unwrap(await reg.challenges.list()).in[0]?.id, c1.id);
  const { gameId } = unwrap(await reg.challenges.accept(c1.id));
  const c2 = unwrap(await anon.challenges.create({ team: 'typed', name: 'reg' }));
  t.same(unwrap(await reg.challenges.decline(c2.id)), {});
  unwrap(await anon.challenges.create({ team: 'house', name: 'random' }));

  // Seeks and the lobby.
  const s1 = unwrap(await anon.lobby.createSeek());
  t.ok(unwrap(await pub.lobby.list()).seeks.some((s) => s.id === s1.seekId));
  t.equal(unwrap(await pub.lobby.pollSeek(s1.seekId, { secret: s1.secret })).matched, false);
  unwrap(await reg.lobby.acceptSeek(s1.seekId));
  const s2 = unwrap(await anon.lobby.createSeek({ timeControl: { SuddenDeath: { initialSeconds: 60 } } }));
  const cancelled = await pub.lobby.cancelSeek(s2.seekId, { secret: s2.secret });
  t.equal(cancelled.ok && cancelled.status, 204, 'a 204 has no value');
  const s3 = unwrap(await anon.lobby.createSeek());
  t.ok(unwrap(await pub.lobby.guestAcceptSeek(s3.seekId)).seatToken);
  t.ok(unwrap(await pub.lobby.createGuestSeek()).guestId);
  t.ok(unwrap(await pub.lobby.guestPlayHouse('random')).seatToken);

  // A game: the anonymous challenger plays White.
  t.same(unwrap(await anon.games.seed(gameId, { seed: 'typed-client-seed-0001' })), {});
  t.ok(unwrap(await anon.games.mine()).games.some((g) => g.gameId === gameId));
  const gameStream = anon.streams.game(gameId);
  const publicStream = pub.streams.publicGame(gameId);
  const events = gameStream[Symbol.asyncIterator]();
  const snap = (await events.next()).value;
  t.ok(snap && 'Snapshot' in snap, 'the game stream opens with a Snapshot');
  const state = unwrap(await pub.games.get(gameId));
  const moves = unwrap(await pub.games.legalMoves(gameId));
  if (state.activeSeat === 'White' && moves.dicePending && Object.keys(moves.legalMoves).length) {
    const verdict = await anon.games.move(gameId, { moves: randomPath(moves.legalMoves as Tree), version: moves.version });
    t.match(verdict, { ok: true, status: 200, value: { applied: true } }, 'the move applied, typed by status');
  } else {
    const verdict = await anon.games.move(gameId, { moves: [] });
    t.match(verdict, { ok: false, status: 409, problem: { code: 'refused' }, body: { applied: false } }, 'a refused move is a failure that keeps its verdict');
    t.throws(() => unwrap(verdict), { name: 'ApiError' }, 'and unwrap throws it');
  }
  t.same(unwrap(await anon.games.resign(gameId)), {});
  const endedOnPublic = await first(publicStream, (e) => 'GameEnded' in e, 'GameEnded');
  t.ok('GameEnded' in endedOnPublic, 'the public stream carries GameEnded');
  const rest: string[] = [];
  const bound = setTimeout(() => gameStream.close(), 10_000);
  for (let n = await events.next(); !n.done; n = await events.next()) rest.push(Object.keys(n.value)[0]!);
  clearTimeout(bound);
  t.equal(rest.at(-1), 'GameEnded', 'the game stream ends by itself after GameEnded');
  t.ok(unwrap(await pub.games.history(gameId)).status);
  t.ok(unwrap(await pub.games.list()).total >= 1);

  // Errors are values: a memory server has no leaderboard; webhooks are off on this server.
  for (const r of [await pub.ladder.leaderboard({ limit: '5' }), await pub.ladder.profile('typed', 'reg')]) {
    t.match(r, { ok: false, status: 404 }, 'no persistence: 404 as a value');
  }
  for (const r of [await reg.webhooks.register({ url: 'https://example.invalid/hook' }), await reg.webhooks.get(), await reg.webhooks.delete()]) {
    t.match(r, { ok: false, status: 503, problem: { code: 'webhooks_disabled' } }, 'webhooks off: 503 with its problem');
  }
  const wrong = await anon.challenges.accept('nope');
  t.match(wrong, { ok: false, status: 404 }, 'an unknown challenge');
  t.throws(() => unwrap(wrong), { name: 'ApiError' }, 'unwrap throws the problem as an ApiError');

  // Events: a match of the two house bots, hosted by the registered bot, runs to its end at once;
  // an invitation to the anonymous bot is refused (only registered bots are players).
  const ev = unwrap(await reg.events.create({ name: 'typed match', format: 'match', players: [{ team: 'house', name: 'random' }, { team: 'house', name: 'greedy' }], timeControl: { Unlimited: {} }, pairsPerEncounter: 1 }));
  t.equal(ev.format, 'match');
  const eventLines = pub.events.stream(ev.eventId);
  const ended = await first(eventLines, (e) => typeof e === 'object' && e !== null && 'EventEnded' in e, 'EventEnded');
  t.ok('EventEnded' in ended, 'the event stream ends with EventEnded');
  t.equal(unwrap(await pub.events.get(ev.eventId)).state, 'finished');
  t.ok(unwrap(await pub.events.list()).events.some((e) => e.eventId === ev.eventId));
  const exported: unknown[] = [];
  for await (const line of pub.events.games(ev.eventId)) exported.push(line);
  t.ok(exported.length >= 2, `the export: the event line and its games (${exported.length} lines)`);
  t.match(unwrap(await pub.events.pgn(ev.eventId)), /\[Event "typed match"\]/, 'the PGN export as text');
  t.ok(unwrap(await reg.events.mine()).events.length >= 1, 'the host sees its event');
  t.same(unwrap(await reg.events.setHosts({ hosts: [{ team: 'typed', name: 'reg' }] })), { hosts: [{ team: 'typed', name: 'reg' }], rated: false });
  for (const r of [
    await reg.events.accept(ev.eventId),
    await reg.events.decline(ev.eventId),
    await reg.events.start(ev.eventId),
    await reg.events.cancel(ev.eventId),
    await reg.events.pause(ev.eventId),
    await reg.events.resume(ev.eventId),
    await reg.events.withdrawPlayer(ev.eventId, 'house', 'random'),
    await reg.events.withdraw(ev.eventId),
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
  c.token = unwrap(await c.account.mintAnonymous()).token;
  const waits: number[] = [];
  let connects = 0;
  const stream = c.streams.account({ onRetry: (f, ms) => (t.equal(f.status, 0, 'a network failure'), waits.push(ms)), onConnect: () => connects++ });
  const got = first(stream, (e) => 'ChallengeReceived' in e, 'ChallengeReceived');
  const other = new Client({ url: app.base });
  other.token = unwrap(await other.account.mintAnonymous()).token;
  const me = unwrap(await c.account.get());
  // The challenge must come after the stream is open: poll until the connection is made.
  for (let i = 0; i < 500 && connects === 0; i++) await new Promise((r) => setTimeout(r, 5));
  unwrap(await other.challenges.create({ team: me.team, name: me.name }));
  t.ok('ChallengeReceived' in (await got), 'events flow after the reconnects');
  t.same(waits, [5, 10], 'two failures, the wait doubling');
  t.equal(connects, 1, 'one good connection');
  stream.close();

  const noToken = new Client({ url: app.base }).streams.account();
  await t.rejects(first(noToken, () => true, 'anything'), { name: 'ApiError', failure: { status: 401 } }, 'a 401 ends the stream with an ApiError instead of retrying');
});
