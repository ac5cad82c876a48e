// The serial mailbox: order, one at a time, bounded, survives throwing tasks.
import t from 'tap';
import { Mailbox } from '../../src/game/mailbox.js';
import { tick } from '../helpers/poll.js';

t.test('runs tasks one at a time, in order, each to completion', async (t) => {
  const box = new Mailbox(10);
  const log: string[] = [];
  let running = 0;
  let maxRunning = 0;
  for (const name of ['a', 'b', 'c']) {
    box.push(async () => {
      running++;
      maxRunning = Math.max(maxRunning, running);
      log.push(`${name}:start`);
      await tick();
      log.push(`${name}:end`);
      running--;
    });
  }
  t.same(log, [], 'nothing runs synchronously inside push');
  await box.idle();
  t.same(log, ['a:start', 'a:end', 'b:start', 'b:end', 'c:start', 'c:end']);
  t.equal(maxRunning, 1);
  t.equal(box.size, 0);
});

t.test('a full mailbox refuses offers but push always enqueues', async (t) => {
  const box = new Mailbox(2);
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  t.ok(box.offer(() => gate));
  t.ok(box.offer(() => {}));
  t.notOk(box.offer(() => {}), 'third refused');
  t.equal(box.size, 2);
  let forced = false;
  box.push(() => void (forced = true));
  t.equal(box.size, 3);
  release();
  await box.idle();
  t.ok(forced);
  t.ok(box.offer(() => {}), 'room again once drained');
  await box.idle();
});

t.test('a throwing task is reported and the next one still runs', async (t) => {
  const errors: unknown[] = [];
  const box = new Mailbox(5, (e) => errors.push(e));
  let after = false;
  box.push(() => {
    throw new Error('boom');
  });
  box.push(async () => {
    await tick();
    throw new Error('async boom');
  });
  box.push(() => void (after = true));
  await box.idle();
  t.equal(errors.length, 2);
  t.ok(after);
});

t.test('idle resolves at once when empty: within one microtask, no task or timer in between', async (t) => {
  const box = new Mailbox();
  t.equal(box.capacity, 256, 'default capacity');
  let resolved = false;
  void box.idle().then(() => (resolved = true));
  // One microtask turn: only a promise settled already has run its callback by now (one settled
  // by a later microtask, a timer or an immediate has not).
  await Promise.resolve();
  t.ok(resolved, 'settled within one microtask turn');

  // The same check tells a wait apart: with a task running, the mailbox is not idle after that turn.
  let release!: () => void;
  box.push(() => new Promise<void>((r) => (release = r)));
  let waited = false;
  void box.idle().then(() => (waited = true));
  await Promise.resolve();
  t.notOk(waited, 'not idle while a task runs');
  release();
  await box.idle();
  t.ok(waited, 'idle once the task is done');
});
