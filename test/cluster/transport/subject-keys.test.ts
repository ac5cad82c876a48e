// Listing a bucket's keys from its stream's subjects. Right after the whole cluster restarted, the
// server that answers may not yet have applied every acknowledged write; with a barrier key, the
// listing writes first and waits for a state that holds that write, so no key acknowledged before
// the listing is missed. Checked here against a stand-in bucket whose leader lags behind.
import t from 'tap';
import type { KV } from '@nats-io/kv';
import { subjectKeys } from '../../../src/cluster/transport/nats.js';

/** A bucket whose stream state is `behind` answers old (the last key missing), then current. */
function laggingBucket(behind: number): { kv: KV; puts: string[]; infos: () => number } {
  const puts: string[] = [];
  let infos = 0;
  const subjects = { '$KV.b.s0.a': 1, '$KV.b.s0.b': 1 };
  const bucket = {
    stream: 'KV_b',
    subjectForKey: (k: string) => `$KV.b.${k}`,
    put: async (k: string) => {
      puts.push(k);
      return 11;
    },
    jsm: {
      streams: {
        info: async () => {
          infos++;
          const current = infos > behind;
          return { state: { last_seq: current ? 11 : 9, subjects: current ? subjects : { '$KV.b.s0.a': 1 } } };
        },
      },
    },
  };
  return { kv: bucket as unknown as KV, puts, infos: () => infos };
}

t.test('with a barrier, a lagging answer is asked again until it holds the barrier write', async (t) => {
  const b = laggingBucket(2);
  const keys = await subjectKeys(b.kv, 's0.*', { barrierKey: 'barrier', pause: async () => {} });
  t.same(keys.sort(), ['s0.a', 's0.b'], 'both keys listed');
  t.same(b.puts, ['barrier'], 'one barrier write');
  t.equal(b.infos(), 3, 'asked until the state reached the write');
});

t.test('without a barrier the first answer is taken as it is', async (t) => {
  const b = laggingBucket(2);
  t.same(await subjectKeys(b.kv, 's0.*'), ['s0.a'], 'what the leader held');
  t.same(b.puts, [], 'nothing written');
});

t.test('a state that never reaches the barrier is an error, not a short list', async (t) => {
  const b = laggingBucket(Number.MAX_SAFE_INTEGER);
  const waits: number[] = [];
  const pause = async (ms: number) => void waits.push(ms);
  await t.rejects(subjectKeys(b.kv, 's0.*', { barrierKey: 'barrier', pause }), /stayed before write 11/);
  t.ok(waits.length > 5 && waits.length < 50, `gave up after ${waits.length} waits`);
  t.equal(Math.max(...waits), 500, 'waits grow to half a second');
});
