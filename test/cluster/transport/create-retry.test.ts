// A create caught by its shard moving between cluster nodes is sent again, a bounded number of
// times, and only for a move (the old owner stopped before answering, or no owner answered in time):
// any other failure, or one while the registry stops, is passed on at once.
import t from 'tap';
import { silentLogger } from '../../../src/domain/log.js';
import { againIfMoved, CREATE_ATTEMPTS } from '../../../src/cluster/transport/create-retry.js';

const opts = { log: silentLogger, stopping: () => false };

/** A create failing with each message in turn, then succeeding; counts its calls. */
function flaky(...errors: string[]): { create: () => Promise<void>; calls: () => number } {
  let n = 0;
  return {
    create: async () => {
      const e = errors[n++];
      if (e !== undefined) throw new Error(e);
    },
    calls: () => n,
  };
}

t.test('a move is retried until the create lands', async (t) => {
  const f = flaky('shard 2 moved to another node', 'shard 2: shard 2: no owner answered (no responders)');
  await againIfMoved(f.create, opts);
  t.equal(f.calls(), 3, 'sent three times');
});

t.test('at most CREATE_ATTEMPTS sends, then the last error', async (t) => {
  const f = flaky(...Array.from({ length: 10 }, () => 'shard 1 moved to another node'));
  await t.rejects(againIfMoved(f.create, opts), /moved to another node/);
  t.equal(f.calls(), CREATE_ATTEMPTS);
});

t.test('other failures and a stopping registry are not retried', async (t) => {
  const other = flaky('game registry is stopping');
  await t.rejects(againIfMoved(other.create, opts), /stopping/);
  t.equal(other.calls(), 1, 'not a move: once');
  const stopping = flaky('shard 1 moved to another node');
  await t.rejects(againIfMoved(stopping.create, { ...opts, stopping: () => true }), /moved/);
  t.equal(stopping.calls(), 1, 'stopping: once');
});
