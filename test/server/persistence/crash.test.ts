// kill -9 in the middle of a stream of moves, several rounds on the same data directory. A driver
// plays every seat it holds as fast as it can, records each acknowledged verdict (200, applied,
// version v) and every event its game streams delivered; the server is SIGKILLed at a random moment
// and restarted. Persist-before-publish (docs/STORAGE.md) means: nothing acknowledged and nothing
// seen on a stream may be missing after the restart, versions never go back, every game's history
// still replays to its current position, and play goes on.
import t from 'tap';
import type { Test } from 'tap';
import { harness, nextEvent, randomPath, type ServerProcess, type Tree } from '../../helpers/persistence.js';
import { getJson, readGame, type GameStateJson, type HistoryJson } from '../../helpers/persistence-play.js';
import { consistentDfen, replayProblems, revealProblems, type HistoryEntry } from '../../helpers/persistence-replay.js';

/** Kill-and-restart rounds: each kills at a fresh random moment of play (three keep the file short). */
const ROUNDS = 3;

type Seat = 'White' | 'Black';

interface Game {
  id: string;
  /** Seats this test plays (a house bot plays the other one). */
  tokens: Partial<Record<Seat, string>>;
  watcher: string;
  label: string;
}

interface Turn {
  v: number;
  seat: Seat;
  moves: string[];
  fenAfter?: string;
}

/** What one driver learned about one game during one round. */
interface Round {
  /** History length in the Snapshot the round's stream opened with. */
  startLen: number;
  snapshotV: number;
  acked: Turn[];
  /** Moves sent whose answer never came (cut by the kill) or came without a verdict (202). */
  unknown: number;
  seen: Turn[];
  /** Highest event version delivered by the stream. */
  maxSeenV: number;
  ended: boolean;
  unexpected: string[];
}

const isCut = (e: unknown): boolean => /ECONNRESET|ECONNREFUSED|socket hang up|EPIPE/.test(String(e));

async function drive(p: ServerProcess, g: Game, r: Round, stop: { killed: boolean }): Promise<void> {
  let stream;
  try {
    stream = await p.stream(`/bot/game/stream/${g.id}`, g.watcher);
  } catch (e) {
    if (!isCut(e)) r.unexpected.push(`stream: ${String(e)}`);
    return;
  }
  const play = async (seat: Seat, v: number, inline: Tree | null): Promise<void> => {
    const token = g.tokens[seat];
    if (!token || stop.killed) return;
    let tree = inline;
    if (!tree) {
      const m = await p.req('GET', `/games/${g.id}/moves`);
      const body = m.json as { version: number; legalMoves: Tree };
      if (m.status !== 200 || body.version !== v) return;
      tree = body.legalMoves;
    }
    if (Object.keys(tree).length === 0) return; // forced pass: the server plays it
    const moves = randomPath(tree);
    r.unknown++;
    const res = await p.req('POST', `/bot/game/${g.id}/move`, { token, body: { moves } });
    if (res.status === 202) return; // no verdict in time: stays unknown
    r.unknown--;
    const verdict = res.json as { applied: boolean; version: number | null; reason: string | null };
    if (res.status === 200 && verdict.applied && verdict.version !== null) r.acked.push({ v: verdict.version, seat, moves });
    else r.unexpected.push(`move ${JSON.stringify(moves)} at v${v}: ${res.status} ${res.text}`);
  };
  try {
    for (let line = await stream.next(); line !== undefined; line = await stream.next()) {
      if (line.trim() === '') continue;
      const ev = JSON.parse(line) as Record<string, any>;
      const v = (Object.values(ev)[0] as { v: number }).v;
      if (v > r.maxSeenV) r.maxSeenV = v;
      if (ev.Snapshot) {
        r.startLen = ev.Snapshot.history.length;
        r.snapshotV = ev.Snapshot.v;
        const s = ev.Snapshot.state as GameStateJson;
        if (s.dicePending && !s.status.Ended) await play(s.activeSeat, s.version, s.legalMoves);
      } else if (ev.DiceRolled) {
        await play(ev.DiceRolled.seat, ev.DiceRolled.v, ev.DiceRolled.legalMoves);
      } else if (ev.TurnPlayed) {
        r.seen.push(ev.TurnPlayed as Turn);
      } else if (ev.GameEnded) {
        r.ended = true;
      }
    }
  } catch (e) {
    if (!isCut(e)) r.unexpected.push(`driver: ${String(e)}`);
  } finally {
    stream.destroy();
  }
}

const sameTurn = (a: { seat: string; moves: string[] }, b: { seat: string; moves: string[] }) =>
  a.seat === b.seat && JSON.stringify(a.moves) === JSON.stringify(b.moves);

/**
 * Waits until the game can no longer change on its own: ended, or a roll pending for a seat this test
 * plays (its drivers are stopped). A house seat answers its roll at once after the restart; reading
 * the game while that move lands would give a state, a history and a Snapshot of different versions.
 */
