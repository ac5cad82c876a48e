// One command envelope: a game command is declared once (src/game/commands.ts: its payload, its reply,
// the actor's handler) and every transport carries it by name. Here a command that exists only in
// this test is declared, defined, and sent through main's replica and the loopback shard to the
// game's actor, with nothing in src/shard knowing it; and src/shard names no command of the table.
import t from 'tap';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ManualClock } from '../../src/domain/clock.js';
import { silentLogger } from '../../src/domain/log.js';
import { GameActor } from '../../src/game/actor.js';
import { defineCommand, type CommandTarget } from '../../src/game/commands.js';
import { DEFAULT_GAME_CONFIG } from '../../src/game/game-config.js';
import { GameRegistry } from '../../src/game/game-registry.js';
import { EndedGame } from '../../src/game/ended.js';
import { MemoryStore } from '../../src/store/memory.js';
import { ShardedGames } from '../../src/shard/main/sharded-games.js';
import { LoopbackTransport } from '../../src/shard/loopback-transport.js';
import type { Seat } from '../../src/domain/types.js';

declare module '../../src/game/commands.js' {
  interface GameCommandMap {
    /** Test only: the owner's actor tells who it is and what it holds, and may resign a seat. */
    probe: { payload: { note: string; resign?: Seat }; reply: { id: string; version: number; note: string; owner: boolean } | 'gone' };
  }
}

/** The actors the probe ran on. */
const ranOn: CommandTarget[] = [];
defineCommand('probe', {
  run: (actor, p) => {
    ranOn.push(actor);
    if (p.resign) actor.takeResign(p.resign);
    return { id: actor.id, version: actor.record().version, note: p.note, owner: actor instanceof GameActor };
  },
  over: 'gone',
  lost: 'gone',
});

const seat = (id: string) => ({ id, face: { kind: 'Bot' as const, name: `t ${id}` }, participant: { Bot: { team: 't', name: id } } });
const spec = { white: seat('w'), black: seat('b'), timeControl: { Unlimited: {} }, rated: false };

t.test('a command declared only in this test reaches the game\'s actor through the shard, by name', async (t) => {
  const clock = new ManualClock();
  const store = new MemoryStore();
  const config = { ...DEFAULT_GAME_CONFIG, seedGraceMs: 60_000 };
  const transport = new LoopbackTransport({ clock, config, log: silentLogger, housePlayers: new Map(), storeFor: () => ({ mode: 'shared', games: store }) });
  let n = 0;
  const games = new ShardedGames({ transport, shards: 2, store, forwarded: false, clock, config, listeners: [], newId: () => `e${++n}`, log: silentLogger });
  const h = await games.create(spec);
  t.notOk(h instanceof GameActor, 'main holds a replica, not the actor');
  const reply = await h.command('probe', { note: 'hello' });
  t.same(reply, { id: h.id, version: 0, note: 'hello', owner: true }, 'answered by the owner\'s actor');
  t.equal(ranOn.length, 1, 'run once');
  t.not(ranOn[0], h, 'on the shard\'s actor');
  t.same(await h.command('probe', { note: 'bye', resign: 'White' }), { id: h.id, version: 0, note: 'bye', owner: true });
  for (let i = 0; i < 100 && h.isActive(); i++) await new Promise((r) => setImmediate(r));
  t.match(store.getGame(h.id)!.status, { Ended: { over: { termination: 'Resign' } } }, 'what the handler did took effect on the owner');
  t.notOk(h.isActive(), 'and main saw the game end');
  t.equal(await games.find(h.id)!.command('probe', { note: 'late' }), 'gone', 'an ended game answers the command\'s `over`');
  t.equal(ranOn.length, 2, 'without asking the owner');
  await t.rejects(h.command('nope' as 'probe', { note: '' }), /unknown game command/, 'a name not in the table is refused');
  await games.stop();
});

t.test('the same command on an in-thread actor and on an ended game\'s handle', async (t) => {
  const clock = new ManualClock();
  const store = new MemoryStore();
  const registry = new GameRegistry({
    store, clock, config: { ...DEFAULT_GAME_CONFIG, seedGraceMs: 60_000 }, listeners: [], newId: () => 'local', log: silentLogger,
  });
  const actor = await registry.create(spec);
  t.same(await actor.command('probe', { note: 'here' }), { id: 'local', version: 0, note: 'here', owner: true });
  t.equal(await new EndedGame({ ...actor.record(), status: { Ended: { over: { result: 'Draw', termination: 'Aborted' } } } } as never).command('probe', { note: '' }), 'gone');
  await registry.stop();
});

t.test('src/shard carries game commands without naming any', async (t) => {
  const dir = resolve(dirname(fileURLToPath(import.meta.url)), '../../../src/shard');
  for (const f of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
    const text = readFileSync(join(dir, f), 'utf8');
    for (const name of ['move', 'seed', 'resign']) {
      t.notOk(new RegExp(`['"\`]${name}['"\`]`).test(text), `${f} does not name the '${name}' command`);
    }
  }
});
