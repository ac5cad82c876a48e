// A dice book per round (`dice: "perRound"`): every pair of a round-robin's cycle plays the same dice
// (the same server seed, commitment and client seeds, so the same rolls), derived from the event seed
// with the round label as docs/API.md says; per pair (the default) every pair has its own. The export
// of both verifies, and one whose mode was changed does not. A round's games stay out of the export
// while a pair of that round still runs.
import t, { type Test } from 'tap';
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { verifyEvent } from '../../../src/cli/verify-tournament.js';
import { bootApp, type TestApp } from '../../helpers/app.js';
import { Bot, type Json } from '../../helpers/bot.js';
import { exportOf, HOUSE_GREEDY, HOUSE_RANDOM, ResigningBot, trustHosts, UNLIMITED, waitEvent } from '../../helpers/tournaments.js';

/** Round r's server seed, derived as docs/API.md says (independently of the server's code). */
function roundSeed(eventSeed: string, r: number): string {
  const tail = Buffer.alloc(4);
  tail.writeUInt32BE(r, 0);
  return createHmac('sha256', Buffer.from(eventSeed, 'hex')).update('dicechess-event-round').update(tail).digest('hex');
}

async function verified(t: Test, text: string): Promise<{ code: number; out: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'dicechess-dice-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'export.ndjson');
  writeFileSync(file, text);
  const out: string[] = [];
  const code = await verifyEvent(file, { out: (l) => out.push(l), err: (l) => out.push(l), progress: () => {} }, 1);
  return { code, out: out.join('\n') };
}

async function roundRobin(app: TestApp, host: Bot, players: Json[], dice?: string): Promise<string> {
  const r = await host.req('POST', '/events', {
    name: `rr ${dice ?? 'default'}`, format: 'roundRobin', players, timeControl: UNLIMITED, pairsPerEncounter: 2, concurrency: 2,
    ...(dice ? { dice } : {}),
  });
  if (r.status !== 201) throw new Error(r.text);
  return (r.json as Json).eventId;
}

t.test('perRound: every game of a round plays the same dice; perPair: every pair its own', async (t) => {
  const app = await bootApp(t);
  const host = await Bot.register(app, 'hosts', 'rita');
  // The two house bots, and a bot of the host's that resigns each game as it starts (a game it opens
  // as White has no roll played; the others do).
  const x = await Bot.register(app, 'hosts', 'x');
  await app.server.store.updateBot({ ...app.server.store.getBot(x.id)!, capacity: 8 });
  await trustHosts(x, [host]);
  const resigner = await new ResigningBot(x, 'none').start();
  t.teardown(() => resigner.close());
  const players = [HOUSE_GREEDY, HOUSE_RANDOM, { team: 'hosts', name: 'x' }];
  const byRound = await roundRobin(app, host, players, 'perRound');
  const byPair = await roundRobin(app, host, players);

  const ev = await waitEvent(app, byRound);
  t.equal(ev.state, 'finished');
  t.equal(ev.dice, 'perRound');
  const games = (await exportOf(app, byRound)).slice(1).map((l) => l.Game);
  const encounters = (players.length * (players.length - 1)) / 2;
  t.equal(games.length, 2 * 2 * encounters, 'every game exported');
  for (const round of [1, 2]) {
    const of = games.filter((g: Json) => g.round === round);
    t.equal(of.length, 2 * encounters, `round ${round}: every encounter once`);
    t.equal(new Set(of.map((g: Json) => g.commit)).size, 1, `round ${round}: one commitment`);
    t.same([...new Set(of.map((g: Json) => g.serverSeed))], [roundSeed(ev.seed, round)], `round ${round}: the round's seed, from the event seed`);
    const rolled = of.filter((g: Json) => g.history.length > 0);
    t.ok(rolled.length >= encounters, `round ${round}: games with a roll played`);
    t.equal(new Set(rolled.map((g: Json) => g.history[0].dice.join())).size, 1, `round ${round}: the same first roll`);
  }
  t.not(games.find((g: Json) => g.round === 1).serverSeed, games.find((g: Json) => g.round === 2).serverSeed, 'rounds differ');

  const other = await waitEvent(app, byPair);
  t.equal(other.dice, 'perPair', 'the default');
  const pairGames = (await exportOf(app, byPair)).slice(1).map((l) => l.Game);
  t.ok(pairGames.every((g: Json) => g.round === 0), 'no rounds');
  t.equal(new Set(pairGames.map((g: Json) => g.commit)).size, other.pairs.length, 'a commitment per pair');

  const text = (await app.req('GET', `/events/${byRound}/games`)).text;
  const ok = await verified(t, text);
  t.equal(ok.code, 0, `verify-event accepts the perRound export: ${ok.out}`);
  const okPair = await verified(t, (await app.req('GET', `/events/${byPair}/games`)).text);
  t.equal(okPair.code, 0, `and the perPair one: ${okPair.out}`);
  const tampered = await verified(t, text.replace('"dice":"perRound"', '"dice":"perPair"'));
  t.not(tampered.code, 0, 'an export whose mode was changed is refused');
  t.match(tampered.out, /does not derive from the event seed/);
});

t.test('perRound: a round’s games stay out of the export while a pair of the round still runs', async (t) => {
  const app = await bootApp(t, { overrides: { 'limits.registrationsPerHour': 100 } });
  const host = await Bot.register(app, 'keep', 'host');
  // Bots that trust the host and never move: a pair runs until its first player resigns.
  const bots = await Promise.all(['a', 'b', 'c', 'd'].map((n) => Bot.register(app, 'keep', n)));
  for (const b of bots) await app.server.store.updateBot({ ...app.server.store.getBot(b.id)!, capacity: 4 });
  for (const b of bots) await trustHosts(b, [host]);
  const id = await roundRobin(app, host, bots.map((b) => ({ team: 'keep', name: b.creds.name })), 'perRound');
  const ev = await waitEvent(app, id, (e) => e.pairs.length === 2);
  const [p0, p1] = ev.pairs;
  t.equal(p0.round, 1);
  t.equal(p1.round, 1, 'two pairs of round 1 run');
  const first = bots.find((b) => b.creds.name === p0.players[0].name)!;
  for (const g of p0.games) t.equal((await first.resign(g)).status, 202);
  await waitEvent(app, id, (e) => e.pairs[0].scores.every((s: unknown) => s !== null));
  t.equal((await exportOf(app, id)).length, 1, 'the finished pair is not exported: its seed is the running pair’s too');
  const running = ((await app.req('GET', `/games/${p1.games[0]}`)).json as Json);
  t.equal(running.seed, null, 'the running pair shows no seed');
});
