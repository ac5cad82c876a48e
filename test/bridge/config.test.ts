// The bridge's settings: defaults, a config file under flags, time-control specs, mistakes as one
// line; and the challenge filter.
import t from 'tap';
import { BridgeConfig, parseBridgeArgs, parseTimeControl } from '../../src/bridge/config.js';
import { challengeVerdict } from '../../src/bridge/bridge.js';

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
