// The bridge against a server that is not on its side (a fake one, test/client/fake-server.ts): a
// flood of announced games gets no more engines than `maxGames` allows, the rest are resigned and
// said so; a game the bridge neither asked for nor accepts is resigned before any engine sees it;
// text from the server reaches the terminal with its control characters written out; a token file
// that is a symbolic link is refused before an identity is made, and an old file readable by others
// never receives the new token.
import t from 'tap';
import { linkSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bridgeCommand } from '../../src/bridge/cli.js';
import type { BridgeEvent } from '../../src/bridge/report.js';
import { fakeServer, json, ndjson, problem, type Handler } from '../helpers/fake-server.js';
import type { Teardown } from '../helpers/http.js';
import { FAULTY_ENGINE, startBridge } from '../helpers/bridge.js';

const TOKEN = 'dcb_fake-token-for-the-tests-0001';
const ME = { kind: 'Bot', name: 'kit me' } as const;
const TREE = { a2a3: {} };
const DFEN = '7k/8/8/8/8/8/P7/K7 w - - 0 1 P';
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

function scratch(t: Teardown): string {
  const dir = mkdtempSync(join(tmpdir(), 'dicechess-hostile-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A game's first Snapshot: this bridge plays White (unless `white` says otherwise), its roll pending. */
function snapshot(opponent: { kind: 'Bot' | 'Human'; name: string | null }, white: { kind: 'Bot' | 'Human'; name: string | null } = ME) {
  return {
    Snapshot: {
      state: {
        version: 1, dfen: DFEN, activeSeat: 'White', dicePending: true, status: { Active: {} }, timeControl: { Unlimited: {} },
        clocks: null, commit: 'c0', seed: null, clientSeeds: null, legalMoves: TREE, players: { white, black: opponent },
      },
      history: [],
    },
  };
}

interface Hostile {
  base: string;
  moves: Set<string>;
  resigns: Set<string>;
  legalMoveReads: () => number;
  /** Resolves once `pred` holds (checked after every request); bounded. */
  until(pred: () => boolean, what: string): Promise<void>;
}

/**
 * A server that announces `announced` on the account stream (then `more` lines) and opens each game
 * with `game(id)`; moves and resignations are recorded. `handlers` replace any of the defaults.
 */
async function hostile(
  t: Teardown,
  announced: string[],
  game: (id: string) => unknown,
  opts: { more?: unknown[]; account?: unknown; handlers?: Parameters<typeof fakeServer>[1] } = {},
): Promise<Hostile> {
  const moves = new Set<string>();
  const resigns = new Set<string>();
  const waiters: { pred: () => boolean; resolve: () => void }[] = [];
  const check = () => {
    for (const w of [...waiters]) if (w.pred()) (waiters.splice(waiters.indexOf(w), 1), w.resolve());
  };
  const after = (h: Handler): Handler => async (r, res) => {
    await h(r, res);
    check();
  };
  const server = await fakeServer(t, {
    getAccount: (_r, res) => json(res, 200, opts.account ?? { id: 'bot:team:kit:me', team: 'kit', name: 'me' }),
    listMyGames: (_r, res) => json(res, 200, { games: [] }),
    streamAccountEvents: (_r, res) => {
      const write = ndjson(res);
      for (const id of announced) write({ GameStart: { gameId: id } });
      for (const line of opts.more ?? []) write(line);
    },
    submitSeed: (_r, res) => json(res, 202, {}),
    streamGameEvents: (r, res) => ndjson(res)(game(r.params[0]!)),
    getLegalMoves: (_r, res) => json(res, 200, { version: 1, dfen: DFEN, dicePending: true, legalMoves: TREE }),
    submitMove: after((r, res) => (moves.add(r.params[0]!), json(res, 200, { applied: true, version: 2, reason: null }))),
    resign: after((r, res) => (resigns.add(r.params[0]!), json(res, 202, {}))),
    ...opts.handlers,
  });
  return {
    base: server.base,
    moves,
    resigns,
    legalMoveReads: () => server.count('getLegalMoves'),
    until: (pred, what) =>
      new Promise<void>((resolve, reject) => {
        if (pred()) return resolve();
        const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), 45_000);
        waiters.push({ pred, resolve: () => (clearTimeout(timer), resolve()) });
      }),
  };
}

/** The game's fate as the bridge tells it: refused, or started (what a bridge without limits does). */
const fate = (id: string) => (e: BridgeEvent) => (e.event === 'gameRefused' || e.event === 'gameStarted') && e.gameId === id;
const refused = (events: BridgeEvent[]) => events.filter((e): e is Extract<BridgeEvent, { event: 'gameRefused' }> => e.event === 'gameRefused');
const engine = (t: Teardown) => [...FAULTY_ENGINE, 'well', join(scratch(t), 'marker')];

t.test('a flood of GameStarts: at most maxGames engines, the other games resigned and said so', async (t) => {
  const ids = Array.from({ length: 10 }, (_, i) => `g${i}`);
  const server = await hostile(t, ids, () => snapshot({ kind: 'Bot', name: 'house random' }));
  const b = await startBridge(t, server.base, ['--token', TOKEN, '--max-games', '2'], engine(t));
  await server.until(() => server.moves.size + server.resigns.size === ids.length, 'every announced game to be played or resigned');
  await b.waitFor(fate('g9'), 'the last game to be told of');
  t.same([...server.moves].sort(), ['g0', 'g1'], 'the first two games were played');
  t.same([...server.resigns].sort(), ids.slice(2).sort(), 'every other one was resigned');
  t.equal(b.events.filter((e) => e.event === 'engineStarted').length, 2, 'two engine processes in all (no game ended, so never more at once)');
  t.same(refused(b.events).map((e) => [e.gameId, e.resigned]), ids.slice(2).map((id) => [id, true]), 'a gameRefused event for each');
  t.match(b.lines.join('\n'), /^game g2 not played: no free game slot \(2 running, maxGames 2\); resigned it/m, 'a clear line');
  t.notOk(b.events.some((e) => e.event === 'gameStarted' && !['g0', 'g1'].includes(e.gameId)), 'no other game was started');
});

t.test('an announced game the bridge did not ask for and does not accept is resigned before any engine sees it', async (t) => {
  const server = await hostile(t, ['unasked', 'stranger'], (id) =>
    id === 'stranger'
      ? snapshot({ kind: 'Bot', name: 'kit other' }, { kind: 'Bot', name: 'kit third' })
      : snapshot({ kind: 'Bot', name: 'anon pusher-1' }),
  );
  const b = await startBridge(t, server.base, ['--token', TOKEN, '--no-accept'], engine(t));
  await b.waitFor(fate('unasked'), 'the unasked game to be refused');
  await b.waitFor(fate('stranger'), 'the stranger game to be refused');
  t.same([...server.resigns], ['unasked'], 'the game it is seated in was resigned; the other is not its to resign');
  t.equal(server.legalMoveReads(), 0, 'no turn was prepared');
  t.equal(server.moves.size, 0, 'no move sent');
  t.equal(b.events.filter((e) => e.event === 'engineStarted').length, 1, 'only the engine started at launch (to read its hello)');
  const text = b.lines.join('\n');
  t.match(text, /game unasked not played: not a game it asked for, and this bridge accepts no challenges; resigned it/);
  t.match(text, /game stranger not played: this bridge is not seated in it; not resigned/);
  t.notOk(b.events.some((e) => e.event === 'gameStarted'), 'neither counts as started');
});

t.test('text from the server is printed with its control characters written out', async (t) => {
  const server = await hostile(t, ['g0', 'g1'], () => snapshot({ kind: 'Bot', name: '\u001b]0;owned\u0007house evil\u001b[2J' }), {
    account: { id: 'bot:\u001b[31mred', team: 'kit', name: 'me' },
    more: [{ LadderRemoved: { reason: 'bye\u009b2J\r\nready as someone else\u007f' } }],
    handlers: { resign: (_r, res) => problem(res, 500, 'no \u001b[5mresign\u001b[0m today') },
  });
  const b = await startBridge(t, server.base, ['--token', TOKEN, '--max-games', '1'], engine(t));
  await b.waitFor(fate('g0'), 'the first game');
  await b.waitFor(fate('g1'), 'the second game to be refused');
  await b.waitFor((e) => e.event === 'ladderRemoved', 'the ladder message');
  const text = b.lines.join('\n');
  t.notOk(b.lines.some((l) => CONTROL.test(l)), 'no control character reaches the output');
  t.match(text, 'ready as bot:\\x1b[31mred', 'an account id');
  t.match(text, 'against \\x1b]0;owned\\x07house evil\\x1b[2J', 'an opponent name');
  t.match(text, 'resigning failed: 500 no \\x1b[5mresign\\x1b[0m today', 'a problem detail');
  t.match(text, 'taken off the ladder: bye\\x9b2J\\x0d\\x0aready as someone else\\x7f', 'a reason, on one line');
});

t.test('a problem detail in the error that stops the command is printed inert', async (t) => {
  const server = await hostile(t, [], () => ({}), {
    handlers: { getAccount: (_r, res) => problem(res, 401, 'bad token\u001b[2J\u001b[H') },
  });
  const printed: string[] = [];
  const was = console.error;
  console.error = (...a: unknown[]) => void printed.push(a.join(' '));
  let code: number;
  try {
    code = await bridgeCommand(['--url', server.base, '--quiet', '--token', TOKEN, '--token-file', join(scratch(t), 'token.json'), '--', ...engine(t)]);
  } finally {
    console.error = was;
  }
  t.equal(code, 1, 'it fails');
  t.same(printed, ['bridge: the token was refused: bad token\\x1b[2J\\x1b[H']);
});

t.test('a token file that is a symbolic link is refused before an identity is made', async (t) => {
  const dir = scratch(t);
  const target = join(dir, 'elsewhere.txt');
  writeFileSync(target, 'not yours\n');
  const link = join(dir, 'token.json');
  symlinkSync(target, link);
  let registered = 0;
  const server = await hostile(t, [], () => ({}), {
    handlers: { register: (_r, res) => (registered++, json(res, 201, { id: 'bot:team:kit:me', team: 'kit', name: 'me', token: TOKEN })) },
  });
  await t.rejects(startBridge(t, server.base, ['--register', 'kit/me', '--token-file', link], engine(t)), {
    message: `token file ${link} is a symbolic link; the bridge will not write its token through it (remove the link or choose another --token-file)`,
  });
  t.equal(registered, 0, 'no identity was registered (its token would have had nowhere to go)');
  t.equal(readFileSync(target, 'utf8'), 'not yours\n', 'the link target is untouched');
});

t.test('an old token file readable by others is replaced, never written into', async (t) => {
  const dir = scratch(t);
  const file = join(dir, 'token.json');
  // A token file of the first shape, for another server: kept in the new file, which replaces it.
  const old = `${JSON.stringify({ url: 'http://10.0.0.1:1', team: 'kit', name: 'far', token: 'dcb_far' })}\n`;
  writeFileSync(file, old, { mode: 0o644 });
  const before = join(dir, 'same-inode');
  linkSync(file, before); // a second name of the old file: what it ever holds stays visible
  const server = await hostile(t, [], () => ({}), {
    handlers: { register: (_r, res) => json(res, 201, { id: 'bot:team:kit:me', team: 'kit', name: 'me', token: TOKEN }) },
  });
  await startBridge(t, server.base, ['--register', 'kit/me', '--token-file', file], engine(t));
  t.equal(statSync(file).mode & 0o777, 0o600, 'the token file is 0600');
  t.not(statSync(file).ino, statSync(before).ino, 'a new file, not the old one');
  t.equal(readFileSync(before, 'utf8'), old, 'the old file never held the token');
  t.match(JSON.parse(readFileSync(file, 'utf8')), { identities: [{ token: 'dcb_far' }, { token: TOKEN }] }, 'its identity is kept');
});
