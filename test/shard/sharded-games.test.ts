// ShardedGames against a stand-in transport (no threads): a shard's death answers what waited on it,
// closes its games' subscribers and restarts it; commands made while it comes back are held (at most
// HELD_MAX, the rest answered at once) and sent, in order, once its games are resumed.
import t from 'tap';
import { ManualClock } from '../../src/domain/clock.js';
import { silentLogger } from '../../src/domain/log.js';
import { SCHEMA_VERSION, type GameRecord } from '../../src/domain/records.js';
import { DEFAULT_GAME_CONFIG } from '../../src/game/game-config.js';
import { MemoryStore } from '../../src/store/memory.js';
import { leafPaths } from '../../src/game/house.js';
import { LoopbackTransport } from '../../src/shard/loopback-transport.js';
import type { Command, ShardReply } from '../../src/shard/protocol/messages.js';
import { HELD_MAX, ShardedGames } from '../../src/shard/main/sharded-games.js';
import type { ShardEvents, ShardTransport } from '../../src/shard/protocol/transport.js';
import { tick, until } from '../helpers/poll.js';
import type { PayloadOf } from '../../src/game/commands.js';
import { announce } from '../helpers/shard-announce.js';

const isMove = (c: Command): c is Extract<Command, { t: 'game' }> => c.t === 'game' && c.name === 'move';

const bot = (id: string) => ({ id, face: { kind: 'Bot' as const, name: `t ${id}` }, participant: { Bot: { team: 't', name: id } } });

const rec = (id: string): GameRecord => ({
  schema: SCHEMA_VERSION, id, white: bot('w'), black: bot('b'), timeControl: { Unlimited: {} }, rated: false, createdAt: 1,
  serverSeed: '00'.repeat(32), commit: '11'.repeat(32), clientSeeds: { white: null, black: null }, ply: 1,
  fen: 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1', activeSeat: 'White', dice: [1, 2, 3],
  clocks: { white: null, black: null } as unknown as GameRecord['clocks'], clockStartedAt: 1, version: 1, history: [],
  status: { Active: {} }, revealedSeeds: null, finishedAt: null, mirrorOf: null,
});

/** One shard that records what it is sent and answers only when the test says. */
class StandIn implements ShardTransport {
  opened = 0;
  events!: ShardEvents;
  sent: Command[][] = [];
  open(_index: number, events: ShardEvents) {
    this.opened++;
    this.events = events;
    this.sent = [];
    return { send: (batch: Command[]) => void this.sent.push(batch), close: async () => {} };
  }
  reply(...r: ShardReply[]): void {
    this.events.replies(r);
  }
  commands(): Command[] {
    return this.sent.flat();
  }
}

t.test('a dead shard: waiters answered, streams closed, restart, held commands sent once resumed', async (t) => {
  const transport = new StandIn();
  let restarts = 0;
  const store = new MemoryStore();
  const games = new ShardedGames({
    transport, shards: 1, store, forwarded: true, clock: new ManualClock(), config: DEFAULT_GAME_CONFIG,
    listeners: [], newId: () => 'unused', log: silentLogger, onRestart: () => restarts++,
  });
  await announce(games, store, () => transport.commands(), (r) => transport.reply(...r), { rec: rec('g1') });
  transport.sent = [];
  const g = games.get('g1')!;
  let closed = 0;
  g.subscribe({ deliver: () => {}, close: () => closed++ });

  const waiting = g.move('White', ['e2e4']);
  await tick();
  t.equal(transport.commands().filter(isMove).length, 1, 'the move went to the shard');
  transport.events.died(new Error('boom'));
  t.equal(await waiting, 'busy', 'the move that waited on the dead shard is answered');
  t.equal(closed, 1, 'the streams of its games are closed');

  await until(() => (transport.opened === 2 ? true : undefined), 'the restart');
  t.equal(restarts, 1, 'counted');
  await tick();
  const resume = transport.commands().find((c) => c.t === 'resume');
  t.ok(resume && resume.t === 'resume' && resume.recs.map((r) => r.id).join() === 'g1', 'its live game handed back');

  // While the shard resumes, commands wait; past the bound they are answered at once.
  const moves = Array.from({ length: HELD_MAX + 1 }, () => g.move('White', ['e2e4']));
  const last = await Promise.race([moves[HELD_MAX], tick().then(() => 'still waiting')]);
  t.equal(last, 'busy', `command ${HELD_MAX + 1} is refused at once`);
  await tick();
  t.equal(transport.commands().filter(isMove).length, 0, 'held, not sent, until the games are back');

  const rid = (resume as { rid: number }).rid;
  transport.reply({ t: 'resumed', rid, rec: rec('g1'), tree: null }, { t: 'done', rid });
  await until(() => (transport.commands().filter(isMove).length === HELD_MAX ? true : undefined), 'the held moves');
  const rids = transport.commands().flatMap((c) => (isMove(c) ? [c.rid] : []));
  t.same(rids, [...rids].sort((a, b) => a - b), 'sent in the order they came');
  transport.reply(...rids.map((rid): ShardReply => ({ t: 'answer', rid, reply: { applied: false, version: null, reason: 'not your turn' } })));
  const verdicts = await Promise.all(moves.slice(0, HELD_MAX));
  t.ok(verdicts.every((v) => v !== 'busy'), 'every held move got its verdict');
});

