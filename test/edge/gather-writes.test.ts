// gatherWrites: the lines streams are given while it runs leave in one socket write per stream when
// it returns, in order; outside it every line is its own write; a stream that ends inside it sends
// what it gathered before its end.
import t from 'tap';
import { ManualClock } from '../../src/domain/clock.js';
import { gatherWrites, openNdjson } from '../../src/edge/ndjson.js';
import { Responder } from '../../src/edge/responder.js';
import { recordingResponse } from '../helpers/uws-stub.js';

const open = () => {
  const rec = recordingResponse();
  const stream = openNdjson(new Responder(rec.raw), { clock: new ManualClock(), keepAliveMs: 0 });
  const texts = (): string[] => rec.writes.slice(1).map((w) => w.text); // after the opening blank line
  return { stream, texts, ended: rec.ended };
};

t.test('lines written inside gatherWrites leave in one write per stream, in order', async (t) => {
  const a = open();
  const b = open();
  gatherWrites(() => {
    a.stream.write('{"n":1}');
    b.stream.write('{"n":1}');
    a.stream.write('{"n":2}\n');
    gatherWrites(() => a.stream.write('{"n":3}')); // nested: same gathering
    t.same(a.texts(), [], 'nothing sent while gathering');
  });
  t.same(a.texts(), ['{"n":1}\n{"n":2}\n{"n":3}\n']);
  t.same(b.texts(), ['{"n":1}\n']);
  a.stream.write('{"n":4}');
  a.stream.write('{"n":5}');
  t.same(a.texts().slice(1), ['{"n":4}\n', '{"n":5}\n'], 'outside, one write per line as before');
});

t.test('a stream ended while gathering sends its lines before it ends', async (t) => {
  const a = open();
  gatherWrites(() => {
    a.stream.write('{"last":true}');
    a.stream.end();
  });
  t.same(a.texts(), ['{"last":true}\n']);
  t.ok(a.ended());
});
