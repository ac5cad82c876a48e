// A match between the two house bots over HTTP: created by a registered host, played to the end in
// mirror pairs with dice derived from the event seed, its standings and export consistent.
import t from 'tap';
import { createHash, createHmac } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { verifyEvent } from '../../../src/cli/verify-tournament.js';
import { bootApp } from '../../helpers/app.js';
import { Bot } from '../../helpers/bot.js';
import { exportOf, HOUSE_GREEDY, HOUSE_RANDOM, UNLIMITED, waitEvent } from '../../helpers/tournaments.js';

t.test('a match of house bots runs to the end and publishes what recomputes its dice', async (t) => {
  const app = await bootApp(t);
  const host = await Bot.register(app, 'hosts', 'alice');
  const created = await host.req('POST', '/events', {
    name: 'greedy vs random', format: 'match', players: [HOUSE_GREEDY, HOUSE_RANDOM], timeControl: UNLIMITED,
    pairsPerEncounter: 3, concurrency: 2,
  });
  t.equal(created.status, 201, created.text);
  const id = (created.json as { eventId: string }).eventId;
  t.match((created.json as { commit: string }).commit, /^[0-9a-f]{64}$/);
  t.equal((created.json as { seed: null }).seed, null, 'the seed is secret while the event runs');
  const ev = await waitEvent(app, id);
  t.equal(ev.state, 'finished');
  t.equal(ev.pairs.length, 3, 'three pairs played');
  const st = ev.standings;
  t.equal(st.length, 2);
  t.equal(st[0].games + st[1].games, 12, 'every game counted on both sides');
  t.equal(st[0].points + st[1].points, 6, 'points add up to the games played');
  const enc = ev.encounters[0];
  t.equal(enc.pairs, 3);
  t.equal(enc.pentanomial.reduce((a: number, b: number) => a + b, 0), 3);
  t.equal(createHash('sha256').update(Buffer.from(ev.seed, 'hex')).digest('hex'), ev.commit, 'the revealed seed matches the commitment');

  const lines = await exportOf(app, id);
  t.ok(lines[0].Event, 'the export opens with the event');
  const games = lines.slice(1).map((l) => l.Game);
  t.equal(games.length, 6, 'every game exported');
  for (const g of games) {
    const tail = Buffer.alloc(4);
    tail.writeUInt32BE(g.pair, 0);
    const derived = createHmac('sha256', Buffer.from(ev.seed, 'hex')).update('dicechess-event-pair').update(tail).digest('hex');
    t.equal(g.serverSeed, derived, `pair ${g.pair}: its server seed derives from the event seed`);
    t.equal(g.clientSeeds.white, `event:${id}:${g.pair}:white`);
  }
  const pair0 = games.filter((g) => g.pair === 0);
  t.same(pair0[0].history.map((h: { dice: number[] }) => h.dice)[0], pair0[1].history.map((h: { dice: number[] }) => h.dice)[0], 'both games of a pair open with the same roll');
  t.equal(app.server.tournaments.inFlight(await app.server.store.getTournament(id)!), 0, 'nothing left in flight');
});

t.test('verify-event recomputes an export and says where it differs', async (t) => {
  const app = await bootApp(t);
  const host = await Bot.register(app, 'hosts', 'vera');
  const created = await host.req('POST', '/events', {
    name: 'audit', format: 'match', players: [HOUSE_GREEDY, HOUSE_RANDOM], timeControl: UNLIMITED, pairsPerEncounter: 2,
  });
  const id = (created.json as { eventId: string }).eventId;
  await waitEvent(app, id);
  const text = (await app.req('GET', `/events/${id}/games`)).text;
  const dir = mkdtempSync(join(tmpdir(), 'dicechess-verify-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const run = async (body: string) => {
    const file = join(dir, `export-${Math.random()}.ndjson`);
    writeFileSync(file, body);
    const out: string[] = [];
    const progress: number[] = [];
    const code = await verifyEvent(file, { out: (l) => out.push(l), err: (l) => out.push(l), progress: (d) => progress.push(d) }, 2);
    return { code, out, progress };
  };
  const good = await run(text);
  t.equal(good.code, 0, good.out.join('\n'));
  t.equal(good.progress[good.progress.length - 1], 4, 'the progress line reaches every game');

  const lines = text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l));
  const game = lines[1].Game;
  game.history[0].dice = game.history[0].dice.map((d: number) => (d % 6) + 1);
  game.result = game.result === 'White' ? 'Black' : 'White';
  const bad = await run(lines.map((l) => JSON.stringify(l)).join('\n'));
  t.equal(bad.code, 1);
  t.ok(bad.out.some((l) => l.includes(`pair ${game.pair} game ${game.game}`) && l.includes('roll 0')), 'the changed roll is named');
  t.ok(bad.out.some((l) => l.startsWith(`pair ${game.pair}: published scores`)), 'the changed result is named');
  t.ok(bad.out.some((l) => l.startsWith('standings')), 'and the standings that no longer add up');
});
