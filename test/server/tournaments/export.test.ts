// The export (GET /events/{id}/games) and the first line of the event stream are made game by game
// as the client takes them: for a small event they are byte for byte what the server sent when it
// made them whole (the earlier code is kept below as the reference), and a larger event's export is
// written in many chunks of about a slice each, never as one string.
import t, { type Test } from 'tap';
import type { GameRecord } from '../../../src/domain/records.js';
import { DEFAULT_SEND_LIMITS } from '../../../src/edge/send-budget.js';
import { bootApp } from '../../helpers/app.js';
import { Bot, type Json } from '../../helpers/bot.js';
import { chunksOf, rawGet } from '../../helpers/chunked.js';
import { until } from '../../helpers/poll.js';
import { HOUSE_GREEDY, HOUSE_RANDOM, UNLIMITED, waitEvent } from '../../helpers/tournaments.js';

const face = (p: Json) => ({ team: p.team, name: p.name });

/** The export as the server made it before it was streamed: every line built, then joined. */
function exportMadeWhole(viewText: string, ended: (id: string) => GameRecord | undefined): string {
  const view = JSON.parse(viewText) as Json;
  const lines = [`{"Event":${viewText}}\n`];
  for (const p of view.pairs as Json[]) {
    if (p.scores[0] === null || p.scores[1] === null) continue;
    (p.games as string[]).forEach((gameId, game) => {
      const rec = ended(gameId);
      if (!rec || !('Ended' in rec.status)) return;
      const { result, termination } = rec.status.Ended.over;
      const [w, b] = game === 0 ? [p.players[0], p.players[1]] : [p.players[1], p.players[0]];
      lines.push(`${JSON.stringify({
        Game: {
          pair: p.index, game, round: p.round, gameId, white: face(w), black: face(b), timeControl: rec.timeControl,
          commit: rec.commit, serverSeed: rec.serverSeed,
          clientSeeds: { white: rec.clientSeeds.white ?? '', black: rec.clientSeeds.black ?? '' },
          history: rec.history, result: 'Win' in result ? result.Win.side : 'Draw', termination,
        },
      })}\n`);
    });
  }
  return lines.join('');
}

async function finishedMatch(t: Test, pairs: number, concurrency: number) {
  const app = await bootApp(t);
  const host = await Bot.register(app, 'hosts', 'rita');
  const r = await host.req('POST', '/events', {
    name: 'exported', format: 'match', players: [HOUSE_GREEDY, HOUSE_RANDOM], timeControl: UNLIMITED, pairsPerEncounter: pairs, concurrency,
  });
  const id = (r.json as Json).eventId;
  t.equal((await waitEvent(app, id)).state, 'finished');
  const viewText = (await app.req('GET', `/events/${id}`)).text;
  return { app, id, viewText };
}

t.test('a small event: the export and the stream are byte-identical to the lines made whole', async (t) => {
  const { app, id, viewText } = await finishedMatch(t, 3, 2);
  const exported = await app.req('GET', `/events/${id}/games`);
  t.equal(exported.status, 200);
  t.equal(exported.text, `${exportMadeWhole(viewText, (g) => app.server.games.finalRecord(g))}`, 'the export');
  t.equal(exported.text.split('\n').filter((l) => l !== '').length, 7, 'the event and its six games');
  const ev = JSON.parse(viewText) as Json;
  const ended = JSON.stringify({ EventEnded: { eventId: id, state: 'finished', verdict: null, seed: ev.seed } });
  const streamed = await app.req('GET', `/events/${id}/stream`);
  t.equal(streamed.text, `\n{"EventState":${viewText}}\n${ended}\n`, 'the stream of the ended event');
});

t.test('a larger event: its export is written in many chunks, none much larger than a slice', async (t) => {
  const { app, id, viewText } = await finishedMatch(t, 120, 16);
  const r = rawGet(t, app.port, `/events/${id}/games`);
  await until(() => (chunksOf(r.bytes()).complete ? true : undefined), 'the whole export');
  const { chunks } = chunksOf(r.bytes());
  const text = Buffer.concat(chunks).toString();
  t.equal(text, `${exportMadeWhole(viewText, (g) => app.server.games.finalRecord(g))}`, 'byte-identical');
  const longest = Math.max(...text.split('\n').map((l) => Buffer.byteLength(l) + 1));
  t.ok(text.length > 4 * DEFAULT_SEND_LIMITS.sliceBytes, `${text.length} bytes`);
  t.ok(chunks.length >= text.length / (DEFAULT_SEND_LIMITS.sliceBytes + longest), `${chunks.length} chunks`);
  t.ok(Math.max(...chunks.map((c) => c.length)) <= DEFAULT_SEND_LIMITS.sliceBytes + longest, 'none longer than a slice and a line');
});

// A line-by-line JSON reader (jq -c, a for-line loop with JSON.parse) failed on the blank line the
// export used to open with: the first line must be the event's record, and no line may be blank.
t.test('the export starts with its first record: every line, the first included, parses as JSON', async (t) => {
  const { app, id } = await finishedMatch(t, 2, 2);
  const r = rawGet(t, app.port, `/events/${id}/games`);
  await until(() => (chunksOf(r.bytes()).complete ? true : undefined), 'the whole export');
  const { chunks } = chunksOf(r.bytes());
  t.ok(chunks[0].length > 1, 'the first chunk carries a record, not a lone newline');
  const lines = Buffer.concat(chunks).toString().split('\n');
  t.equal(lines.pop(), '', 'the body ends with a newline');
  t.ok(typeof (JSON.parse(lines[0]) as Json).Event === 'object', 'line 1 is the event');
  t.equal(lines.filter((l) => l === '').length, 0, 'no blank line');
  t.equal(lines.filter((l) => (JSON.parse(l) as Json).Game !== undefined).length, 4, 'then its four games');
});
