// The account stream's catch-up sink: live lines held until the catch-up is sent, a held line about
// an item the catch-up named dropped, the rest passed in order; the lines held are bounded.
import t from 'tap';
import type { AccountEvent } from '../../src/domain/types.js';
import { CatchUpSink, itemKey } from '../../src/services/account-catchup.js';
import { eventLine } from '../../src/wire/encode.js';

const challenge = (id: string): AccountEvent => ({ ChallengeReceived: { id, challenger: { Bot: { team: 't', name: 'x' } }, timeControl: { Unlimited: {} }, color: 'white' } });
const declined = (id: string): AccountEvent => ({ ChallengeDeclined: { id } });

class Out {
  lines: string[] = [];
  closed = 0;
  send(line: string): void {
    this.lines.push(line);
  }
  close(): void {
    this.closed++;
  }
}

t.test('held lines follow the catch-up, minus the items it already sent', async (t) => {
  const out = new Out();
  const sink = new CatchUpSink(out);
  sink.send(eventLine(challenge('a')));
  sink.send(eventLine(declined('z')));
  sink.send(eventLine(challenge('b')));
  t.same(out.lines, [], 'nothing before the catch-up');
  sink.release([challenge('a'), challenge('a'), challenge('c')]);
  t.same(out.lines, [challenge('a'), challenge('c'), declined('z'), challenge('b')].map(eventLine), 'each item once, catch-up first');
  sink.send(eventLine(challenge('a')));
  t.equal(out.lines.length, 5, 'live afterwards: passed as is');
  t.equal(itemKey(declined('a')), null, 'a decline is never "the same item" as another line');
});

t.test('past the bound, the stream is ended rather than held without end', async (t) => {
  const out = new Out();
  const sink = new CatchUpSink(out, 3);
  for (let i = 0; i < 3; i++) sink.send(eventLine(challenge(`c${i}`)));
  t.equal(out.closed, 0);
  sink.send(eventLine(challenge('one-too-many')));
  t.equal(out.closed, 1, 'closed at the first line over the bound');
  sink.send(eventLine(challenge('later')));
  sink.release([challenge('x')]);
  t.same(out.lines, [], 'nothing is sent on a stream that was ended');
  t.equal(out.closed, 1);
});
