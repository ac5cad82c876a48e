// The Piscina task module of the `channel` benchmark (a pool of one thread per shard). Module state
// lives as long as the worker, so the actors persist across tasks. A batch either returns its
// entries as the task's result, or, once a MessagePort has been handed over, posts them on that
// port (how a Piscina worker sends what nobody asked for) and returns nothing.
import type { MessagePort } from 'node:worker_threads';
import { StandInShard, threadCpuNs, type Command, type Control } from './shard-channel-actor.js';

const shard = new StandInShard();
let events: MessagePort | undefined;

export default function task(msg: Command[] | Control): unknown {
  if (Array.isArray(msg)) {
    const entries = shard.handle(msg);
    if (!events) return entries;
    events.postMessage(entries);
    return undefined;
  }
  if (msg.ctl === 'port') {
    events = msg.port;
    return undefined;
  }
  return { ns: threadCpuNs() };
}
