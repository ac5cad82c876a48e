// The bots of the ladder benchmark (bench/ladder.ts), forked so that their CPU is not the server's.
// The parent sends {url, bots, durationMs}; every bot holds its account stream, opens a game stream
// for each GameStart, and answers each of its rolls with a random root-to-leaf path. After the
// window the bots stop answering and the driver prints a JSON summary as its last stdout line.

import http from 'node:http';
import { lineSplitter, randomPath, type Tree } from './driver-common.js';

interface Msg {
  url: string;
  bots: { token: string; face: string }[];
  durationMs: number;
}
type Ev = Record<string, any>;

let stopping = false;
const started = new Set<string>();
const ended = new Set<string>();
let turns = 0;
let failures = 0;
const statuses: Record<number, number> = {};
const streams = new Set<http.ClientRequest>();

const agent = new http.Agent({ keepAlive: true, maxSockets: 1024 });

/** One request over the keep-alive agent (node:http: fetch added tens of ms per turn here). */
function request(url: string, method: string, token?: string, body?: unknown): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? '' : JSON.stringify(body);
    const headers: Record<string, string> = { 'content-length': String(Buffer.byteLength(payload)) };
    if (token) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const req = http.request(url, { method, headers, agent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** Reads an ndjson stream (on its own connection) until it ends or the driver stops. */
function lines(url: string, token: string, onEvent: (ev: Ev) => void): Promise<void> {
  return new Promise((resolve) => {
    const req = http.get(url, { headers: { authorization: `Bearer ${token}` }, agent: false }, (res) => {
      if (res.statusCode !== 200) failures++;
      res.setEncoding('utf8');
      res.on('data', lineSplitter((line) => {
        if (line.trim()) onEvent(JSON.parse(line) as Ev);
      }));
      res.on('error', () => undefined);
      res.on('close', () => resolve());
    });
    streams.add(req);
    req.on('error', () => {
      if (!stopping) failures++;
      resolve();
    });
    req.on('close', () => {
      streams.delete(req);
      resolve();
    });
  });
}

async function play(base: string, token: string, face: string, gameId: string): Promise<void> {
  let seat: string | null = null;
  let acted = -1;
  const act = async (v: number, inline: Tree | null): Promise<void> => {
    if (stopping || v <= acted) return;
    acted = v;
    let tree = inline;
    if (tree === null) tree = (JSON.parse((await request(`${base}/games/${gameId}/moves`, 'GET')).text) as { legalMoves: Tree }).legalMoves;
    if (Object.keys(tree).length === 0) return; // forced pass: the server plays it
    const res = await request(`${base}/bot/game/${gameId}/move`, 'POST', token, { moves: randomPath(tree), version: v });
    statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    if (res.status === 200 && !stopping) turns++;
    else if (res.status !== 200 && res.status !== 409) failures++;
  };
  await lines(`${base}/bot/game/stream/${gameId}`, token, (ev) => {
    if (ev.Snapshot) {
      const s = ev.Snapshot.state;
      seat = s.players.white.name === face ? 'White' : 'Black';
      if (s.dicePending && s.activeSeat === seat) void act(ev.Snapshot.v, s.legalMoves).catch(() => failures++);
    } else if (ev.DiceRolled && ev.DiceRolled.seat === seat) {
      void act(ev.DiceRolled.v, ev.DiceRolled.legalMoves).catch(() => failures++);
    } else if (ev.GameEnded && !stopping) {
      ended.add(gameId);
    }
  });
}

process.once('message', (m: Msg) => {
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  for (const bot of m.bots) {
    const mine = new Set<string>();
    const join = (gameId: string): void => {
      if (stopping || mine.has(gameId)) return;
      mine.add(gameId);
      started.add(gameId);
      void play(m.url, bot.token, bot.face, gameId);
    };
    void lines(`${m.url}/bot/stream/event`, bot.token, (ev) => {
      if (ev.GameStart) join(ev.GameStart.gameId);
    });
    // Games paired before the stream opened (registering made the bot reachable for a minute).
    void request(`${m.url}/bot/games`, 'GET', bot.token)
      .then((r) => (JSON.parse(r.text) as { games: { gameId: string }[] }).games.forEach((g) => join(g.gameId)))
      .catch(() => failures++);
  }
  process.send?.({ event: 'start' });
  setTimeout(() => {
    stopping = true;
    const windowS = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    for (const r of streams) r.destroy();
    console.log(JSON.stringify({
      windowS, gamesStarted: started.size, gamesEnded: ended.size, turns, failures, statuses,
      driverCpuPct: ((cpu.user + cpu.system) / 1e6 / windowS) * 100,
    }));
    process.exit(0);
  }, m.durationMs);
});
process.once('disconnect', () => process.exit(1));
