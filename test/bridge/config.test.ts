// The bridge's settings: defaults, a config file under flags, time-control specs, mistakes as one
// line, the token redacted when printed; the challenge filter and the judging of announced games.
import t from 'tap';
import { announcedVerdict } from '../../src/bridge/admit.js';
import { challengeVerdict } from '../../src/bridge/bridge.js';
import { bridgeCommand } from '../../src/bridge/cli.js';
import { BridgeConfig, parseBridgeArgs, parseTimeControl, printableConfig, redactToken } from '../../src/bridge/config.js';

const parse = (argv: string[], files: Record<string, string> = {}) =>
  parseBridgeArgs(argv, (p) => {
    if (!(p in files)) throw new Error(`ENOENT: ${p}`);
    return files[p]!;
  });

t.test('every setting has a default', async (t) => {
  const r = parse([]);
  if (typeof r === 'string') throw new Error(r);
  t.same(r.config, BridgeConfig.parse({}), 'no flags: the defaults');
  t.match(r.config, {
    url: 'http://127.0.0.1:8080', tokenFile: 'dicechess-token.json', maxGames: 4, games: null, output: 'progress',
    engine: { command: [], turnTimeoutSeconds: 30, resignMarginSeconds: 1 },
    accept: { enabled: true, opponents: ['registered', 'anonymous', 'house', 'guest'] },
    ladder: { join: false, capacity: 1 }, seeks: { count: 0 },
  });
});

t.test('flags override the file, which overrides the defaults; the engine comes after --', async (t) => {
  const file = JSON.stringify({ url: 'http://a:1', maxGames: 2, accept: { timeControls: ['Fischer'] }, engine: { cwd: '/tmp' } });
  const r = parse(['--config', 'c.json', '--max-games', '7', '--challenge', 'house/random', '--challenge', 'x/y', '--tc', 'sudden:30', '--json', '--', 'python3', 'e.py', '--depth', '3'], { 'c.json': file });
  if (typeof r === 'string') throw new Error(r);
  t.equal(r.config.url, 'http://a:1', 'from the file');
  t.equal(r.config.maxGames, 7, 'the flag wins');
  t.same(r.config.accept.timeControls, ['Fischer'], 'a nested field of the file');
  t.equal(r.config.accept.enabled, true, 'its siblings keep their defaults');
  t.same(r.config.engine, { ...BridgeConfig.parse({}).engine, cwd: '/tmp', command: ['python3', 'e.py', '--depth', '3'] }, 'the engine command after --, flags and all');
  t.same(r.config.challenge.opponents, ['house/random', 'x/y']);
  t.same(r.config.challenge.timeControl, { SuddenDeath: { initialSeconds: 30 } });
  t.same(r.config.seeks.timeControl, { SuddenDeath: { initialSeconds: 30 } });
  t.equal(r.config.output, 'json');
});

t.test('mistakes are one line each', async (t) => {
  t.equal(parse(['--bogus']), 'unknown option --bogus');
  t.equal(parse(['--games']), '--games needs a value');
  t.equal(parse(['--games', 'two']), '--games needs a whole number, got two');
  t.match(parse(['--register', 'No Slug']), /^config: register: must be team\/name/);
  t.match(parse(['--config', 'missing.json']), /^--config missing.json: ENOENT/);
  t.match(parse(['--config', 'bad.json'], { 'bad.json': '{' }), /^--config bad.json: not JSON/);
  t.match(parse(['--config', 'x.json'], { 'x.json': '{"maxGames":0}' }), /^config: maxGames: /);
  t.match(parse(['--config', 'x.json'], { 'x.json': '{"colour":"white"}' }), /^config: \(top\): /, 'an unknown field is refused');
});

t.test('time-control specs', async (t) => {
  t.same(parseTimeControl('unlimited'), { Unlimited: {} });
  t.same(parseTimeControl('fischer:300+3'), { Fischer: { initialSeconds: 300, incrementSeconds: 3 } });
  t.same(parseTimeControl('permove:10'), { PerMove: { secondsPerMove: 10 } });
  t.same(parseTimeControl('{"SuddenDeath":{"initialSeconds":5}}'), { SuddenDeath: { initialSeconds: 5 } });
  t.match(parseTimeControl('fischer:0+3'), /^--tc fischer:0\+3: must be an integer 1\.\.86400/);
  t.match(parseTimeControl('blitz'), /^--tc: expected/);
});

