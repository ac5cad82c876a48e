// An event's view as one ndjson line made in pieces: joined, the pieces are exactly the line made
// whole, for a 20,000-pair view (in hundreds of small pieces) and for names that look like the
// view's own keys.
import t from 'tap';
import { viewLine } from '../../../src/services/tournaments/view-line.js';

function view(pairs: number, name: string) {
  return {
    eventId: 'E', name, format: 'sprt', state: 'finished', host: { team: 'h', name: '"llrHistory":[],"pairs":[]' },
    standings: [{ team: 't', name: 'a', points: 1.5, pairs: 3 }], encounters: [{ pairs: 3, llr: 0.25 }],
    llrHistory: Array.from({ length: pairs }, (_, i) => Math.sin(i) * 3),
    pairs: Array.from({ length: pairs }, (_, i) => ({ index: i, round: 0, players: [{ team: 't', name: 'a' }, { team: 't', name: 'b' }], games: [`g${i}a`, `g${i}b`], scores: [1, 0.5] })),
    byes: [{ round: 1, team: 't', name: 'c' }],
  };
}

t.test('the pieces make the line made whole', async (t) => {
  for (const [pairs, name] of [[0, 'empty'], [1, 'one'], [64, 'a full piece'], [65, 'one more'], [20_000, '"pairs":[]'], [3, '"llrHistory":[],"pairs":[]']] as const) {
    const v = view(pairs, name);
    for (const key of ['Event', 'EventState'] as const) {
      const pieces = [...viewLine(key, v)];
      t.equal(pieces.join(''), `${JSON.stringify({ [key]: v })}\n`, `${key}, ${pairs} pairs, named ${name}`);
      if (pairs === 20_000) {
        t.ok(pieces.length > 600, `${pieces.length} pieces`);
        t.ok(Math.max(...pieces.map((p) => p.length)) < 16 * 1024, 'none over 16 KiB');
      }
    }
  }
});
