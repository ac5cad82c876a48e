// A plain worker_threads shard for the `channel` benchmark: batches arrive on parentPort as
// structured-clone arrays or as msgpackr buffers (src/shard/protocol/codec.ts), and the events go back the
// same way, one message per batch. It owns its actors for its whole life, like a real shard.
import { parentPort } from 'node:worker_threads';
import { decodeBatch, encodeBatch } from '../src/shard/protocol/codec.js';
import { StandInShard, threadCpuNs, type Command, type Control } from './shard-channel-actor.js';

const port = parentPort;
if (!port) throw new Error('shard-channel-worker runs as a worker thread');
const shard = new StandInShard();

port.on('message', (msg: Uint8Array | Command[] | Control) => {
  if (msg instanceof Uint8Array) {
    const out = encodeBatch(shard.handle(decodeBatch(msg) as Command[]));
    port.postMessage(out, [out.buffer]);
  } else if (Array.isArray(msg)) {
    port.postMessage(shard.handle(msg));
  } else if (msg.ctl === 'cpu') {
    port.postMessage({ ctl: 'cpu', ns: threadCpuNs() });
  }
});
