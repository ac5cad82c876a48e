// The shared store suite against LMDB, plus what only a durable store has: reopening, the schema
// guard on the data directory, crash survival, backups and the open errors.
import t from 'tap';
import type { Test } from 'tap';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { open } from 'lmdb';
import { SCHEMA_VERSION } from '../../src/domain/records.js';
import { DB_NAMES, LmdbStore, META_PROVISIONAL_KEY, META_SCHEMA_KEY } from '../../src/store/lmdb.js';
import { openStore } from '../../src/store/index.js';
import { bot, ended, game, hashOf, history, linesFor, raw, tournament } from '../helpers/store-fixtures.js';
import { storeSuite } from '../helpers/store-suite.js';
import { ratingsSuite } from '../helpers/store-ratings-suite.js';
import { tournamentsSuite } from '../helpers/store-tournaments-suite.js';

/**
 * A fresh temporary directory. One teardown closes every store opened through `open` and only
 * then removes the directory, so the order never depends on tap's teardown ordering.
 */
function scratch(t: Test): { dir: string; open(dir?: string, flushEachWrite?: boolean): Promise<LmdbStore> } {
  const dir = mkdtempSync(join(tmpdir(), 'dicechess-store-'));
  const opened: LmdbStore[] = [];
  t.teardown(async () => {
    for (const s of opened) await s.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    dir,
    async open(at = dir, flushEachWrite = false) {
      const r = await LmdbStore.open(at, { flushEachWrite });
      if (!r.ok) throw new Error(`open failed: ${r.error}`);
      opened.push(r.value);
      return r.value;
    },
  };
}

/** Opens the environment directly, bypassing the store (stands in for another server version). */
t.test('shared suite', async (t) => {
  storeSuite(t, async (t) => {
    const s = await scratch(t).open();
    t.equal(s.persistent, true);
    return s;
  });
});

t.test('ratings suite', async (t) => {
  ratingsSuite(t, async (t) => (await scratch(t)).open());
});

t.test('events suite', async (t) => {
  tournamentsSuite(t, async (t) => (await scratch(t)).open());
});

t.test('everything survives close and reopen', async (t) => {
  const sc = scratch(t);
  const first = await sc.open();
  const a = bot('alpha', 'one');
  const b = bot('beta', 'two');
  await first.createBot(a);
  await first.createBot(b);
  const rotated = { ...a, tokenHash: hashOf('rotated'), onLadder: true };
  await first.updateBot(rotated);
  const live = game('live');
  const done = game('done');
  await first.putGame(live);
  await first.putGame(done);
  await first.finishGame(ended(done, 42), linesFor(done, 42));
  await first.close();
  const indexed = (hash: string) => raw(sc.dir, DB_NAMES.tokenIndex, (db) => db.get(hash));
  t.equal(await indexed(a.tokenHash), undefined, 'the old hash left the index, not just the lookup');
  t.equal(await indexed(rotated.tokenHash), a.id, 'the new hash is indexed');

  const again = await sc.open();
  t.same(again.listBots(), [rotated, b], 'bots');
  t.equal(again.getBotByTokenHash(a.tokenHash), undefined, 'the rotated-away hash stays revoked');
  t.same(again.getBotByTokenHash(rotated.tokenHash), rotated, 'the new hash resolves');
  t.same(again.listLiveGames(), [live], 'live games');
  t.same(again.getGame('done'), ended(done, 42), 'finished game');
  t.same(again.allResults(), linesFor(done, 42), 'result lines');
});

t.test('events: the index is built again at open; a record stored whole by an earlier version is read', async (t) => {
  const sc = scratch(t);
  const first = await sc.open();
  const open = tournament('open', { pairs: 3, finished: 1, queued: 100 });
  const over = tournament('over', { pairs: 2, finished: 2, over: { state: 'finished', createdAt: 1_700_000_000_001 } });
  await first.putTournament(open);
  await first.putTournament(over);
  await first.close();
  // As the previous version stored events: the whole record under its id, refused moves per pair.
  const old = tournament('old', { pairs: 2, finished: 1, queued: 3, over: { createdAt: 1_700_000_000_002 } });
  const oldPairs = old.pairs.map((p, i) => ({ ...p, refusals: i === 0 ? [0, 1, 0] : [] }));
  await raw(sc.dir, DB_NAMES.events, (db) => db.put('old', { ...old, pairs: oldPairs }));

  const again = await sc.open();
  t.same(again.recentTournaments(10), ['old', 'over', 'open'], 'the newest, built from the heads');
  t.same(again.openTournaments().map((e) => e.id), ['open', 'old'], 'the open ones');
  t.same(again.getTournament('open'), open);
  t.same(again.getTournament('over'), over);
  const read = again.getTournament('old')!;
  t.same(read, { ...old, refused: [2, 1] }, 'the old shape read, its refusals counted per player');
  t.equal(again.getTournamentHead('old')?.pairsFinished, 1, 'its head');
  const next = { ...read, pairs: read.pairs.map((p, i) => (i === 1 ? { ...p, scores: [0, 0] as [0, 0], finishedSeq: 2 } : p)) };
  await again.putTournament(next, read);
  t.same(again.getTournament('old'), next, 'its next change stores it in parts, every part');
  t.equal(await raw(sc.dir, DB_NAMES.events, (db) => Array.isArray((db.get('old') as { pairs?: unknown }).pairs)), false, 'no longer whole');
});

t.test('a directory from before the provisional index gets it built once, at open', async (t) => {
  const sc = scratch(t);
  const first = await sc.open();
  await first.createBot(bot('t', 'joined', { onLadder: true }));
  await first.createBot(bot('t', 'idle'));
  await first.close();
  // What an older server left: the bots, no index and no marker.
  await raw(sc.dir, DB_NAMES.provisional, (db) => db.clearSync());
  await raw(sc.dir, DB_NAMES.meta, (db) => db.remove(META_PROVISIONAL_KEY));
  const again = await sc.open();
  t.same(again.provisional(0, 10).bots.map((b) => b.name), ['joined'], 'rebuilt from the bot records');
  t.equal(await raw(sc.dir, DB_NAMES.meta, (db) => db.get(META_PROVISIONAL_KEY)), true, 'and marked built');
});

t.test('a fresh directory is stamped with the schema version', async (t) => {
  const sc = scratch(t);
  await (await sc.open()).close();
  t.equal(await raw(sc.dir, DB_NAMES.meta, (db) => db.get(META_SCHEMA_KEY)), SCHEMA_VERSION);
});

t.test('a directory written by a newer schema is refused with a clear message', async (t) => {
  const sc = scratch(t);
  const s = await sc.open();
  await s.createBot(bot('alpha', 'one'));
  await s.close();
  const newer = SCHEMA_VERSION + 2;
  await raw(sc.dir, DB_NAMES.meta, (db) => db.put(META_SCHEMA_KEY, newer));

  const r = await LmdbStore.open(sc.dir);
  t.same(r, {
    ok: false,
    error: `data directory ${sc.dir} was written by schema ${newer}; this server understands up to ${SCHEMA_VERSION}; upgrade the server`,
  });
  const viaOpenStore = await openStore({ memory: false, dataDir: sc.dir });
  t.equal(viaOpenStore.ok, false, 'openStore refuses it too');
  t.equal(await raw(sc.dir, DB_NAMES.meta, (db) => db.get(META_SCHEMA_KEY)), newer, 'and does not overwrite the stamp');
});

t.test('a directory with records but no schema stamp is refused', async (t) => {
  const sc = scratch(t);
  await raw(sc.dir, DB_NAMES.games, (db) => db.put('g1', game('g1')));
  const r = await LmdbStore.open(sc.dir);
  t.equal(r.ok, false);
  t.match(r, { error: /holds records but no schema version/ });
});

t.test('an unusable path is an error value, not a throw', async (t) => {
  const sc = scratch(t);
  const file = join(sc.dir, 'not-a-dir');
  writeFileSync(file, 'x');
  const r = await LmdbStore.open(join(file, 'data'));
  t.equal(r.ok, false);
  t.match(r, { error: /^cannot open data directory/ });
});

t.test('openStore picks the implementation', async (t) => {
  const sc = scratch(t);
  const mem = await openStore({ memory: true, dataDir: sc.dir });
  t.equal(mem.ok && mem.value.persistent, false, 'memory');
  const disk = await openStore({ memory: false, dataDir: join(sc.dir, 'data.v1') });
  t.equal(disk.ok && disk.value.persistent, true, 'lmdb, even for a directory name with a dot');
  if (disk.ok) await disk.value.close();
});

t.test('flushEachWrite mode writes and reads the same', async (t) => {
  const sc = scratch(t);
  const s = await sc.open(sc.dir, true);
  const g = game('g1');
  await s.putGame(g);
  await s.finishGame(ended(g, 3), linesFor(g, 3));
  await s.close();
  const again = await sc.open();
  t.same(again.getGame('g1'), ended(g, 3));
  t.equal(again.allResults().length, 2);
});

t.test('backup copies a consistent snapshot that opens as a data directory', async (t) => {
  const sc = scratch(t);
  const s = await sc.open();
  const a = bot('alpha', 'one');
  await s.createBot(a);
  await s.putGame(game('g1'));
  const target = join(sc.dir, 'backup');
  t.same(await s.backup(target), { ok: true, value: undefined });
  await s.putGame(game('after-backup'));
  const copy = await sc.open(target);
  t.same(copy.getBot(a.id), a);
  t.same(copy.listLiveGames().map((g) => g.id), ['g1'], 'the snapshot predates later writes');
  const bad = await s.backup(join(sc.dir, 'backup'));
  t.equal(bad.ok, false, 'backing up over an existing copy is an error value');
});

t.test('an acknowledged write survives kill -9 right after it', async (t) => {
  const sc = scratch(t);
  const child = spawn(process.execPath, [fileURLToPath(new URL('./crash-child.js', import.meta.url)), sc.dir], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const acknowledged: string[] = [];
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) =>
    child.on('exit', (code, signal) => resolve(signal ?? code)),
  );
  let buffered = '';
  child.stdout.on('data', (d: Buffer) => {
    buffered += d.toString();
    const parts = buffered.split('\n');
    buffered = parts.pop() ?? '';
    acknowledged.push(...parts);
    if (acknowledged.length >= 200) child.kill('SIGKILL');
  });
  t.equal(await exited, 'SIGKILL', `killed mid-stream ${stderr}`);
  t.ok(acknowledged.length >= 200, `${acknowledged.length} writes acknowledged before the kill`);

  const s = await sc.open();
  const missing = acknowledged.filter((id) => s.getGame(id) === undefined);
  t.same(missing, [], 'every acknowledged game is there');
  const finished = acknowledged.filter((_, i) => i % 2 === 1);
  const lines = new Set(s.allResults().map((r) => r.gameId));
  t.same(finished.filter((id) => !lines.has(id)), [], 'every acknowledged finish has its result lines');
  t.ok(s.listLiveGames().every((g) => Number(g.id.split('-')[1]) % 2 === 0), 'the live index is consistent');
});

