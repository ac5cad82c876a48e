// What the bridge prints: a line per event with the tally in progress mode, errors only when quiet,
// one JSON object per event with --json.
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
