// The catalogue of problem codes (src/wire/problems.ts) against the code that raises them and the
// guide that lists them: no code is raised that the catalogue lacks, none in it is never raised, and
// docs/API.md's table of codes says what the catalogue says.
import t from 'tap';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serviceProblem } from '../../src/edge/handlers/errors.js';
import { problem, tooManyRequests, unauthorized } from '../../src/edge/reply.js';
import { fail, rateLimited, type ServiceProblemCode } from '../../src/services/errors.js';
import { PROBLEMS, type ProblemCode } from '../../src/wire/problems.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const CODES = Object.keys(PROBLEMS) as ProblemCode[];

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? walk(p) : p.endsWith('.ts') ? [p] : [];
  });
}

// Problems are made in the services (as values) and at the edge (as replies); other modules use
// `fail(` and `code:` for their own things (the engine's parse errors, the client's `network_error`).
const RAISERS = ['src/services', 'src/edge'];

/** A string literal given as the code where a problem is made: the first argument of a maker, or a `code:` field. */
const MAKER = /\b(?:fail|rateLimited|problem|problemJson|unauthorized|tooManyRequests)\(\s*(['"`])([^'"`$]*)\1/g;
const CODE_FIELD = /\bcode: (['"])([^'"]*)\1/g;

/** Every code literal at a problem site in the server's source, with where it is. */
function codeLiterals(): { code: string; at: string }[] {
  const out: { code: string; at: string }[] = [];
  for (const file of RAISERS.flatMap((dir) => walk(join(root, dir)))) {
    const rel = relative(root, file);
    const text = readFileSync(file, 'utf8');
    for (const re of [MAKER, CODE_FIELD]) {
      for (const m of text.matchAll(re)) {
        const line = text.slice(0, m.index).split('\n').length;
        out.push({ code: m[2], at: `${rel}:${line}` });
      }
    }
  }
  return out;
}

t.test('every code is snake_case, with a status, a default detail and a line for the docs', async (t) => {
  t.ok(CODES.length > 50, `${CODES.length} codes`);
  for (const code of CODES) {
    const p = PROBLEMS[code];
    t.match(code, /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/, `${code}: snake_case`);
    t.ok(p.status >= 400 && p.status < 600, `${code}: an error status`);
    t.ok(p.detail.length > 0 && p.when.length > 0, `${code}: a detail and a when`);
    t.notOk(p.when.includes('|'), `${code}: the when fits a markdown table cell`);
  }
});

t.test('the source raises only catalogued codes, and every catalogued code is raised somewhere', async (t) => {
  const found = codeLiterals();
  // Far fewer would mean the patterns above no longer see the call sites.
  t.ok(found.length >= 70, `${found.length} problem sites with a literal code`);
  const unknown = found.filter((f) => !Object.hasOwn(PROBLEMS, f.code));
  t.same(unknown, [], 'no code outside the catalogue (the types forbid it; this catches a cast)');
  const raised = new Set(found.map((f) => f.code));
  t.same(CODES.filter((c) => !raised.has(c)), [], 'no dead code in the catalogue');
});

t.test("a service refusal and an edge problem both take the code's status", async (t) => {
  for (const code of CODES) {
    const { status, detail } = PROBLEMS[code];
    const reply = problem(code);
    t.equal(reply.status, status, `${code}: problem()`);
    t.match(JSON.parse(reply.body), { status, code, detail });
    if (status === 405 || status === 413 || status === 500) continue; // the edge's own
    const refused = fail(code as ServiceProblemCode);
    t.equal(refused.error.detail, detail, `${code}: fail() without a detail sends the default`);
    t.equal(serviceProblem(refused.error).status, status, `${code}: fail() then serviceProblem()`);
  }
});

// Compiled, never run: what the types refuse.
export function refusedByTheCompiler(): void {
  // @ts-expect-error a code missing from the catalogue
  fail('no_such_code');
  // @ts-expect-error a code missing from the catalogue
  problem('no_such_code');
  // @ts-expect-error rateLimited takes 429 codes only
  rateLimited('unknown_game', 'x', 1000);
  // @ts-expect-error tooManyRequests takes 429 codes only
  tooManyRequests('unknown_game', 1);
  // @ts-expect-error unauthorized takes 401 codes only
  unauthorized('registered_only');
  // @ts-expect-error a service has no 405: routing is the edge's
  fail('method_not_allowed');
}

/** docs/API.md's rows for the catalogue: by status, then by code. */
function expectedRows(): string[] {
  const order = [...CODES].sort((a, b) => PROBLEMS[a].status - PROBLEMS[b].status || (a < b ? -1 : 1));
  return order.map((c) => `| \`${c}\` | ${PROBLEMS[c].status} | ${PROBLEMS[c].when} |`);
}

t.test("docs/API.md's table of codes is the catalogue's", async (t) => {
  const guide = readFileSync(join(root, 'docs/API.md'), 'utf8');
  const start = guide.indexOf('\n## Errors and limits\n');
  t.ok(start >= 0, 'the section is there');
  const end = guide.indexOf('\n## ', start + 1);
  const lines = guide.slice(start, end < 0 ? undefined : end).split('\n');
  const head = lines.indexOf('| code | status | when |');
  if (!t.ok(head >= 0, 'the table of codes is in "Errors and limits"')) return;
  const rows: string[] = [];
  for (const line of lines.slice(head + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(line);
  }
  const cells = (row: string) => row.split('|').slice(1, -1).map((c) => c.trim());
  const parsed = rows.map((r) => ({ code: cells(r)[0].replace(/`/g, ''), status: Number(cells(r)[1]) }));
  const want = CODES.map((code) => ({ code, status: PROBLEMS[code].status }));
  const byCode = (a: { code: string }, b: { code: string }) => (a.code < b.code ? -1 : 1);
  t.same(parsed.sort(byCode), want.sort(byCode), 'the same codes with the same statuses');
  const expected = expectedRows();
  if (!t.same(rows, expected, 'the rows as the catalogue gives them (by status, then code)')) {
    t.comment(`the rows docs/API.md should have:\n${expected.join('\n')}`);
  }
});
