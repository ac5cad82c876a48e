// Rules of the house: a source file stays under 400 lines; one that grows past it is split by what
// its parts own. The files over the limit today are listed below, each to be split and then removed
// from the list (the test fails when a listed file is back under the limit, so the list only shrinks).
// A file that is one concept, which a split would only cut in halves, may instead have a limit of its
// own in ONE_CONCEPT, with the reason next to it.
import t from 'tap';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const srcDir = join(root, 'src');

const MAX_LINES = 400;

/** Files known to be over the limit, relative to the repository root. */
const OVER_TODAY = new Set<string>([]);

/** Files allowed past the limit, each up to its own (relative to the repository root). */
const ONE_CONCEPT = new Map<string, number>([
  // The game actor: one class whose mailbox has one dispatch table, with the handler of each message
  // and the one persist-then-publish path they all take. It was five classes in a chain, cut only to
  // fit the limit; the pure parts are in rolls.ts, turns.ts, clocks.ts and endings.ts.
  ['src/game/actor.ts', 530],
]);

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? walk(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** Lines as `wc -l` counts them, plus a last line without its newline. */
function lineCount(text: string): number {
  if (text === '') return 0;
  const newlines = text.split('\n').length - 1;
  return text.endsWith('\n') ? newlines : newlines + 1;
}

/**
 * The files over their limit (MAX_LINES, or their own in `own`) that are not listed in `allowed`, and
 * the listed ones (in either) that are no longer over MAX_LINES.
 */
function oversized(
  sizes: ReadonlyMap<string, number>, allowed: ReadonlySet<string>, own: ReadonlyMap<string, number> = new Map(),
): { over: string[]; stale: string[] } {
  const over = [...sizes].filter(([f, n]) => n > (own.get(f) ?? MAX_LINES) && !allowed.has(f)).map(([f, n]) => `${f}: ${n} lines`);
  const stale = [...allowed, ...own.keys()].filter((f) => (sizes.get(f) ?? 0) <= MAX_LINES);
  return { over, stale };
}

t.test(`every source file has at most ${MAX_LINES} lines`, async (t) => {
  const files = walk(srcDir);
  t.ok(files.length > 10, 'found the source files');
  const sizes = new Map(files.map((f) => [relative(root, f), lineCount(readFileSync(f, 'utf8'))]));
  const { over, stale } = oversized(sizes, OVER_TODAY, ONE_CONCEPT);
  t.same(over, [], `split these by what their parts own (or, for a file over today, list it in test/architecture/sizes.test.ts)`);
  t.same(stale, [], 'listed as over the limit but no longer over it (or gone): remove them from the list');
});

t.test('the check itself catches a long file and a stale entry', async (t) => {
  t.equal(lineCount(''), 0);
  t.equal(lineCount('a\nb\n'), 2);
  t.equal(lineCount('a\nb'), 2);
  const long = 'x\n'.repeat(MAX_LINES + 1);
  const sizes = new Map([
    ['src/a.ts', lineCount(long)],
    ['src/b.ts', lineCount('x\n'.repeat(MAX_LINES))],
    ['src/c.ts', MAX_LINES + 5],
  ]);
  t.same(oversized(sizes, new Set(['src/c.ts'])), { over: [`src/a.ts: ${MAX_LINES + 1} lines`], stale: [] });
  t.same(oversized(sizes, new Set(['src/b.ts', 'src/gone.ts'])).stale, ['src/b.ts', 'src/gone.ts']);
  // A limit of its own: within it passes, past it fails, and back under MAX_LINES it is stale.
  t.same(oversized(sizes, new Set(['src/c.ts']), new Map([['src/a.ts', MAX_LINES + 1]])), { over: [], stale: [] });
  t.same(oversized(sizes, new Set(['src/c.ts']), new Map([['src/a.ts', MAX_LINES]])).over, [`src/a.ts: ${MAX_LINES + 1} lines`]);
  t.same(oversized(sizes, new Set(['src/c.ts']), new Map([['src/b.ts', MAX_LINES + 50]])).stale, ['src/b.ts']);
});
