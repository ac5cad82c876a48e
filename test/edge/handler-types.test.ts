// The handler boundary is typed from the route catalogue. The `@ts-expect-error` lines are the
// checks that matter: the build (tsc) fails as soon as one of them compiles, i.e. as soon as a
// handler could receive something other than what its route's schemas and auth say.
import t from 'tap';
import type { Principal } from '../../src/domain/types.js';
import type { Call, HandlerTable } from '../../src/edge/deps.js';
import { opsHandlers } from '../../src/edge/handlers/ops.js';

const bot: Principal = { id: 'bot:team:t:b', tier: 'registered', team: 't', name: 'b' };

t.test("a call's body, query, params and principal follow its catalogue entry", async (t) => {
  const move: Call<'submitMove'>['body'] = { moves: ['e2e4'] };
  // @ts-expect-error the move body's schema says `moves` is a list of strings
  const badMove: Call<'submitMove'>['body'] = { moves: 'e2e4' };
  // A lenient route hands over the raw JSON value; the handler judges it.
  const seed: Call<'submitSeed'>['body'] = 42;
  // @ts-expect-error a route without a body schema receives no body
  const resignBody: Call<'resign'>['body'] = {};

  const query: Call<'pollSeek'>['query'] = { secret: 's' };
  // @ts-expect-error a route without a query schema receives no query parameters
  const noQuery: Call<'getGame'>['query'] = { secret: 's' };

  const params: Call<'getBotProfile'>['params'] = { team: 't', name: 'b' };
  // @ts-expect-error the path /bots/{team}/{name} has both parameters
  const halfParams: Call<'getBotProfile'>['params'] = { team: 't' };

  const caller: Call<'getAccount'>['principal'] = bot;
  // @ts-expect-error an authenticated route always has its caller
  const nobody: Call<'getAccount'>['principal'] = null;
  // @ts-expect-error a public route has no caller
  const publicCaller: Call<'listGames'>['principal'] = bot;

  t.same(
    [move, badMove, seed, resignBody, query, noQuery, params, halfParams, caller, nobody, publicCaller],
    [{ moves: ['e2e4'] }, { moves: 'e2e4' }, 42, {}, { secret: 's' }, { secret: 's' }, { team: 't', name: 'b' }, { team: 't' }, bot, null, bot],
  );
});

t.test('a handler group is built from only the services it uses', async (t) => {
  const ops = opsHandlers({ version: '9.9.9', metrics: async () => 'dicechess_up 1\n' });
  // @ts-expect-error one group is not the whole table: every route needs its handler
  const table: HandlerTable = ops;
  t.equal(table, ops);

  const health = await ops.health({ ctx: undefined as never, principal: null, body: undefined, query: {}, params: {} });
  t.same(health && JSON.parse(String(health.body ?? '')), { status: 'ok', version: '9.9.9' });
  const metrics = await ops.metrics({ ctx: undefined as never, principal: null, body: undefined, query: {}, params: {} });
  t.equal(metrics?.body, 'dicechess_up 1\n');
});