async function settled(p: ServerProcess, g: Game, label: string): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    const s = await getJson<GameStateJson>(p, `/games/${g.id}`);
    if (s.status.Ended || (s.dicePending && g.tokens[s.activeSeat] !== undefined)) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`${label}: the house seat never answered after the restart`);
}

/** Checks one game after a restart against what the driver learned before the kill. */
async function verify(t: Test, p: ServerProcess, g: Game, r: Round, label: string): Promise<GameStateJson> {
  t.same(r.unexpected, [], `${label}: no unexpected answer while driving`);
  t.ok(r.startLen >= 0, `${label}: the driver's stream opened with a Snapshot`);
  await settled(p, g, label);
  const { state, history, snapshot } = await readGame(p, g.id, g.watcher);
  const h: HistoryEntry[] = snapshot.history;
  const mine = h.slice(r.startLen).filter((e) => g.tokens[e.seat] !== undefined && e.moves.length > 0);
  const prefixOk = r.acked.every((a, i) => mine[i] !== undefined && sameTurn(a, mine[i]));
  t.ok(prefixOk, `${label}: all ${r.acked.length} acknowledged turns are in the resumed history, in order`, {
    acked: r.acked.map((a) => [a.seat, a.moves.join(' ')]),
    resumed: mine.map((e) => [e.seat, e.moves.join(' ')]),
  });
  t.ok(mine.length <= r.acked.length + r.unknown, `${label}: no turn appears that was never sent (${mine.length} ≤ ${r.acked.length} + ${r.unknown})`);
  const seenOk = r.seen.every((s, i) => {
    const e = h[r.startLen + i];
    return e !== undefined && sameTurn(s, e) && s.fenAfter === e.fenAfter;
  });
  t.ok(seenOk, `${label}: all ${r.seen.length} TurnPlayed events seen on the stream are in the resumed history`);
  for (const a of r.acked) {
    const s = r.seen.find((x) => x.v === a.v);
    if (s && !sameTurn(s, a)) t.fail(`${label}: verdict v${a.v} and TurnPlayed v${s.v} disagree`);
  }
  const lastAck = Math.max(0, ...r.acked.map((a) => a.v));
  t.ok(snapshot.v >= Math.max(lastAck, r.maxSeenV), `${label}: resumed version ${snapshot.v} ≥ last acknowledged ${lastAck} and last seen ${r.maxSeenV}`);
  t.same(replayProblems(h), [], `${label}: the history replays from the start position`);
  t.equal(consistentDfen(h, snapshot.state.dfen), null, `${label}: the position is the last fenAfter`);
  t.equal(snapshot.state.dicePending, snapshot.state.dfen.split(' ').length === 7, `${label}: dicePending agrees with the dfen`);
  t.ok(state.version >= snapshot.v, `${label}: GET /games/{id} is not behind the stream`);
  t.same(history.history.slice(0, h.length), h, `${label}: GET /games/{id}/history agrees with the Snapshot`);
  t.equal(state.version, snapshot.v, `${label}: GET /games/{id} version equals the Snapshot's`);
  t.equal(state.dfen, snapshot.state.dfen, `${label}: GET /games/{id} dfen equals the Snapshot's`);
  return state;
}

