// gatherWrites: the lines streams are given while it runs leave in one socket write per stream when
// it returns, in order; outside it every line is its own write; a stream that ends inside it sends
// what it gathered before its end.
import t from 'tap';
import type { HttpResponse } from 'uWebSockets.js';
import { ManualClock } from '../../src/domain/clock.js';
import { gatherWrites, openNdjson } from '../../src/edge/ndjson.js';
import { Responder } from '../../src/edge/responder.js';

function recording(): { raw: HttpResponse; writes: string[]; ended: () => boolean } {
  const writes: string[] = [];
  let ended = false;
  const raw = {
    onAborted: () => raw,
    onWritable: () => raw,
    cork: (cb: () => void) => {
      cb();
      return raw;
    },
    writeStatus: () => raw,
    writeHeader: () => raw,
    write: (text: string) => {
      writes.push(text);
      return true;
    },
    end: () => {
      ended = true;
      return raw;
    },
    close: () => raw,
  };
  return { raw: raw as unknown as HttpResponse, writes, ended: () => ended };
}

const open = () => {
  const rec = recording();
  const stream = openNdjson(new Responder(rec.raw), { clock: new ManualClock(), keepAliveMs: 0 });
  rec.writes.length = 0; // the opening blank line
  return { stream, ...rec };
};

t.test('lines written inside gatherWrites leave in one write per stream, in order', async (t) => {
  const a = open();
  const b = open();
  gatherWrites(() => {
    a.stream.write('{"n":1}');
    b.stream.write('{"n":1}');
    a.stream.write('{"n":2}\n');
    gatherWrites(() => a.stream.write('{"n":3}')); // nested: same gathering
    t.same(a.writes, [], 'nothing sent while gathering');
  });
  t.same(a.writes, ['{"n":1}\n{"n":2}\n{"n":3}\n']);
  t.same(b.writes, ['{"n":1}\n']);
  a.stream.write('{"n":4}');
  a.stream.write('{"n":5}');
  t.same(a.writes.slice(1), ['{"n":4}\n', '{"n":5}\n'], 'outside, one write per line as before');
});

t.test('a stream ended while gathering sends its lines before it ends', async (t) => {
  const a = open();
  gatherWrites(() => {
    a.stream.write('{"last":true}');
    a.stream.end();
  });
  t.same(a.writes, ['{"last":true}\n']);
  t.ok(a.ended());
});