t.test('the challenge filter', async (t) => {
  const config = BridgeConfig.parse({ accept: { timeControls: ['Fischer', 'SuddenDeath'], minInitialSeconds: 60, maxIncrementSeconds: 5, opponents: ['registered', 'house'] } });
  const reg = { Bot: { team: 'acme', name: 'x' } };
  const fischer = (i: number, inc: number) => ({ Fischer: { initialSeconds: i, incrementSeconds: inc } });
  t.equal(challengeVerdict(config, reg, fischer(60, 5), 1), null, 'inside every bound: accepted');
  t.equal(challengeVerdict(config, { Bot: { team: 'house', name: 'random' } }, fischer(60, 0), 1), null, 'a house bot');
  t.match(challengeVerdict(config, { Bot: { team: 'anon', name: 'y' } }, fischer(60, 0), 1), /anonymous opponents/);
  t.match(challengeVerdict(config, { Guest: { id: 'g' } }, fischer(60, 0), 1), /guest opponents/);
  t.match(challengeVerdict(config, reg, { Unlimited: {} }, 1), /Unlimited is not accepted/);
  t.match(challengeVerdict(config, reg, fischer(59, 0), 1), /initial time 59 s/);
  t.match(challengeVerdict(config, reg, fischer(60, 6), 1), /increment above 5 s/);
  t.match(challengeVerdict(config, reg, fischer(60, 0), 0), /no free game slot/, 'no room: declined');
  t.match(challengeVerdict({ ...config, accept: { ...config.accept, enabled: false } }, reg, fischer(60, 0), 1), /accepts no challenges/);
});

t.test('--print-config shows the token redacted', async (t) => {
  const secret = 'dcb_AbCdEfGhIjKlMnOpQrStUvWxYz0123wxyz';
  t.equal(redactToken(secret), 'dcb_…wxyz', 'the prefix and the last four');
  t.equal(redactToken('short-token'), '<redacted>', 'nothing of a short one');
  const printed: string[] = [];
  const was = console.log;
  console.log = (...a: unknown[]) => void printed.push(a.join(' '));
  let code: number;
  try {
    code = await bridgeCommand(['--token', secret, '--print-config']);
  } finally {
    console.log = was;
  }
  t.equal(code, 0);
  const text = printed.join('\n');
  t.notMatch(text, secret.slice(4, 20), 'the token is not printed');
  t.equal(JSON.parse(text).token, 'dcb_…wxyz', 'only its redacted form');
  const parsed = parse(['--token', secret]);
  if (typeof parsed === 'string') throw new Error(parsed);
  t.same({ ...JSON.parse(text), token: secret }, parsed.config, 'the rest as it is');
  t.equal(JSON.parse(printableConfig(BridgeConfig.parse({}))).token, null, 'no token: null');
});

t.test('the ladder may not start more games at once than maxGames', async (t) => {
  t.match(parse(['--ladder', '--capacity', '3', '--max-games', '2']), /^config: ladder\.capacity: more ladder games at once than maxGames allows/);
  t.notMatch(parse(['--ladder', '--capacity', '2', '--max-games', '2']), /^config/);
  t.notMatch(parse(['--capacity', '8', '--max-games', '2']), /^config/, 'only when joining the ladder');
});

t.test('which announced games are played', async (t) => {
  const config = BridgeConfig.parse({
    accept: { enabled: false },
    challenge: { opponents: ['house/random'], timeControl: { PerMove: { secondsPerMove: 5 } } },
    seeks: { count: 1, timeControl: { SuddenDeath: { initialSeconds: 90 } } },
    ladder: { join: true, capacity: 2 },
  });
  const game = (name: string, timeControl: object, ladder?: 'mirror') => ({
    players: { white: { kind: 'Bot' as const, name: 'kit me' }, black: { kind: 'Bot' as const, name } },
    timeControl: timeControl as never,
    ...(ladder ? { ladder } : {}),
  });
  t.equal(announcedVerdict(config, game('house random', { PerMove: { secondsPerMove: 5 } }), 'White', false), null, 'a bot it challenges, at its time control');
  t.equal(announcedVerdict(config, game('acme x', { SuddenDeath: { initialSeconds: 90 } }), 'White', false), null, 'its seek’s time control');
  t.equal(announcedVerdict(config, game('acme x', { Unlimited: {} }, 'mirror'), 'White', false), null, 'a ladder game');
  t.equal(announcedVerdict(config, game('acme x', { Unlimited: {} }), 'White', true), null, 'a challenge it accepted');
  t.match(announcedVerdict(config, game('house random', { Unlimited: {} }), 'White', false), /^not a game it asked for, and this bridge accepts no challenges/, 'another time control');
  const open = BridgeConfig.parse({ accept: { opponents: ['registered'] } });
  t.equal(announcedVerdict(open, game('acme x', { Unlimited: {} }), 'White', false), null, 'the accept filter lets it in');
  t.match(announcedVerdict(open, game('anon x-1', { Unlimited: {} }), 'White', false), /anonymous opponents are not accepted/);
  t.match(announcedVerdict(open, { ...game('kit me', { Unlimited: {} }), players: { white: { kind: 'Human', name: null }, black: { kind: 'Bot', name: 'kit me' } } }, 'Black', false), /guest opponents/, 'a human');
});