t.test(`SIGKILL mid-play, ${ROUNDS} rounds on one directory: nothing acknowledged is lost`, async (t) => {
  const h = harness(t, 'crash');
  let p = await h.start();
  const register = async (name: string): Promise<string> => {
    const r = await p.req('POST', '/bot/register', { body: { team: 'crash', name } });
    if (r.status !== 201) throw new Error(`register ${name}: ${r.status} ${r.text}`);
    return (r.json as { token: string }).token;
  };
  const white = await register('white');
  const black = await register('black');
  const everyGame: Game[] = [];

  const newPair = async (n: number): Promise<Game> => {
    const ch = await p.req('POST', '/bot/challenge', { token: white, body: { team: 'crash', name: 'black' } });
    const acc = await p.req('POST', `/bot/challenge/${(ch.json as { id: string }).id}/accept`, { token: black });
    if (acc.status !== 201) throw new Error(`accept: ${acc.status} ${acc.text}`);
    const g = { id: (acc.json as { gameId: string }).gameId, tokens: { White: white, Black: black }, watcher: white, label: `pair#${n}` };
    everyGame.push(g);
    return g;
  };
  const newHouse = async (n: number): Promise<Game> => {
    const known = new Set(everyGame.map((g) => g.id));
    const ch = await p.req('POST', '/bot/challenge', { token: black, body: { team: 'house', name: 'random' } });
    if (ch.status !== 201) throw new Error(`challenge house: ${ch.status} ${ch.text}`);
    for (let i = 0; i < 400; i++) {
      const list = await getJson<{ games: { gameId: string }[] }>(p, '/bot/games', black);
      const fresh = list.games.find((x) => !known.has(x.gameId));
      if (fresh) {
        const g = { id: fresh.gameId, tokens: { White: black }, watcher: black, label: `house#${n}` };
        everyGame.push(g);
        return g;
      }
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error('house/random did not accept');
  };

  let games = [await newPair(0), await newHouse(0)];
  let totalAcked = 0;
  for (let round = 1; round <= ROUNDS; round++) {
    const stop = { killed: false };
    const rounds = games.map((): Round => ({
      startLen: -1, snapshotV: -1, acked: [], unknown: 0, seen: [], maxSeenV: -1, ended: false, unexpected: [],
    }));
    const drivers = games.map((g, i) => drive(p, g, rounds[i], stop));
    // Let play get going (at least one acknowledged turn, bounded), then kill at a random moment.
    for (let i = 0; i < 1000 && rounds.every((r) => r.acked.length === 0); i++) await new Promise((r) => setTimeout(r, 10));
    t.ok(rounds.some((r) => r.acked.length > 0), `round ${round}: play got going before the kill`);
    await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 400)));
    stop.killed = true;
    const exit = await p.stop('SIGKILL');
    t.equal(exit.signal, 'SIGKILL', `round ${round}: the server was killed`);
    await Promise.all(drivers);
    totalAcked += rounds.reduce((n, r) => n + r.acked.length, 0);
    t.comment(`round ${round}: ${games.map((g, i) => `${g.label} acked ${rounds[i].acked.length}, seen ${rounds[i].seen.length}, in flight ${rounds[i].unknown}`).join('; ')}`);

    p = await h.start();
    const next: Game[] = [];
    for (let i = 0; i < games.length; i++) {
      const g = games[i];
      const state = await verify(t, p, g, rounds[i], `round ${round} ${g.label}`);
      if (!state.status.Ended) next.push(g);
      else next.push(g.tokens.Black ? await newPair(round) : await newHouse(round)); // finished naturally
    }
    // No game lost or invented: every game still live is listed, and nothing else is.
    const live = (await getJson<{ games: { gameId: string }[] }>(p, '/games')).games.map((x) => x.gameId).sort();
    const expected: string[] = [];
    for (const g of everyGame) {
      const s = await getJson<GameStateJson>(p, `/games/${g.id}`);
      if (!s.status.Ended) expected.push(g.id);
    }
    t.same(live, expected.sort(), `round ${round}: GET /games lists exactly the live games`);
    games = next;
  }
  t.ok(totalAcked >= ROUNDS, `${totalAcked} turns were acknowledged across the rounds`);

  // Play goes on after the last crash, and every game can be finished; then a clean stop.
  for (const g of games) {
    const r: Round = { startLen: -1, snapshotV: -1, acked: [], unknown: 0, seen: [], maxSeenV: -1, ended: false, unexpected: [] };
    const stream = await p.stream(`/bot/game/stream/${g.id}`, g.watcher);
    const snap = (await nextEvent(stream))?.Snapshot;
    t.ok(snap, `${g.label}: stream opens after the last restart`);
    stream.destroy();
    // One more of our turns, by polling.
    for (let i = 0; i < 2000 && r.acked.length === 0; i++) {
      const s = await getJson<GameStateJson>(p, `/games/${g.id}`);
      if (s.status.Ended) break;
      const token = g.tokens[s.activeSeat];
      if (!s.dicePending || !token) {
        await new Promise((res) => setTimeout(res, 5));
        continue;
      }
      const tree = s.legalMoves ?? (await getJson<{ legalMoves: Tree }>(p, `/games/${g.id}/moves`)).legalMoves;
      if (Object.keys(tree).length === 0) continue;
      const res = await p.req('POST', `/bot/game/${g.id}/move`, { token, body: { moves: randomPath(tree) } });
      t.equal(res.status, 200, `${g.label}: a move after the last restart is applied`);
      r.acked.push({ v: (res.json as { version: number }).version, seat: s.activeSeat, moves: [] });
    }
    const resign = await p.req('POST', `/bot/game/${g.id}/resign`, { token: g.watcher });
    t.equal(resign.status, 202, `${g.label}: resign`);
  }
  for (const g of everyGame) {
    let hist: HistoryJson | undefined;
    for (let i = 0; i < 200; i++) {
      hist = await getJson<HistoryJson>(p, `/games/${g.id}/history`);
      if (hist.status.Ended) break;
      await new Promise((res) => setTimeout(res, 10));
    }
    t.ok(hist?.status.Ended, `${g.label}: finished`);
    t.same(replayProblems(hist!.history), [], `${g.label}: the finished game replays`);
    t.same(revealProblems(hist!.history, hist!.commit, hist!.seed, hist!.clientSeeds), [], `${g.label}: every roll matches the reveal`);
  }
  t.same(await p.stop('SIGTERM'), { code: 0, signal: null }, 'a clean stop at the end');
});
