// One behavioural suite for every Store implementation: memory.test.ts and lmdb.test.ts each run it
// with their own factory, so the two cannot drift apart.
import type { Test } from 'tap';
import type { Store } from '../../src/store/types.js';
import { SCHEMA_VERSION } from '../../src/domain/records.js';
import { bot, ended, game, hashOf, history, line, linesFor } from './store-fixtures.js';

/** Returns a fresh, empty store; the factory registers its own teardown on `t`. */
export type StoreFactory = (t: Test) => Promise<Store>;

const ids = (xs: { id: string }[]): string[] => xs.map((x) => x.id);
const keys = (xs: { gameId: string; botId: string }[]): string[] => xs.map((x) => `${x.botId}/${x.gameId}`);

export function storeSuite(t: Test, make: StoreFactory): void {
  t.test('creates and reads bots', async (t) => {
    const s = await make(t);
    const a = bot('alpha', 'one');
    t.equal(s.getBot(a.id), undefined, 'unknown before creation');
    t.equal(await s.createBot(a), true, 'created');
    t.same(s.getBot(a.id), a, 'read back by id');
    t.same(s.getBotByTokenHash(a.tokenHash), a, 'read back by token hash');
    t.equal(s.getBotByTokenHash(hashOf('nobody')), undefined, 'unknown hash');
  });

  t.test('a taken id is refused and the first registration stays intact', async (t) => {
    const s = await make(t);
    const first = bot('alpha', 'one');
    const second = bot('alpha', 'one', { tokenHash: hashOf('another token'), onLadder: true });
    t.equal(await s.createBot(first), true);
    t.equal(await s.createBot(second), false, 'second registration of the same id loses');
    t.same(s.getBot(first.id), first, 'record unchanged');
    t.equal(s.getBotByTokenHash(second.tokenHash), undefined, "the loser's token does not authenticate");
  });

  t.test('racing registrations of one id: exactly one wins', async (t) => {
    const s = await make(t);
    const racers = Array.from({ length: 8 }, (_, i) => bot('race', 'car', { tokenHash: hashOf(`t${i}`) }));
    const won = await Promise.all(racers.map((b) => s.createBot(b)));
    t.equal(won.filter(Boolean).length, 1, 'one true');
    const winner = racers[won.indexOf(true)];
    t.same(s.getBot(winner.id), winner, 'the stored record is the winner');
    t.equal(racers.filter((b) => s.getBotByTokenHash(b.tokenHash) !== undefined).length, 1, 'one token resolves');
  });

  t.test('token rotation: the old hash stops resolving, the new one resolves', async (t) => {
    const s = await make(t);
    const a = bot('alpha', 'one');
    const b = bot('beta', 'two');
    await s.createBot(a);
    await s.createBot(b);
    const rotated = { ...a, tokenHash: hashOf('rotated') };
    await s.updateBot(rotated);
    t.equal(s.getBotByTokenHash(a.tokenHash), undefined, 'old hash revoked');
    t.same(s.getBotByTokenHash(rotated.tokenHash), rotated, 'new hash resolves');
    t.same(s.getBot(a.id), rotated, 'record replaced');
    t.same(s.getBotByTokenHash(b.tokenHash), b, "another bot's token is untouched");

    const laddered = { ...rotated, onLadder: true, rating: { rating: 1620, rd: 90, volatility: 0.059 } };
    await s.updateBot(laddered);
    t.same(s.getBotByTokenHash(laddered.tokenHash), laddered, 'an update without rotation keeps the token');
    await t.rejects(s.updateBot(bot('ghost', 'bot')), /no bot bot:team:ghost:bot/, 'updating an unknown bot is a bug');
    t.equal(s.getBot('bot:team:ghost:bot'), undefined, 'and creates nothing');
  });

  t.test('listBots returns every bot, ordered by id', async (t) => {
    const s = await make(t);
    t.same(s.listBots(), [], 'empty store');
    for (const b of [bot('zeta', 'z'), bot('alpha', 'one'), bot('mid', 'm')]) await s.createBot(b);
    t.same(ids(s.listBots()), ['bot:team:alpha:one', 'bot:team:mid:m', 'bot:team:zeta:z']);
  });

  t.test('putGame, getGame and the live list', async (t) => {
    const s = await make(t);
    t.equal(s.getGame('g1'), undefined, 'unknown game');
    const g1 = game('g1');
    const g2 = game('g2', { history: history(40) });
    await s.putGame(g2);
    await s.putGame(g1);
    await s.putGame(ended(game('g3'), 5));
    t.same(s.getGame('g2'), g2, 'a game with 40 turns round-trips exactly');
    t.same(ids(s.listLiveGames()), ['g1', 'g2'], 'only Active games are live, ordered by id');
    const later = { ...g1, ply: 5, version: 10, dice: null, history: history(5) };
    await s.putGame(later);
    t.same(s.getGame('g1'), later, 'putGame replaces');
    t.same(s.listLiveGames().find((g) => g.id === 'g1'), later, 'the live list shows the latest record');
    await s.putGame(ended(later, 7));
    t.same(ids(s.listLiveGames()), ['g2'], 'a put that ends a game takes it off the live list');
  });

  t.test('finishGame stores the final record and the result lines at once', async (t) => {
    const s = await make(t);
    const g = game('g1');
    await s.putGame(g);
    await s.putGame(game('g2'));
    const final = ended(g, 1_000);
    await s.finishGame(final, linesFor(g, 1_000));
    t.same(s.getGame('g1'), final, 'final record stored');
    t.same(ids(s.listLiveGames()), ['g2'], 'no longer live');
    t.same(s.resultsOf(g.white.id, 20), [linesFor(g, 1_000)[0]], "white's line");
    t.same(s.resultsOf(g.black.id, 20), [linesFor(g, 1_000)[1]], "black's line");
  });

  t.test('finishGame refuses caller bugs and writes nothing', async (t) => {
    const s = await make(t);
    const g = game('g1');
    await s.putGame(g);
    await t.rejects(s.finishGame(g, linesFor(g, 1)), /still Active/, 'an Active game cannot be finished');
    await t.rejects(s.finishGame(ended(g, 1), [line('bot:team:a:b', 'other', 1)]), /result line for game other/);
    t.same(s.getGame('g1'), g, 'record untouched');
    t.same(ids(s.listLiveGames()), ['g1'], 'still live');
    t.same(s.allResults(), [], 'no lines');
  });

  t.test('resultsOf: newest first, limited, and only that bot', async (t) => {
    const s = await make(t);
    const me = 'bot:team:t:a';
    // Ids that share a prefix with `me` must not leak into its range.
    const others = ['bot:team:t:ab', 'bot:team:t:a:b', 'bot:team:t:'];
    const times = [500, 100, 900, 300, 700];
    for (const [i, at] of times.entries()) {
      const gid = `g${i}`;
      const mine = line(me, gid, at);
      await s.finishGame(ended(game(gid), at), [mine, ...others.map((o) => line(o, gid, at))]);
    }
    // Two games ending in the same millisecond come back in game-id order.
    await s.finishGame(ended(game('tie-b'), 900), [line(me, 'tie-b', 900)]);
    await s.finishGame(ended(game('tie-a'), 900), [line(me, 'tie-a', 900)]);

    const all = s.resultsOf(me, 100);
    t.same(
      all.map((r) => [r.finishedAt, r.gameId]),
      [[900, 'g2'], [900, 'tie-a'], [900, 'tie-b'], [700, 'g4'], [500, 'g0'], [300, 'g3'], [100, 'g1']],
    );
    t.ok(all.every((r) => r.botId === me), 'no other bot');
    t.same(s.resultsOf(me, 2).map((r) => r.gameId), ['g2', 'tie-a'], 'limit');
    t.same(s.resultsOf(me, 0), [], 'limit 0');
    t.same(s.resultsOf('bot:team:nobody:x', 5), [], 'unknown bot');
    t.same(s.resultsOf(others[0], 3).map((r) => r.finishedAt), [900, 700, 500], 'the prefix-sharing bot has its own');
    t.equal(Object.hasOwn(all[0], 'schema'), false, 'lines come back exactly as the domain type');
  });

  t.test('allResults returns every line', async (t) => {
    const s = await make(t);
    t.same(s.allResults(), []);
    const g1 = game('g1');
    const g2 = game('g2', { white: game('x').black, black: game('x').white });
    await s.finishGame(ended(g1, 10), linesFor(g1, 10));
    await s.finishGame(ended(g2, 20), linesFor(g2, 20));
    t.same(
      keys(s.allResults()),
      ['bot:team:alpha:one/g2', 'bot:team:alpha:one/g1', 'bot:team:beta:two/g2', 'bot:team:beta:two/g1'],
      'grouped by bot, newest first within a bot',
    );
    await s.finishGame(ended(g1, 10), linesFor(g1, 10));
    t.equal(s.allResults().length, 4, 'finishing the same game again does not duplicate lines');
  });

  t.test("callers' mutations never reach stored state", async (t) => {
    const s = await make(t);
    const a = bot('alpha', 'one');
    await s.createBot(a);
    a.rating.rating = 9999;
    a.onLadder = true;
    const read = s.getBot(a.id);
    t.equal(read?.rating.rating, 1500, 'mutating the argument after createBot');
    if (read) read.rating.rd = 1;
    t.equal(s.getBot(a.id)?.rating.rd, 350, 'mutating a returned bot');
    const listed = s.listBots();
    listed[0].name = 'changed';
    t.equal(s.getBotByTokenHash(a.tokenHash)?.name, 'one', 'mutating a listed bot');

    const g = game('g1');
    await s.putGame(g);
    g.history.push(history(1)[0]);
    t.equal(s.getGame('g1')?.history.length, 4, 'mutating the argument after putGame');
    const got = s.getGame('g1');
    got?.history[0].moves.push('x');
    t.same(s.getGame('g1')?.history[0].moves, ['e2e4'], 'mutating a returned game');
    s.listLiveGames()[0].ply = 99;
    t.equal(s.getGame('g1')?.ply, 4, 'mutating a live-list game');

    const lines = linesFor(g, 5);
    await s.finishGame(ended(g, 5), lines);
    lines[0].result = 'draw';
    t.equal(s.resultsOf(g.white.id, 1)[0].result, 'win', 'mutating lines after finishGame');
    s.resultsOf(g.white.id, 1)[0].result = 'loss';
    s.allResults()[0].rated = false;
    t.same(s.resultsOf(g.white.id, 1)[0], linesFor(g, 5)[0], 'mutating returned lines');
  });

  t.test('a record from a newer schema fails loudly on read', async (t) => {
    const s = await make(t);
    const future = SCHEMA_VERSION + 1;
    await s.putGame(game('g-new', { schema: future }));
    t.throws(() => s.getGame('g-new'), new RegExp(`game g-new was written by schema ${future}; .*upgrade the server`));
    t.throws(() => s.listLiveGames(), /written by schema/);
    await s.createBot(bot('new', 'bot', { schema: future }));
    t.throws(() => s.getBot('bot:team:new:bot'), /bot bot:team:new:bot was written by schema/);
    t.throws(() => s.listBots(), /written by schema/);
  });
}
