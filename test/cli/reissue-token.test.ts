// `dicechess reissue-token`: a registered bot whose token is lost gets a new one from the operator.
// Over HTTP on a real server process with LMDB: register, stop the server, reissue on its data
// directory, start it again on the same directory: the old token is refused (401), the new one works,
// and the bot's profile (rating, games) and stored settings are as they were. While a server holds the
// directory the command refuses (the store's lock), and unknown or reserved bots are errors.
import t from 'tap';
import { join } from 'node:path';
import { reissueToken, reissueTokenCommand } from '../../src/cli/reissue-token.js';
import { harness } from '../helpers/persistence.js';

t.test('reissued on the stopped server: old token 401, new token works, the bot unchanged', async (t) => {
  const h = harness(t, 'reissue');
  const data = join(h.dir, 'data');
  let server = await h.start();
  const reg = await server.req('POST', '/bot/register', { body: { team: 'kit', name: 'lost' } });
  t.equal(reg.status, 201);
  const old = (reg.json as { token: string }).token;
  t.equal((await server.req('POST', '/bot/capacity', { token: old, body: { capacity: 3 } })).status, 200);
  t.equal((await server.req('POST', '/bot/ladder/join', { token: old })).status, 200);
  const profileBefore = (await server.req('GET', '/bots/kit/lost')).json;
  const runningRefusal = await reissueToken(data, 'kit', 'lost');
  t.match(runningRefusal, { ok: false, error: /reissue-token needs the server stopped/ }, 'refused while the server holds the directory');
  await server.stop('SIGTERM');

  const out: string[] = [];
  const errs: string[] = [];
  const code = await reissueTokenCommand(['kit/lost', '--data', data], { log: (s) => out.push(s), error: (s) => errs.push(s) });
  t.equal(code, 0);
  t.equal(out.length, 1, 'the token alone on stdout');
  const fresh = out[0]!;
  t.match(fresh, /^dcb_[A-Za-z0-9_-]{32}$/);
  t.not(fresh, old);
  t.match(errs.join('\n'), /the old one no longer works/);

  server = await h.start();
  const refused = await server.req('GET', '/bot/account', { token: old });
  t.equal(refused.status, 401, 'the old token is refused');
  t.match(refused.json, { code: 'invalid_token' });
  const me = await server.req('GET', '/bot/account', { token: fresh });
  t.equal(me.status, 200, 'the new token works');
  t.match(me.json, { team: 'kit', name: 'lost', id: 'bot:team:kit:lost' });
  t.same((await server.req('GET', '/bots/kit/lost')).json, profileBefore, 'the profile (rating, games) is unchanged');
  t.match((await server.req('GET', '/bot/capacity', { token: fresh })).json, { capacity: 3 }, 'and its stored settings');
});

t.test('unknown, reserved and malformed names are errors; nothing is printed on stdout', async (t) => {
  const h = harness(t, 'reissue-bad');
  const server = await h.start();
  await server.stop('SIGTERM');
  const data = join(h.dir, 'data');
  const run = async (argv: string[]) => {
    const out: string[] = [];
    const errs: string[] = [];
    const code = await reissueTokenCommand(argv, { log: (s) => out.push(s), error: (s) => errs.push(s) });
    return { code, out, err: errs.join('\n') };
  };
  t.match(await run(['kit/none', '--data', data]), { code: 1, out: [], err: /no registered bot kit\/none/ });
  t.match(await run(['house/random', '--data', data]), { code: 1, out: [], err: /not a registered bot/ });
  t.match(await run(['anon/x', '--data', data]), { code: 1, out: [], err: /not a registered bot/ });
  t.match(await run(['kitlost', '--data', data]), { code: 2, out: [], err: /kitlost is not TEAM\/NAME/ });
  t.match(await run([]), { code: 2, err: /give TEAM\/NAME/ });
});