t.test('a move’s clock credit travels to the owner as a duration', async (t) => {
  const transport = new StandIn();
  const store = new MemoryStore();
  const games = new ShardedGames({
    transport, shards: 1, store, forwarded: true, clock: new ManualClock(), config: DEFAULT_GAME_CONFIG,
    listeners: [], newId: () => 'unused', log: silentLogger, onRestart: () => {},
  });
  await announce(games, store, () => transport.commands(), (r) => transport.reply(...r), { rec: rec('g1') });
  const g = games.get('g1')!;
  const moves = [g.move('White', ['e2e4'], 1, 4_000), g.move('White', ['e2e4'])];
  await tick();
  const sent = transport.commands().filter(isMove);
  const payloads = sent.map((c) => c.payload as PayloadOf<'move'>);
  t.same(payloads.map((p) => [p.version, p.credit]), [[1, 4_000], [undefined, undefined]], 'credit only when given');
  transport.reply(...sent.map((c): ShardReply => ({ t: 'answer', rid: c.rid, reply: { applied: false, version: null, reason: 'not your turn' } })));
  await Promise.all(moves);
});

t.test('over the loopback shard, the owner takes a move’s credit off the mover’s elapsed time, never more than it', async (t) => {
  const clock = new ManualClock();
  const store = new MemoryStore();
  const config = { ...DEFAULT_GAME_CONFIG, seedGraceMs: 0 };
  const transport = new LoopbackTransport({ clock, config, log: silentLogger, housePlayers: new Map(), storeFor: () => ({ mode: 'shared', games: store }) });
  let n = 0;
  const games = new ShardedGames({ transport, shards: 1, store, forwarded: false, clock, config, listeners: [], newId: () => `c${++n}`, log: silentLogger });
  const timeControl = { Fischer: { initialSeconds: 300, incrementSeconds: 0 } };
  // Every White piece type can move whatever the dice: White's opening roll is never a forced pass.
  const OPEN = '4k3/8/8/8/8/8/4P3/RNBQK3 w - - 0 1';
  const credits = [undefined, 4_000, 60_000];
  const handles: Awaited<ReturnType<typeof games.create>>[] = [];
  for (let i = 0; i < credits.length; i++) handles.push(await games.create({ white: bot(`w${i}`), black: bot(`b${i}`), timeControl, rated: false, startFen: OPEN }));
  await until(() => {
    clock.advance(0); // the seed grace (0 ms) ends on the test's clock
    return handles.every((g) => g.state().dicePending && g.state().activeSeat === 'White') ? true : undefined;
  }, 'White’s rolls');
  clock.advance(10_000);
  const verdicts = await Promise.all(handles.map((g, i) => g.move('White', leafPaths(JSON.parse(g.moves().legalMovesJson))[0], g.state().version, credits[i])));
  t.ok(verdicts.every((v) => v !== 'busy' && v.applied), 'every turn applied');
  await until(() => (handles.every((g) => store.getGame(g.id)!.history.length > 0) ? true : undefined), 'the turns on the owner');
  const banks = handles.map((g) => store.getGame(g.id)!.clocks?.white);
  t.same(banks, [290_000, 294_000, 300_000], 'charged 10 s, 6 s, and nothing when the credit exceeds the turn');
  await games.stop();
});
