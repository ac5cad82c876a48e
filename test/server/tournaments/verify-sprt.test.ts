// `dicechess verify-event` re-derives an SPRT's verdict from the export of a real server: the pairs in
// the order the server counted them (each pair's finishedSeq), replayed through the same statistics.
// A verdict or a finishing order changed in the file is named; an export of the old method (no
// sprt.method, no finishing order) is still read, said to be old, and not failed for that alone.
import t, { type Test } from 'tap';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { verifyEvent } from '../../../src/cli/verify-tournament.js';
import { bootApp, type TestApp } from '../../helpers/app.js';
import { Bot, type Json } from '../../helpers/bot.js';
import { EventStream } from '../../helpers/event-stream.js';
import { exportOf, trustHosts, UNLIMITED, waitEvent } from '../../helpers/tournaments.js';

/**
 * Two bots of the test that play no move: as each game starts, the one the script names resigns it.
 * Every fourth game (in the order the games are first seen) is lost by `lab/strong`, the rest by
 * `lab/weak`: pairs of 2–0 and of 1–1 both occur, whatever the timing, so the finishing order matters.
 */
async function scriptedPlayers(app: TestApp, host: Bot, t: Test): Promise<{ strong: Bot; weak: Bot }> {
  const strong = await Bot.register(app, 'lab', 'strong');
  const weak = await Bot.register(app, 'lab', 'weak');
  for (const b of [strong, weak]) await trustHosts(b, [host]);
  const loserOf = new Map<string, Bot>();
  const decide = (gameId: string): Bot => {
    let loser = loserOf.get(gameId);
    if (!loser) loserOf.set(gameId, (loser = loserOf.size % 4 === 3 ? strong : weak));
    return loser;
  };
  for (const me of [strong, weak]) {
    const stream = new EventStream(await app.stream('/bot/stream/event', me.token), 600_000);
    t.teardown(() => stream.close());
    void (async () => {
      try {
        for (let ev = await stream.next(); ev !== undefined; ev = await stream.next()) {
          if (ev.GameStart && decide(ev.GameStart.gameId) === me) await me.resign(ev.GameStart.gameId);
        }
      } catch {
        // The server went away at teardown.
      }
    })();
  }
  return { strong, weak };
}

t.test('verify-event re-derives the SPRT verdict in finishing order', async (t) => {
  const app = await bootApp(t);
  const host = await Bot.register(app, 'lab', 'verifier');
  const { strong, weak } = await scriptedPlayers(app, host, t);
  // A narrow logistic test: some pairs 2–0, some 1–1, so the order they are counted in shapes the LLR.
  const created = await host.req('POST', '/events', {
    name: 'audit', format: 'sprt', players: [strong.creds, weak.creds].map((c) => ({ team: c.team, name: c.name })), timeControl: UNLIMITED,
    sprt: { elo0: 0, elo1: 30, alpha: 0.05, beta: 0.05, model: 'logistic' }, maxPairs: 100, concurrency: 2,
  });
  t.equal(created.status, 201, created.text);
  const id = (created.json as Json).eventId;
  const view = await waitEvent(app, id);
  t.ok(view.verdict !== null, `a verdict (${view.verdict} after ${view.verdictAfter})`);
  t.match(view.sprt, { method: 'glr', llrBounds: [-Math.log(19), Math.log(19)] }, 'the view names the method and the LLR bounds');
  const lines = await exportOf(app, id);
  const seqs = lines[0].Event.pairs.map((p: Json) => p.finishedSeq).sort((x: number, y: number) => x - y);
  t.same(seqs, seqs.map((_: number, i: number) => i + 1), 'the export gives every finished pair its place in the finishing order');

  const dir = mkdtempSync(join(tmpdir(), 'dicechess-verify-sprt-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  let n = 0;
  const run = async (edit: (ev: Json) => void) => {
    const copy = lines.map((l) => structuredClone(l));
    edit(copy[0].Event);
    const file = join(dir, `export-${n++}.ndjson`);
    writeFileSync(file, copy.map((l) => JSON.stringify(l)).join('\n'));
    const out: string[] = [];
    const code = await verifyEvent(file, { out: (l) => out.push(l), err: (l) => out.push(l), progress: () => {} }, 1);
    return { code, out, text: out.join('\n') };
  };

  const honest = await run(() => {});
  t.equal(honest.code, 0, honest.text);
  t.notOk(honest.text.includes('old method'), 'a current export is not called old');

  const flipped = view.verdict === 'H1' ? 'H0' : 'H1';
  const lied = await run((ev) => {
    ev.verdict = flipped;
    ev.verdictAfter = 3;
    for (const e of ev.encounters) e.verdict = flipped;
  });
  t.equal(lied.code, 1, 'a changed verdict fails');
  t.ok(lied.out.includes(`verdict published ${flipped} after 3 pairs, recomputed ${view.verdict} after ${view.verdictAfter} pairs`), lied.text);

  // Two finished pairs of different scores trade places in the finishing order: the LLR path differs.
  const pairs: Json[] = lines[0].Event.pairs;
  const sum = (p: Json) => p.scores[0] + p.scores[1];
  const counted = pairs.filter((p) => p.finishedSeq > 0);
  const first = counted[0];
  const last = counted.find((p) => sum(p) !== sum(first));
  t.ok(last, 'two pairs of different scores to swap');
  const swapped = await run((ev) => {
    const [x, y] = [ev.pairs.find((p: Json) => p.index === first.index), ev.pairs.find((p: Json) => p.index === last!.index)];
    [x.finishedSeq, y.finishedSeq] = [y.finishedSeq, x.finishedSeq];
  });
  t.equal(swapped.code, 1, 'a changed finishing order fails');
  t.ok(swapped.out.some((l) => l.startsWith('llrHistory: after')), swapped.text);

  const twice = await run((ev) => {
    ev.pairs[1].finishedSeq = ev.pairs[0].finishedSeq;
  });
  t.equal(twice.code, 1, 'two pairs counted at the same place fail');
  t.ok(twice.out.some((l) => l.includes(`as pair ${pairs[0].index} was`)), twice.text);

  // The export as the server wrote it before the method and the order were published.
  const old = await run((ev) => {
    delete ev.sprt.method;
    delete ev.sprt.llrBounds;
    for (const p of ev.pairs) delete p.finishedSeq;
  });
  t.equal(old.code, 0, `an old export is not failed for being old: ${old.text}`);
  t.ok(old.out.some((l) => l.includes('old method') && l.includes('cannot be re-derived')), old.text);
});
