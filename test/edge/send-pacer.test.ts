// The pacer on its own, its turns driven by hand: one slice per sender per turn, the per-turn byte
// budget, turn-about order (who the budget missed goes first next), senders that wait or finish, and
// a sender that throws.
import t from 'tap';
import { SendPacer, type PacedSender, type StepResult } from '../../src/edge/send-pacer.js';

function pacer(sliceBytes: number, bytesPerTurn: number) {
  const pending: (() => void)[] = [];
  const p = new SendPacer({ sliceBytes, bytesPerTurn }, (cb) => pending.push(cb));
  /** Runs the turn that is due; false if none was scheduled. */
  const turn = (): boolean => {
    const cb = pending.shift();
    cb?.();
    return cb !== undefined;
  };
  return { p, turn, pending };
}

/** A sender with `bytes` to write; records each step as [name, maxBytes]. */
function body(name: string, bytes: number, log: [string, number][], full?: () => boolean): PacedSender & { left: number } {
  const s = {
    left: bytes,
    step(max: number): StepResult {
      log.push([name, max]);
      if (full?.()) return 'wait';
      s.left -= Math.min(max, s.left);
      return s.left === 0 ? 'over' : 'more';
    },
  };
  return s;
}

t.test('one slice per sender per turn, all senders within the turn budget', async (t) => {
  const { p, turn, pending } = pacer(10, 100);
  const log: [string, number][] = [];
  const a = body('a', 25, log);
  const b = body('b', 15, log);
  p.ready(a);
  p.ready(b);
  t.equal(pending.length, 1, 'one turn is scheduled for both');
  t.same(log, [], 'nothing is written before the turn');
  t.ok(turn());
  t.same(log, [['a', 10], ['b', 10]], 'each wrote one slice');
  t.ok(turn());
  t.same(log.slice(2), [['a', 10], ['b', 10]]);
  t.equal(b.left, 0, 'b is done after two slices');
  t.ok(turn());
  t.same(log.slice(4), [['a', 10]], 'only a is left');
  t.equal(a.left, 0);
  t.notOk(turn(), 'no turn is scheduled once every body is out');
  t.equal(p.waiting, 0);
});

t.test('the per-turn budget: the senders it did not reach go first in the next turn', async (t) => {
  const { p, turn } = pacer(10, 25);
  const log: [string, number][] = [];
  for (const name of ['a', 'b', 'c', 'd']) p.ready(body(name, 1000, log));
  turn();
  t.same(log, [['a', 10], ['b', 10], ['c', 5]], 'the budget ends within the third slice');
  log.length = 0;
  turn();
  t.same(log, [['d', 10], ['a', 10], ['b', 5]], 'd, missed last time, goes first; then the others in order');
  log.length = 0;
  turn();
  t.same(log, [['c', 10], ['d', 10], ['a', 5]]);
});

t.test('a turn serves at least one sender, and unlimited settings write whole bodies', async (t) => {
  const tiny = pacer(10, 0);
  const log: [string, number][] = [];
  tiny.p.ready(body('a', 5, log));
  tiny.turn();
  t.same(log, [['a', 1]], 'a zero budget still moves one sender by a byte');

  const whole = pacer(Infinity, Infinity);
  const log2: [string, number][] = [];
  whole.p.ready(body('a', 5, log2));
  whole.p.ready(body('b', 7, log2));
  whole.turn();
  t.same(log2, [['a', Infinity], ['b', Infinity]], 'every sender gets all it has in one step');
  t.notOk(whole.turn());
});

t.test('a sender whose socket is full leaves the queue until it asks again; a throwing one is dropped', async (t) => {
  const { p, turn } = pacer(10, 100);
  const log: [string, number][] = [];
  let full = true;
  const slow = body('slow', 30, log, () => full);
  const bad: PacedSender = {
    step() {
      log.push(['bad', 0]);
      throw new Error('bug');
    },
  };
  const fast = body('fast', 20, log);
  p.ready(slow);
  p.ready(bad);
  p.ready(fast);
  turn();
  t.same(log, [['slow', 10], ['bad', 0], ['fast', 10]], 'the throw did not stop the turn');
  log.length = 0;
  turn();
  t.same(log, [['fast', 10]], 'slow waits for its socket; bad is gone');
  t.notOk(turn(), 'nothing more until slow asks again');
  full = false;
  p.ready(slow); // what onWritable does
  p.ready(slow); // twice before its turn: still one slice per turn
  turn();
  turn();
  turn();
  t.same(log.slice(1), [['slow', 10], ['slow', 10], ['slow', 10]]);
  t.equal(slow.left, 0);
  t.equal(p.waiting, 0);
});
