// The game log's readers when a nats-server dies (three servers, R3). A live follower's consumer lives
// on one server: that server is killed -9, and the follower goes on with every later entry, in order,
// none twice, because a consumer that falls silent is replaced (watchedRead). Replays made while the
// server is down (on 2.9 a new consumer may be placed on the dead server) still return the whole game.
import t from 'tap';
import { jetstreamManager, type ConsumerInfo } from '@nats-io/jetstream';
import { connectCluster } from '../../../src/cluster/transport/nats.js';
import { GameLog } from '../../../src/cluster/log/game-log.js';
import { eventually, startNatsCluster } from '../../helpers/nats-cluster.js';

const cluster = await startNatsCluster({ name: 'dc-logfo' });
const writerNc = await connectCluster(cluster.urls, 'logfo-writer');
const readerNc = await connectCluster(cluster.urls, 'logfo-reader');
t.teardown(async () => {
  await writerNc.close();
  await readerNc.close();
  await cluster.stop();
});
const bytes = (s: string) => new TextEncoder().encode(s);

t.test('a follower and replays go on after kill -9 of the server holding the consumer', async (t) => {
  const log = await GameLog.open(writerNc, { replicas: 3, timeoutMs: 3000 });
  const reader = await GameLog.open(readerNc, { replicas: 3, timeoutMs: 3000 });
  const { writer } = await log.takeOver('fo1', 'node-a');
  for (let v = 1; v <= 5; v++) t.ok((await writer.append(v, bytes(`v${v}`))).ok);

  const seen: number[] = [];
  const follower = await reader.follow('fo1', 0, (e) => e.kind === 'version' && seen.push(e.version));
  t.ok(await eventually(() => seen.length === 5), 'the follower has the first five versions');

  // The server that holds the follower's consumer (its only one on the stream).
  const jsm = await jetstreamManager(writerNc, { timeout: 3000 });
  const consumers: ConsumerInfo[] = [];
  for await (const c of jsm.consumers.list('DC_GAMES')) consumers.push(c);
  t.equal(consumers.length, 1, 'one consumer: the follower\'s');
  const host = cluster.servers.findIndex((s) => s.name === consumers[0].cluster?.leader);
  t.ok(host >= 0, `the consumer lives on ${consumers[0].cluster?.leader}`);
  await cluster.kill9(host);

  // Appends go on once the stream has a leader (an append caught by the election is tried again).
  for (let v = 6; v <= 10; v++) {
    // Until the election is over: seconds, or more on a loaded machine (a minute at most here).
    let done = false;
    const giveUpAt = Date.now() + 60_000;
    while (!done && Date.now() < giveUpAt) {
      try {
        done = (await writer.append(v, bytes(`v${v}`))).ok;
      } catch {
        await new Promise((r) => setTimeout(r, 250));
      }
    }
    t.ok(done, `version ${v} appended after the kill`);
  }
  t.ok(await eventually(() => seen.length >= 10, 30_000), 'the follower got the versions appended after the kill');
  t.same(seen, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 'in order, none twice');
  follower.stop();

  // Several replays while the server is down: each makes a new consumer, some placed on the dead one.
  for (let i = 0; i < 4; i++) {
    const entries = await reader.replay('fo1');
    t.same(
      entries.filter((e) => e.counts && e.kind === 'version').map((e) => (e.kind === 'version' ? e.version : 0)),
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
      `replay ${i + 1} while a server is down has the whole game`,
    );
  }
  await cluster.start(host);
});
