// The PGN export (GET /events/{id}/games.pgn) over HTTP: the same games as the JSON export, with
// their tags, turns and results; nothing of a pair still being played, not even its ended game.
import t from 'tap';
import { bootApp } from '../../helpers/app.js';
import { Bot, type Json } from '../../helpers/bot.js';
import { exportOf, HOUSE_GREEDY, HOUSE_RANDOM, trustHosts, UNLIMITED, waitEvent } from '../../helpers/tournaments.js';

interface PgnGame {
  tags: Map<string, string>;
  tokens: string[];
}

/** A small PGN reader written for the test: tag pairs, then movetext tokens (comments whole). */
function parsePgn(text: string): PgnGame[] {
  const games: PgnGame[] = [];
  let current: PgnGame | null = null;
  let inMoves = false;
  for (const line of text.split('\n')) {
    const tag = /^\[(\w+) "((?:[^"\\]|\\.)*)"\]$/.exec(line);
    if (tag) {
      if (!current || inMoves) games.push((current = { tags: new Map(), tokens: [] }));
      inMoves = false;
      current.tags.set(tag[1], tag[2].replace(/\\(.)/g, '$1'));
    } else if (line.trim() !== '' && current) {
      inMoves = true;
      current.tokens.push(...(line.match(/\{[^}]*\}|\S+/g) ?? []));
    }
  }
  return games;
}

const RESULT = { White: '1-0', Black: '0-1', Draw: '1/2-1/2' } as Record<string, string>;

t.test('a finished match: one PGN game per exported game, tags, turns and results as in the JSON export', async (t) => {
  const app = await bootApp(t);
  const host = await Bot.register(app, 'hosts', 'pia');
  const created = await host.req('POST', '/events', {
    name: 'pgn "match"', format: 'match', players: [HOUSE_GREEDY, HOUSE_RANDOM], timeControl: UNLIMITED, pairsPerEncounter: 3, concurrency: 2,
  });
  const id = (created.json as Json).eventId;
  t.equal((await waitEvent(app, id)).state, 'finished');
  const r = await app.req('GET', `/events/${id}/games.pgn`);
  t.equal(r.status, 200);
  t.match(r.headers['content-type'], /^application\/x-chess-pgn/);
  const games = parsePgn(r.text);
  const exported = (await exportOf(app, id)).filter((l) => l.Game).map((l) => l.Game);
  t.equal(games.length, 6, 'three pairs of two games');
  t.equal(games.length, exported.length, 'as many as the JSON export');
  games.forEach((g, i) => {
    const e = exported[i];
    for (const k of ['Event', 'Site', 'Date', 'Round', 'White', 'Black', 'Result']) t.ok(g.tags.has(k), `${k} present`);
    t.equal(g.tags.get('Event'), 'pgn "match"', 'the name, unescaped');
    t.match(g.tags.get('Date'), /^\d{4}\.\d\d\.\d\d$/);
    t.equal(g.tags.get('Result'), RESULT[e.result], `game ${i}: result`);
    t.equal(g.tokens[g.tokens.length - 1], RESULT[e.result], 'the movetext ends with it');
    t.equal(g.tags.get('White'), `${e.white.team}/${e.white.name}`);
    t.equal(g.tags.get('Black'), `${e.black.team}/${e.black.name}`);
    t.equal(g.tags.get('EventId'), id);
    t.equal(g.tags.get('Pair'), String(e.pair));
    t.equal(g.tags.get('PairGame'), String(e.game));
    t.equal(g.tags.get('GameId'), e.gameId);
    t.equal(g.tags.get('Commit'), e.commit);
    t.equal(g.tags.get('ServerSeed'), e.serverSeed);
    t.equal(g.tags.get('ClientSeedWhite'), e.clientSeeds.white);
    t.equal(g.tags.get('ClientSeedBlack'), e.clientSeeds.black);
    t.equal(g.tags.get('TimeControl'), '-');
    t.equal(g.tags.get('DiceTermination'), e.termination);
    t.ok(g.tags.has('Termination'));
    // Turn by turn: a number, the roll as a comment, the micro-moves (or `--` for a pass).
    const dice = g.tokens.filter((x) => x.startsWith('{'));
    t.same(dice, e.history.map((h: Json) => `{dice: ${h.dice.join(' ')}}`), 'every roll, in order');
    const moves = g.tokens.filter((x) => !x.startsWith('{') && !/^\d+\.(\.\.)?$/.test(x)).slice(0, -1);
    t.same(moves, e.history.flatMap((h: Json) => (h.moves.length === 0 ? ['--'] : h.moves)), 'every move, in order');
  });
  t.equal((await app.req('GET', '/events/nope/games.pgn')).status, 404, 'an unknown event');
});

t.test('a pair still being played is left out, even its game that has ended', async (t) => {
  const app = await bootApp(t);
  const host = await Bot.register(app, 'hosts', 'pol');
  const slow = await Bot.register(app, 'guests', 'slow');
  await trustHosts(slow, [host]);
  const stream = await slow.accountStream();
  t.teardown(() => stream.close());
  // The bot resigns its first three games (the first pair and one game of the second) and never
  // moves in the fourth, so the second pair keeps running with one game over.
  let resigned = 0;
  void (async () => {
    try {
      for (let ev = await stream.next(); ev; ev = await stream.next()) {
        if (ev.GameStart && resigned < 3) {
          resigned++;
          await slow.resign(ev.GameStart.gameId);
        }
      }
    } catch { /* closed */ }
  })();
  const created = await host.req('POST', '/events', {
    name: 'half done', format: 'match', players: [HOUSE_GREEDY, { team: 'guests', name: 'slow' }], timeControl: UNLIMITED, pairsPerEncounter: 2,
  });
  const id = (created.json as Json).eventId;
  const ev = await waitEvent(app, id, (e) => e.pairs.length === 2 && e.pairs[1].scores.filter((s: unknown) => s !== null).length === 1);
  t.equal(ev.state, 'running');
  const games = parsePgn((await app.req('GET', `/events/${id}/games.pgn`)).text);
  t.equal(games.length, 2, 'the finished pair’s two games only');
  t.same(games.map((g) => g.tags.get('Pair')), ['0', '0']);
  t.same(games.map((g) => g.tags.get('GameId')), ev.pairs[0].games, 'the first pair’s games');
  t.equal((await exportOf(app, id)).filter((l) => l.Game).length, 2, 'as the JSON export leaves it out');
});
