// A clean restart of a real server process (SIGTERM) on an LMDB data directory: registered tokens
// survive and anonymous ones do not (docs/API.md, "Identities and tokens"), every live game comes back
// exactly as it was (history, version, pending roll) and can be played and finished, finished games
// stay readable, and every resumed game's history replays with the engine to its current position.
import t from 'tap';
import type { Test } from 'tap';
import { harness, nextEvent, type ServerProcess } from '../../helpers/persistence.js';
import { getJson, playUntil, readGame, type GameStateJson, type HistoryJson } from '../../helpers/persistence-play.js';
import { consistentDfen, replayProblems, revealProblems } from '../../helpers/persistence-replay.js';
import type { Creds } from '../../helpers/bot.js';

type Token = Creds;

async function created<T>(p: ServerProcess, method: string, path: string, opts: { token?: string; body?: unknown }): Promise<T> {
  const r = await p.req(method, path, opts);
  if (r.status !== 201) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
  return r.json as T;
}

/** Bounded wait until the caller's game list shows a game with `other` (house accepts on its own). */
async function gameAgainst(p: ServerProcess, token: string, known: Set<string>): Promise<string> {
  for (let i = 0; i < 400; i++) {
    const games = await getJson<{ games: { gameId: string }[] }>(p, '/bot/games', token);
    const fresh = games.games.find((g) => !known.has(g.gameId));
    if (fresh) return fresh.gameId;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('the house bot never accepted');
}

/** Every live game of the server: its history replays, its position is the last fenAfter. */
async function checkAllLiveGames(t: Test, p: ServerProcess, watcher: string, label: string): Promise<string[]> {
  const list = await getJson<{ games: { gameId: string; version: number }[]; total: number }>(p, '/games');
  t.equal(list.total, list.games.length, `${label}: GET /games total matches its entries`);
  for (const g of list.games) {
    const { snapshot } = await readGame(p, g.gameId, watcher);
    t.same(replayProblems(snapshot.history), [], `${label}: game ${g.gameId} replays from the start position`);
    t.equal(consistentDfen(snapshot.history, snapshot.state.dfen), null, `${label}: game ${g.gameId} stands on its last fenAfter`);
    t.equal(snapshot.v, snapshot.state.version, `${label}: Snapshot v is the state's version`);
  }
  return list.games.map((g) => g.gameId);
}

t.test('SIGTERM, restart on the same directory: identities, games and play survive', async (t) => {
  const h = harness(t, 'restart');
  let p = await h.start();

  const reg = await created<Token>(p, 'POST', '/bot/register', { body: { team: 'persist', name: 'reg-bot' } });
  const anon = await created<Token>(p, 'POST', '/bot/anon?name=ephemeral', {});
  t.equal(anon.team, 'anon');

  // The main game: the anonymous bot challenges the registered one on a long Fischer clock and plays
  // White (the challenger); played until the registered bot (Black) is to move with a roll pending.
  const tc = { Fischer: { initialSeconds: 3600, incrementSeconds: 5 } };
  let gameId = '';
  let reached: GameStateJson | undefined;
  for (let attempt = 0; attempt < 3 && !reached; attempt++) {
    const ch = await created<{ id: string }>(p, 'POST', '/bot/challenge', {
      token: anon.token,
      body: { team: 'persist', name: 'reg-bot', timeControl: tc },
    });
    gameId = (await created<{ gameId: string }>(p, 'POST', `/bot/challenge/${ch.id}/accept`, { token: reg.token })).gameId;
    const out = await playUntil(p, gameId, { White: anon.token, Black: reg.token }, (s, n) => n >= 5 && s.dicePending && s.activeSeat === 'Black');
    // A king captured in the first few turns is possible with random play: then take a new game.
    if (!out.state.status.Ended) reached = out.state;
  }
  if (!reached) throw new Error('three games in a row ended within five turns');

  // Two more live games with house bots (they resume with their house player), and one finished game.
  const known = new Set([gameId]);
  await created(p, 'POST', '/bot/challenge', { token: anon.token, body: { team: 'house', name: 'random' } });
  const vsRandom = await gameAgainst(p, anon.token, known);
  known.add(vsRandom);
  await created(p, 'POST', '/bot/challenge', { token: reg.token, body: { team: 'house', name: 'greedy' } });
  const vsGreedy = await gameAgainst(p, reg.token, known);
  known.add(vsGreedy);
  await playUntil(p, vsGreedy, { White: reg.token }, (_s, n) => n >= 2);
  await created(p, 'POST', '/bot/challenge', { token: reg.token, body: { team: 'house', name: 'random' } });
  const finished = await gameAgainst(p, reg.token, known);
  await playUntil(p, finished, { White: reg.token }, (_s, n) => n >= 1);
  t.equal((await p.req('POST', `/bot/game/${finished}/resign`, { token: reg.token })).status, 202);
  for (let i = 0; i < 200 && !(await getJson<GameStateJson>(p, `/games/${finished}`)).status.Ended; i++) {
    await new Promise((r) => setTimeout(r, 10));
  }

  const before = await readGame(p, gameId, reg.token);
  t.ok(before.state.dicePending && before.state.activeSeat === 'Black', 'Black is to move with a roll pending');
  t.same(before.snapshot.history, before.history.history, 'stream and /history agree before the stop');
  const liveBefore = (await getJson<{ games: { gameId: string }[] }>(p, '/games')).games.map((g) => g.gameId).sort();
  // house/greedy may have captured our king already; every other game is certainly live.
  const greedyLive = liveBefore.includes(vsGreedy);
  t.same(liveBefore, [gameId, vsRandom, ...(greedyLive ? [vsGreedy] : [])].sort(), 'the live games before the stop');
  const greedyBefore = await getJson<HistoryJson>(p, `/games/${vsGreedy}/history`);
  const finishedBefore = await getJson<HistoryJson>(p, `/games/${finished}/history`);
  // The bot's own event-hosts setting is kept with its record.
  const hosts = { hosts: [{ team: 'persist', name: 'reg-bot' }], rated: true };
  t.equal((await p.req('PUT', '/bot/account/event-hosts', { token: reg.token, body: hosts })).status, 200);

  const exit = await p.stop('SIGTERM');
  t.same(exit, { code: 0, signal: null }, 'SIGTERM: a clean shutdown, exit code 0');
  t.match(p.output(), /"msg":"stopped"/, 'the server logged its clean stop');

  p = await h.start();

  // Identities: the registered token works, the anonymous one is gone, the name stays taken.
  const acct = await p.req('GET', '/bot/account', { token: reg.token });
  t.equal(acct.status, 200, 'the registered token survives the restart');
  t.same(acct.json, { team: 'persist', name: 'reg-bot', id: 'bot:team:persist:reg-bot', eventHosts: hosts }, 'its event-hosts setting too');
  const gone = await p.req('GET', '/bot/account', { token: anon.token });
  t.equal(gone.status, 401, 'the anonymous token is invalid after the restart');
  t.equal(gone.headers['www-authenticate'], 'Bearer realm="dicechess"');
  t.equal((await p.req('POST', '/bot/register', { body: { team: 'persist', name: 'reg-bot' } })).status, 409, 'the identity stays taken');

  // Games: the same live games, listed publicly and for the registered side.
  const liveAfter = await checkAllLiveGames(t, p, reg.token, 'after restart');
  t.same(liveAfter.sort(), liveBefore, 'exactly the live games of before are live again');
  const mine = await getJson<{ games: { gameId: string; seat: string; version: number }[] }>(p, '/bot/games', reg.token);
  const entry = mine.games.find((g) => g.gameId === gameId);
  t.ok(entry, 'GET /bot/games lists the game for the registered side');
  t.equal(entry?.seat, 'Black');
  t.equal(mine.games.some((g) => g.gameId === vsGreedy), greedyLive, 'and its game against house/greedy if that was live');

  const after = await readGame(p, gameId, reg.token);
  t.same(after.snapshot.history, before.history.history, 'the Snapshot history equals the history before the restart');
  t.same(after.history.history, before.history.history, 'GET /games/{id}/history too');
  t.equal(after.snapshot.v, before.state.version, 'the pending roll resumes at the same version');
  t.equal(after.snapshot.state.dfen, before.state.dfen, 'with the same dice');
  t.equal(after.snapshot.state.activeSeat, 'Black');
  t.equal(after.snapshot.state.dicePending, true);
  t.equal(after.state.commit, before.state.commit, 'the dice commitment is unchanged');
  t.same(after.snapshot.state.players, before.state.players, 'the players are unchanged');
  t.same(after.snapshot.state.timeControl, tc);
  t.equal(after.snapshot.state.clocks?.white, before.state.clocks?.white, 'the waiting side’s clock is unchanged');
  t.ok((after.snapshot.state.clocks?.black ?? 0) > 0 && (after.snapshot.state.clocks?.black ?? 0) <= 3_600_000 + 5 * 1000 * 10, 'the mover still has time');
  t.equal(after.state.seed, null, 'no reveal for a live game');

  // Play continues: Black moves; the version continues from the resumed one.
  const stream = await p.stream(`/bot/game/stream/${gameId}`, reg.token);
  const snap = await nextEvent(stream);
  t.ok(snap?.Snapshot, 'the stream opens with a Snapshot');
  const played = await playUntil(p, gameId, { Black: reg.token }, (_s, n) => n >= 1);
  t.equal(played.applied, 1, 'the player to move could move after the restart');
  const turn = await nextEvent(stream);
  t.equal(turn?.TurnPlayed?.v, before.state.version + 1, 'TurnPlayed continues the version sequence');
  t.equal(turn?.TurnPlayed?.seat, 'Black');
  // White is the anonymous bot, whose token died with the old process: it cannot act any more.
  t.equal((await p.req('POST', `/bot/game/${gameId}/move`, { token: anon.token, body: { moves: [] } })).status, 401);
  // Black's turn may have captured White's king (then the game is already over); otherwise it resigns.
  const capturedKing = played.state.status.Ended !== undefined;
  t.equal((await p.req('POST', `/bot/game/${gameId}/resign`, { token: reg.token })).status, 202, 'Black resigns');
  let ended: Record<string, any> | undefined;
  for (let ev = await nextEvent(stream); ev; ev = await nextEvent(stream)) if (ev.GameEnded) ended = ev.GameEnded;
  t.same(
    ended?.over,
    capturedKing ? { result: { Win: { side: 'Black' } }, termination: 'KingCaptured' } : { result: { Win: { side: 'White' } }, termination: 'Resign' },
    'the game ends (by resignation, unless Black’s turn took the king)',
  );

  const final = await getJson<HistoryJson>(p, `/games/${gameId}/history`);
  t.ok(final.status.Ended, 'the game is over');
  t.same(final.history.slice(0, before.history.history.length), before.history.history, 'the history before the restart is kept');
  t.same(replayProblems(final.history), [], 'the whole game replays');
  t.same(revealProblems(final.history, final.commit, final.seed, final.clientSeeds), [], 'every roll matches the reveal');

  // The game finished before the restart is still readable, with its reveal.
  const old = await getJson<HistoryJson>(p, `/games/${finished}/history`);
  t.same(old, finishedBefore, 'a game finished before the restart reads back unchanged');
  t.same(revealProblems(old.history, old.commit, old.seed, old.clientSeeds), [], 'its reveal checks out');

  // The house players came back with their games: house/greedy answers our moves after the restart.
  if (greedyLive) {
    const greedy = await playUntil(p, vsGreedy, { White: reg.token }, (_s, n) => n >= 2);
    const h = await getJson<HistoryJson>(p, `/games/${vsGreedy}/history`);
    const blackTurns = (x: HistoryJson) => x.history.filter((e) => e.seat === 'Black').length;
    const whiteWonAtOnce = greedy.applied === 1 && greedy.state.status.Ended !== undefined && blackTurns(h) === blackTurns(greedyBefore);
    t.ok(blackTurns(h) > blackTurns(greedyBefore) || whiteWonAtOnce, 'house/greedy played after the restart');
  }

  // Profiles are persistent: the registered bot's finished games are there, newest first.
  const profile = await getJson<{ recent: { gameId: string; result: string; termination: string }[] }>(p, '/bots/persist/reg-bot');
  const at = (id: string) => profile.recent.findIndex((r) => r.gameId === id);
  t.match(profile.recent[at(gameId)], capturedKing ? { result: 'win', termination: 'KingCaptured' } : { result: 'loss', termination: 'Resign' }, 'the main game is in the profile');
  t.match(profile.recent[at(finished)], { result: 'loss', termination: 'Resign' }, 'so is the one finished before the restart');
  t.ok(at(gameId) >= 0 && at(gameId) < at(finished), 'newest first');
  const liveSecond = (await getJson<{ games: { gameId: string }[] }>(p, '/games')).games.map((g) => g.gameId).sort();

  t.same(await p.stop('SIGTERM'), { code: 0, signal: null }, 'second clean shutdown');

  // A third start: the finished game stays finished and out of the live list.
  p = await h.start();
  const third = await getJson<GameStateJson>(p, `/games/${gameId}`);
  t.ok(third.status.Ended, 'the ended game stays ended');
  const liveThird = (await getJson<{ games: { gameId: string }[] }>(p, '/games')).games.map((g) => g.gameId).sort();
  // A house player may still finish a game between the read above and the stop: such a game must be
  // ended now, and every other game live at the second stop must be live again.
  const endedMeanwhile: string[] = [];
  for (const id of liveSecond.filter((g) => !liveThird.includes(g))) {
    if ((await getJson<GameStateJson>(p, `/games/${id}`)).status.Ended) endedMeanwhile.push(id);
  }
  t.same(liveThird, liveSecond.filter((g) => !endedMeanwhile.includes(g)), 'the same live games as at the second stop (the resigned one is not among them)');
  t.notOk(liveThird.includes(gameId));
  await checkAllLiveGames(t, p, reg.token, 'third start');
  t.same(await p.stop('SIGTERM'), { code: 0, signal: null });
});
