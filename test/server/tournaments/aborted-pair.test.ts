// A game the server aborts (its own failure: the game ends as a draw marked Aborted) is no result of
// the players: its pair's attempt is voided and the pair is played again at the same index, with the
// same dice (same commitment, same client seeds) and new game ids. The stream says so (PairVoided),
// and the standings, the statistics and the export count only the replay. A pair aborted more often
// than the server replays one is void for good, with the reason on the pair.
import t, { type Test } from 'tap';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { verifyEvent } from '../../../src/cli/verify-tournament.js';
import type { GameRecord } from '../../../src/domain/records.js';
import { MAX_REPLAYS } from '../../../src/services/tournaments/replays.js';
import { MemoryStore } from '../../../src/store/memory.js';
import { bootApp } from '../../helpers/app.js';
import { Bot, type Json } from '../../helpers/bot.js';
import { EventStream } from '../../helpers/event-stream.js';
import { StoreProxy } from '../../helpers/store-proxy.js';
import { exportOf, HOUSE_GREEDY, HOUSE_RANDOM, UNLIMITED, waitEvent } from '../../helpers/tournaments.js';

/**
 * A store that refuses a move's write in the first game (the one where the pair's first player is
 * White) of pair `index`, `times` times over (each a new attempt): the game's actor then aborts it,
 * as it does on any failure of its own.
 */
class FailingStore extends StoreProxy {
  readonly failed: string[] = [];
  constructor(private readonly index: number, private times: number) {
    super(new MemoryStore());
  }

  override putGame(g: GameRecord): Promise<void> {
    const ours = g.clientSeeds.white?.endsWith(`:${this.index}:white`) && g.tournament !== undefined && g.history.length >= 2;
    if (ours && this.times > 0 && !this.failed.includes(g.id) && g.white.id === 'bot:team:house:greedy') {
      this.times--;
      this.failed.push(g.id);
      return Promise.reject(new Error('the disk is full (a test)'));
    }
    return super.putGame(g);
  }
}

const dir = mkdtempSync(join(tmpdir(), 'dicechess-aborted-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

async function run(t: Test, times: number) {
  const store = new FailingStore(0, times);
  const app = await bootApp(t, { store });
  const host = await Bot.register(app, 'lab', 'aborts');
  const created = await host.req('POST', '/events', {
    name: 'aborts', format: 'match', players: [HOUSE_GREEDY, HOUSE_RANDOM], timeControl: UNLIMITED, pairsPerEncounter: 2,
  });
  t.equal(created.status, 201, created.text);
  const id = (created.json as Json).eventId;
  const stream = new EventStream(await app.stream(`/events/${id}/stream`), 120_000);
  const lines: Json[] = await stream.rest();
  const ev = await waitEvent(app, id);
  return { app, store, id, ev, lines };
}

t.test('an aborted game voids its pair, which is replayed with the same dice', async (t) => {
  const { app, store, id, ev, lines } = await run(t, 1);
  t.equal(store.failed.length, 1, 'one game was aborted');
  const [aborted] = store.failed;
  const old = await app.req('GET', `/games/${aborted}`);
  t.match(old.json, { status: { Ended: { over: { termination: 'Aborted' } } } }, 'the server aborted it');

  const pair = ev.pairs.find((p: Json) => p.index === 0);
  t.equal(ev.pairs.length, 2, 'the replay took its own place: still two pairs');
  t.equal(pair.replays.length, 1, 'one voided attempt');
  t.ok(pair.replays[0].games.includes(aborted), 'the voided attempt holds the aborted game');
  t.notOk(pair.games.includes(aborted), 'the replay has new game ids');
  t.equal(pair.void, false);
  t.ok(pair.scores.every((s: number | null) => s !== null), 'the replay finished');

  // The same dice: the replay's games have the aborted one's commitment and client seeds.
  const [was, now] = await Promise.all([app.req('GET', `/games/${pair.replays[0].games[0]}`), app.req('GET', `/games/${pair.games[0]}`)]);
  t.equal((now.json as Json).commit, (was.json as Json).commit, 'same server seed hash');
  t.same((now.json as Json).clientSeeds, (was.json as Json).clientSeeds, 'same client seeds');

  const voided = lines.filter((l) => l.PairVoided);
  t.equal(voided.length, 1, 'one PairVoided line');
  t.match(voided[0].PairVoided, { eventId: id, index: 0, games: pair.replays[0].games, replayed: true });
  t.equal(lines.filter((l) => l.PairStarted?.index === 0).length, 2, 'pair 0 started twice');
  t.equal(lines.filter((l) => l.PairFinished).length, 2, 'two pairs finished (the voided attempt is not one)');

  // Only the replay counts: two pairs, four games, each game's result as the export has it.
  const exported = await exportOf(app, id);
  const games = exported.filter((l) => l.Game).map((l) => l.Game);
  t.equal(games.length, 4);
  t.notOk(games.some((g: Json) => pair.replays[0].games.includes(g.gameId)), 'the voided games are not exported as counted');
  t.notOk(games.some((g: Json) => g.termination === 'Aborted'), 'no aborted game counted');
  for (const s of ev.standings) t.match(s, { games: 4, pairs: 2 }, `${s.name}: only the replay counts`);
  t.equal(ev.encounters[0].pentanomial.reduce((a: number, b: number) => a + b, 0), 2);

  const file = join(dir, 'replayed.ndjson');
  writeFileSync(file, exported.map((l) => JSON.stringify(l)).join('\n'));
  const out: string[] = [];
  t.equal(await verifyEvent(file, { out: (l) => out.push(l), err: (l) => out.push(l), progress: () => {} }, 1), 0, out.join('\n'));
});

t.test(`a pair aborted more than ${MAX_REPLAYS} times is void for good`, async (t) => {
  const { store, ev, lines } = await run(t, MAX_REPLAYS + 1);
  t.equal(store.failed.length, MAX_REPLAYS + 1, 'every attempt aborted');
  const pair = ev.pairs.find((p: Json) => p.index === 0);
  t.equal(pair.void, true, 'void for good');
  t.equal(pair.replays.length, MAX_REPLAYS, 'after its replays');
  t.match(pair.voidReason, /aborted.*replayed 3 times/);
  t.same(pair.scores, [null, null]);
  const voided = lines.filter((l) => l.PairVoided).map((l) => l.PairVoided.replayed);
  t.same(voided, [...Array(MAX_REPLAYS).fill(true), false], 'the stream says each replay, then the end of them');
  for (const s of ev.standings) t.match(s, { games: 2, pairs: 1 }, `${s.name}: the void pair counts nowhere`);
  t.equal(ev.state, 'finished', 'and the event ends');
});
