// The two ndjson streams over real HTTP: Snapshot first and consistent with `v`, keep-alive blank
// lines driven by the injected clock, versions strictly +1 across every event kind, the close after
// GameEnded, an ended game's short stream, 401/404, and a slow consumer cut off while the server
// stays healthy.
import t from 'tap';
import { ManualClock } from '../../src/domain/clock.js';
import { bootApp, type TestApp } from '../helpers/app.js';
import { rawConnect } from '../helpers/http.js';
import { Bot, type Json } from '../helpers/bot.js';
import { EventStream, kindOf, vOf, type Ev } from '../helpers/event-stream.js';
import { endedState, fullTree, gameState, seededGame } from '../helpers/games.js';
import { randomPath, type Tree } from '../helpers/play.js';
import { prng as rng } from '../helpers/prng.js';
import { versionGaps } from '../helpers/audit.js';

const HOLD = { 'games.seedGraceMs': 600_000 };

/** Sends `count` move requests pipelined on one connection, in batches, and waits for every answer. */
async function floodMoves(app: TestApp, token: string, gameId: string, moves: string[], count: number, conns = 100): Promise<number> {
  const body = JSON.stringify({ moves });
  const one =
    `POST /bot/game/${gameId}/move HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  const countAnswers = (text: string): number => text.split('HTTP/1.1 ').length - 1;
  // Many keep-alive connections, one request at a time on each: a move's answer waits for its game's
  // shard, and uWS closes a connection that pipelines behind a pending answer (docs/OPERATIONS.md, "Limits of the HTTP layer").
  const per = Math.ceil(count / conns);
  const received = await Promise.all(
    Array.from({ length: Math.min(conns, count) }, async (_, i) => {
      const n = Math.min(per, count - i * per);
      const conn = await rawConnect(app.port);
      for (let k = 1; k <= n; k++) {
        conn.write(one);
        await conn.until((text) => countAnswers(text) >= k);
      }
      const text = conn.received();
      conn.destroy();
      return text;
    }),
  );
  const all = received.join('');
  const statuses = new Set(all.match(/HTTP\/1\.1 \d+/g));
  if (statuses.size !== 1 || !statuses.has('HTTP/1.1 409')) throw new Error(`flood answers: ${[...statuses].join(', ')}`);
  return countAnswers(all);
}

/** Subscribers of a live game (a test-only look inside the actor: the wire has no such signal). */
const subscribers = (app: TestApp, gameId: string): number =>
  (app.server.games.get(gameId) as unknown as { subs: Set<unknown> } | undefined)?.subs.size ?? -1;

t.test('401 without a token, 404 for an unknown game, 200 ndjson otherwise', async (t) => {
  const app = await bootApp(t);
  const bot = await Bot.anon(app, 'bot');
  const noToken = await app.req('GET', '/bot/stream/event');
  t.equal(noToken.status, 401);
  t.equal(noToken.headers['www-authenticate'], 'Bearer realm="dicechess"');
  t.equal((await app.req('GET', '/bot/game/stream/abc')).status, 401);
  const unknown = await app.req('GET', '/bot/game/stream/no-such-game', { token: bot.token });
  t.equal(unknown.status, 404);
  t.equal((unknown.json as Json).code, 'unknown_game');
  const acct = await bot.accountStream();
  t.equal(acct.status, 200);
  t.match(acct.reader.headers['content-type'], /^application\/x-ndjson/);
  acct.close();
});

t.test('Snapshot first, consistent with v and with the public reads; then v+1, v+2, …', async (t) => {
  const app = await bootApp(t, { overrides: HOLD });
  const white = await Bot.anon(app, 'white');
  const black = await Bot.anon(app, 'black');
  const watcher = await Bot.anon(app, 'watcher');
  const { gameId } = await seededGame(app, white, black);
  const random = rng(5);
  // Play a few turns with the public reads only.
  for (let turns = 0; turns < 5; ) {
    const m = await fullTree(app, gameId);
    if (!m.dicePending) continue;
    const mover = m.dfen.split(' ')[1] === 'w' ? white : black;
    if ((await mover.move(gameId, randomPath(m.legalMoves as Tree, random))).status === 200) turns++;
  }
  const state = await gameState(app, gameId);
  const history = ((await app.req('GET', `/games/${gameId}/history`)).json as Json).history;
  const stream = await watcher.gameStream(gameId);
  const first = await stream.next();
  t.equal(kindOf(first!), 'Snapshot', 'the first event is the Snapshot');
  const snap = first!.Snapshot;
  t.equal(snap.v, state.version, 'v is the game version');
  t.equal(snap.state.version, snap.v);
  t.same(snap.state, state, 'state is exactly GET /games/{id}');
  t.same(snap.history, history, 'history is exactly the transcript');
  t.ok(snap.history.length >= 5, 'every completed turn is listed');
  t.equal(snap.history.at(-1).fenAfter, state.dfen.split(' ').slice(0, 6).join(' '), 'the last turn ends where the pending roll starts');
  t.equal(snap.state.dicePending, true);
  // The next event continues from v.
  const idle = state.activeSeat === 'White' ? black : white;
  await idle.move(gameId, ['a7a6']);
  t.same(await stream.next(), { Rejected: { v: snap.v + 1, seat: state.activeSeat === 'White' ? 'Black' : 'White', reason: 'not your turn' } });
  stream.close();

  // A game with no turn yet: an empty history.
  const fresh = await white.playAgainst(black);
  const s2 = await white.gameStream(fresh);
  const snap2 = (await s2.next())!.Snapshot;
  t.same(snap2.history, [], 'no completed turn: an empty history');
  t.equal(snap2.v, 0);
  s2.close();
});

t.test('keep-alive: blank lines after each idle interval of the injected clock, on both streams', async (t) => {
  const clock = new ManualClock(undefined, { runDueTimers: true });
  const app = await bootApp(t, { clock, overrides: { ...HOLD, 'streams.keepAliveMs': 1000 } });
  const white = await Bot.anon(app, 'white');
  const black = await Bot.anon(app, 'black');
  const { gameId, state } = await seededGame(app, white, black);
  const stream = await white.gameStream(gameId);
  const acct = await white.accountStream();
  t.equal(kindOf((await stream.next())!), 'Snapshot');
  stream.keepAlives = 0; // the blank line that opens every stream is not a keep-alive
  for (let i = 0; i < 6; i++) clock.advance(1000);
  await black.move(gameId, ['a7a6']); // a marker event after the idle time
  const marker = await stream.next();
  t.equal(marker?.Rejected?.v, state.version + 1);
  t.ok(stream.keepAlives >= 5 && stream.keepAlives <= 6, `one blank line per idle second (${stream.keepAlives} in 6 s)`);
  const before = stream.keepAlives;
  await black.move(gameId, ['a7a6']);
  t.equal((await stream.next())?.Rejected?.v, state.version + 2);
  t.equal(stream.keepAlives, before, 'no keep-alive without time passing');

  const opening = await acct.line();
  t.equal(opening, '', 'the account stream opens with a blank line');
  t.equal((await acct.line()) ?? '', `${JSON.stringify({ GameStart: { gameId, color: 'White', opponent: { id: black.id, kind: 'Bot', name: `anon ${black.creds.name}` }, timeControl: { Unlimited: {} }, rated: false } })}`, 'then its catch-up: the live game');
  const challenge = await black.challenge({ team: white.creds.team, name: white.creds.name });
  const ev = await acct.next();
  t.equal(ev?.ChallengeReceived?.id, (challenge.json as Json).id);
  t.ok(acct.keepAlives >= 5, `the account stream kept alive too (${acct.keepAlives})`);
  stream.close();
  acct.close();
});

t.test('versions go up by exactly one across every event kind, and the stream closes after GameEnded', async (t) => {
  const app = await bootApp(t, { overrides: HOLD });
  const white = await Bot.anon(app, 'white');
  const black = await Bot.anon(app, 'black');
  const gameId = await white.playAgainst(black);
  const stream = await white.gameStream(gameId);
  const events: Ev[] = [(await stream.next())!];
  await white.seed(gameId, 'bad'); // Rejected (malformed seed)
  await white.seed(gameId, 'white-seed-versions-0001');
  await black.seed(gameId, 'black-seed-versions-0001');
  const random = rng(99);
  let turns = 0;
  for (let ev = await stream.next(); ev; ev = await stream.next()) {
    events.push(ev);
    if (!ev.DiceRolled) continue;
    const tree = ev.DiceRolled.legalMoves ?? (await fullTree(app, gameId)).legalMoves;
    if (Object.keys(tree).length === 0) continue; // forced pass: the server plays it
    const mover = ev.DiceRolled.seat === 'White' ? white : black;
    const idle = mover === white ? black : white;
    if (turns % 3 === 0) await idle.move(gameId, ['a2a3']); // not your turn
    if (turns % 4 === 0) await mover.move(gameId, ['h9h9']); // illegal turn
    await mover.move(gameId, randomPath(tree, random));
    if (++turns === 40) await idle.resign(gameId);
  }
  const kinds = new Set(events.map(kindOf));
  for (const k of ['Snapshot', 'DiceRolled', 'TurnPlayed', 'Rejected', 'GameEnded']) t.ok(kinds.has(k), `saw ${k}`);
  t.same(versionGaps(events), [], 'each event is exactly one version after the one before');
  t.equal(kindOf(events.at(-1)!), 'GameEnded', 'GameEnded is the last event');
  t.same(await stream.reader.closed, { complete: true }, 'the server ended the stream cleanly');
  const final = await gameState(app, gameId);
  t.equal(final.version, vOf(events.at(-1)!), 'GameEnded carries the final version');
});

t.test('an ended game: Snapshot and GameEnded, then the stream closes', async (t) => {
  const app = await bootApp(t);
  const white = await Bot.anon(app, 'white');
  const black = await Bot.anon(app, 'black');
  const gameId = await white.playAgainst(black);
  await black.resign(gameId);
  const state = await endedState(app, gameId);
  const stream = await white.gameStream(gameId);
  const all = await stream.rest();
  t.same(all.map(kindOf), ['Snapshot', 'GameEnded']);
  t.same(all[0].Snapshot.state, state, 'the ended state');
  t.equal(all[0].Snapshot.v, state.version);
  t.same(all[1].GameEnded, { v: state.version, over: { result: { Win: { side: 'White' } }, termination: 'Resign' }, seed: state.seed, clientSeeds: state.clientSeeds });
  t.same(await stream.reader.closed, { complete: true });
});

t.test('a consumer that falls more than 1 MiB behind is cut off; the server stays healthy', async (t) => {
  const app = await bootApp(t, { overrides: HOLD });
  const white = await Bot.anon(app, 'white');
  const black = await Bot.anon(app, 'black');
  const { gameId } = await seededGame(app, white, black);
  const slow = await black.gameStream(gameId);
  const fast = await white.gameStream(gameId);
  const v0 = (await slow.next())!.Snapshot.v;
  t.equal((await fast.next())!.Snapshot.v, v0);
  t.equal(subscribers(app, gameId), 2);
  slow.reader.pause();
  // Illegal moves, each answered 409 and published as a ~180-byte Rejected event, until the
  // stalled subscriber is dropped (the kernel's socket buffers fill first, then our 1 MiB).
  const junk = Array(16).fill('abcdefgh');
  let sent = 0;
  let fastSeen = 0;
  for (let round = 0; round < 40 && subscribers(app, gameId) === 2; round++) {
    sent += await floodMoves(app, white.token, gameId, junk, 2000);
    // The reading subscriber keeps up all along.
    while (fastSeen < sent) {
      const ev = await fast.next();
      if (!ev?.Rejected) throw new Error(`fast reader got ${JSON.stringify(ev)}`);
      fastSeen++;
    }
  }
  t.equal(subscribers(app, gameId), 1, `the stalled subscriber was dropped (after ${sent} events)`);
  t.ok(sent * 180 > 1024 * 1024, 'more than 1 MiB was published');
  slow.reader.resume();
  let got = 0;
  let lastV = v0;
  for (let ev = await slow.next(); ev; ev = await slow.next()) {
    got++;
    lastV = vOf(ev);
  }
  t.same(await slow.reader.closed, { complete: false }, 'the server cut the stream mid-way');
  t.ok(got < sent, `the cut stream is missing the tail (${got} of ${sent})`);
  t.ok(lastV < v0 + sent, 'it stopped before the last event');

  const health = await app.req('GET', '/health');
  t.equal(health.status, 200, 'the server is healthy');
  const m = await fullTree(app, gameId);
  const ok = await white.move(gameId, randomPath(m.legalMoves as Tree, rng(1)));
  t.equal(ok.status, 200, 'the game goes on');
  const turn = await fast.until((e) => 'TurnPlayed' in e, 'TurnPlayed');
  t.equal(turn.TurnPlayed.v, v0 + sent + 1, 'the reader that kept up saw every event');
  const again = await black.gameStream(gameId);
  const snap = (await again.next())!.Snapshot;
  t.ok(snap.v >= v0 + sent + 1, 'a reconnect starts from a fresh Snapshot');
  again.close();
  fast.close();
});
