// What the bridge prints: a line per event with the tally in progress mode, errors only when quiet,
// one JSON object per event with --json; control characters from the server written out in each.
import t from 'tap';
import { Reporter, type BridgeEvent } from '../../src/bridge/report.js';

const EVENTS: BridgeEvent[] = [
  { event: 'gameStarted', gameId: 'g1', seat: null, opponent: null },
  { event: 'engineFailed', gameId: 'g1', kind: 'timeout', message: 'no answer within 1000 ms' },
  { event: 'gameEnded', gameId: 'g1', seat: 'White', result: 'win', termination: 'KingCaptured' },
];

function run(output: 'progress' | 'quiet' | 'json') {
  const out: string[] = [];
  const err: string[] = [];
  const r = new Reporter(output, (l) => out.push(l), (l) => err.push(l), () => new Date(0));
  r.tally.running = 1;
  for (const e of EVENTS) r.emit(e);
  return { out, err, r };
}

t.test('progress: a line per event, errors on stderr, the tally after games and errors', async (t) => {
  const { out, err } = run('progress');
  t.same(out, [
    'game g1 started  [1 running; 0 played: 0 won, 0 drawn, 0 lost]',
    'game g1 ended: win (KingCaptured)  [1 running; 1 played: 1 won, 0 drawn, 0 lost; last error: engine timeout in game g1: no answer within 1000 ms; restarting it]',
  ]);
  t.same(err, ['engine timeout in game g1: no answer within 1000 ms; restarting it  [1 running; 0 played: 0 won, 0 drawn, 0 lost; last error: engine timeout in game g1: no answer within 1000 ms; restarting it]']);
});

t.test('quiet: errors only', async (t) => {
  const { out, err } = run('quiet');
  t.same(out, []);
  t.equal(err.length, 1);
});

t.test('json: one object per event on stdout, with its time', async (t) => {
  const { out, err } = run('json');
  t.same(err, []);
  t.same(out.map((l) => JSON.parse(l)), EVENTS.map((e) => ({ time: '1970-01-01T00:00:00.000Z', ...e })));
});

t.test('text from the server cannot drive the terminal, in any output', async (t) => {
  const evil: BridgeEvent[] = [
    { event: 'gameStarted', gameId: 'g1', seat: 'White', opponent: 'x\u001b[2J\u001b]0;title\u0007y' },
    { event: 'error', message: 'detail\u009b31m\u007f\r\nfake line\u202e' },
  ];
  const lines = (output: 'progress' | 'json') => {
    const all: string[] = [];
    const r = new Reporter(output, (l) => all.push(l), (l) => all.push(l), () => new Date(0));
    for (const e of evil) r.emit(e);
    return all;
  };
  const progress = lines('progress');
  t.equal(progress.length, 2, 'one line per event, a newline in the text included');
  t.match(progress[0], /^game g1 started as White against x\\x1b\[2J\\x1b\]0;title\\x07y/);
  t.match(progress[1], /^error: detail\\x9b31m\\x7f\\x0d\\x0afake line\\u202e/);
  const json = lines('json');
  for (const l of [...progress, ...json]) t.notMatch(l, /[\u0000-\u001f\u007f-\u009f\u202e]/, 'no control character printed');
  t.same(json.map((l) => JSON.parse(l)), evil.map((e) => ({ time: '1970-01-01T00:00:00.000Z', ...e })), 'the JSON lines still carry the exact text');
});