t.test('a live game write appends its new turns instead of re-encoding the history', async (t) => {
  const sc = scratch(t);
  const s = await sc.open();
  const full = game('long', { history: history(120) });
  // Write it the way an actor does: one turn more each time.
  for (let n = 0; n <= full.history.length; n += 1) await s.putGame({ ...full, history: full.history.slice(0, n), version: n });
  t.same(s.getGame('long'), { ...full, version: 120 }, 'the whole history reads back in order');
  await s.close();
  const stored = (await raw(sc.dir, DB_NAMES.games, (db) => db.get('long'))) as Record<string, unknown>;
  t.equal(stored.historyLength, 120, 'the record holds the length');
  t.notOk('history' in stored, 'and not the turns themselves');
  const turns = await raw(sc.dir, DB_NAMES.turns, (db) => db.getKeysCount({ start: ['long', 0], end: ['long', 1e9] }));
  t.equal(turns, 120, 'each turn is stored once');
  const again = await sc.open();
  t.same(again.getGame('long')?.history, full.history, 'and survives a reopen');
});

t.test('an oversized lookup key names nothing instead of throwing', async (t) => {
  const s = await scratch(t).open();
  const huge = 'x'.repeat(5000);
  t.equal(s.getGame(huge), undefined);
  t.equal(s.getBot(`bot:team:${huge}:n`), undefined);
  t.equal(s.getBotByTokenHash('€'.repeat(2000)), undefined);
});
