// Events in every Store (memory, LMDB, cluster): kept in parts, written in parts, read back whole, and
// indexed (open events, the newest ones, each bot's newest) without reading the records.
import type { Test } from 'tap';
import type { TournamentRecord } from '../../src/domain/tournaments.js';
import { TOURNAMENT_INDEX_DEPTH } from '../../src/store/tournament-index.js';
import type { Store } from '../../src/store/types.js';
import { tournament } from './store-fixtures.js';
import type { StoreFactory } from './store-suite.js';

/** Resolves once `ok()` holds on the store (a cluster's other node sees a write a little later). */
export type Settled = (s: Store, ok: () => boolean) => Promise<void>;
const now: Settled = async () => {};

export function tournamentsSuite(t: Test, make: StoreFactory, settled: Settled = now): void {
  t.test('an event is read back whole, its head with its counts', async (t) => {
    const s = await make(t);
    const ev = tournament('e1', { pairs: 5, finished: 2, queued: 150 });
    await s.putTournament(ev);
    t.same(s.getTournament('e1'), ev, 'whole');
    const { pairs: _p, queue: _q, ...rest } = ev;
    t.same(s.getTournamentHead('e1'), { ...rest, pairCount: 5, pairsFinished: 2, queueLength: 150 }, 'the head');
    t.equal(s.getTournament('none'), undefined);
    t.equal(s.getTournamentHead('none'), undefined);
  });

  t.test('changes written in parts read back as the record they make', async (t) => {
    const s = await make(t);
    let ev = tournament('e2', { pairs: 2, queued: 200 });
    await s.putTournament(ev);
    const change = async (next: TournamentRecord) => {
      await s.putTournament(next, ev);
      ev = next;
      t.same(s.getTournament('e2'), ev);
    };
    // A pair starts: taken from near the front of the queue.
    await change({ ...ev, pairs: [...ev.pairs, { ...ev.pairs[0], index: 2, games: ['x', 'y'] }], queue: ev.queue.filter((_, i) => i !== 1) });
    // A game's result; then the pair's second.
    await change({ ...ev, pairs: ev.pairs.map((p, i) => (i === 2 ? { ...p, scores: [1, null] } : p)) });
    await change({ ...ev, pairs: ev.pairs.map((p, i) => (i === 2 ? { ...p, scores: [1, 0], finishedSeq: 1 } : p)) });
    t.equal(s.getTournamentHead('e2')?.pairsFinished, 1, 'the head counts the finished pair');
    await change({ ...ev, queue: [...ev.queue, [1, 0, 0]] });
    await change({ ...ev, queue: ev.queue.slice(100) });
    await change({ ...ev, refused: [3, 0] });
    await change({ ...ev, state: 'cancelled', queue: [] });
    await change({ ...ev, queue: [[0, 1, 0]] });
  });

  t.test('the index: open events, the newest events, each bot\'s newest', async (t) => {
    const s = await make(t);
    const at = (i: number) => 1_700_000_000_000 + i;
    const hostOf = (i: number) => (i % 2 === 0 ? 'bot:team:tt:even' : 'bot:team:tt:odd');
    for (let i = 0; i < TOURNAMENT_INDEX_DEPTH + 5; i++) {
      await s.putTournament(tournament(`n${String(i).padStart(3, '0')}`, { over: { createdAt: at(i), host: hostOf(i), state: i < 100 ? 'finished' : 'pending' } }));
    }
    await settled(s, () => s.recentTournaments(1)[0] === 'n104' && s.openTournaments().length === 5);
    const newest = s.recentTournaments(1000);
    t.equal(newest.length, TOURNAMENT_INDEX_DEPTH, 'as many as the index keeps');
    t.same(newest.slice(0, 3), ['n104', 'n103', 'n102'], 'newest first');
    t.same(s.recentTournaments(2, 'bot:team:tt:odd'), ['n103', 'n101'], 'those a bot hosts');
    t.same(s.recentTournaments(1, 'bot:team:tt:a'), ['n104'], 'those a bot plays in');
    t.same(s.recentTournaments(5, 'bot:team:tt:nobody'), []);
    t.same(s.openTournaments().map((e) => e.id), ['n100', 'n101', 'n102', 'n103', 'n104'], 'open ones, oldest first');
    t.same(s.openTournaments()[0], { id: 'n100', host: hostOf(100), state: 'pending', createdAt: at(100) });

    const before = s.tournamentRevision('n100');
    t.type(before, 'number', 'an open event has a revision');
    const ev = s.getTournament('n100')!;
    await s.putTournament({ ...ev, pairs: [...tournament('x', { pairs: 1 }).pairs] }, ev);
    await settled(s, () => s.tournamentRevision('n100') !== before);
    t.not(s.tournamentRevision('n100'), before, 'it changes with a write of a pair');
    await s.putTournament({ ...ev, state: 'finished' }, ev);
    await settled(s, () => s.openTournaments().length === 4);
    t.same(s.openTournaments().map((e) => e.id), ['n101', 'n102', 'n103', 'n104'], 'an event that ends leaves the open ones');
    t.equal(s.tournamentRevision('n100'), undefined, 'and has no revision');
  });
}
