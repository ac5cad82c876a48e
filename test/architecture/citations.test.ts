// The code cites only the repository. Comments, test names and served descriptions point to
// docs/*.md (or say the rule in place), never to the team's notes that a clone does not have; and
// the numbers the route descriptions quote come from one place that agrees with config/default.json.
import t from 'tap';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MAX_CAPACITY } from '../../src/domain/ratings.js';
import { buildOpenApi } from '../../src/wire/openapi.js';
import { DOCUMENTED_DEFAULTS } from '../../src/wire/documented-defaults.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const here = 'test/architecture/';
/** The two files that must spell the forbidden names to look for them. */
const SELF = new Set([`${here}citations.test.ts`, `${here}docs.test.ts`]);

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(root, dir))) {
    const rel = `${dir}/${name}`;
    if (statSync(join(root, rel)).isDirectory()) out.push(...sources(rel));
    else if (/\.(ts|mts|mjs|js)$/.test(name)) out.push(rel);
  }
  return out;
}

/** What a citation of a file outside the repository looks like. */
const CITATIONS: [string, RegExp][] = [
  ['the contract notes', /CONTRACT(?!_VERSION)/],
  ['the rules notes', /\bRULES\b/],
  ['the service spec file', /bot-service-spec|\bspec\.md\b/],
  ['a numbered section of the notes', /§/],
  ['"the spec"', /\bthe spec\b|\bspec['’]s\b/i],
  ['the team folder', /\/work\/|\.\.\/shared\b/],
  ['a notes file named like the architecture page', /(?<!docs\/)ARCHITECTURE\.md/],
];

t.test('no source, test, bench or web file cites notes outside the repository', async (t) => {
  const files = ['src', 'test', 'bench', 'web/src', 'scripts'].flatMap(sources).filter((f) => !SELF.has(f));
  t.ok(files.length > 100, `${files.length} files scanned`);
  for (const file of files) {
    const lines = readFileSync(join(root, file), 'utf8').split('\n');
    lines.forEach((line, i) => {
      for (const [what, re] of CITATIONS) if (re.test(line)) t.fail(`${file}:${i + 1} cites ${what}: ${line.trim().slice(0, 120)}`);
    });
  }
});

t.test('the scan finds a citation when there is one', async (t) => {
  const hits = (line: string) => CITATIONS.filter(([, re]) => re.test(line)).map(([what]) => what);
  t.same(hits('// Draws (RULES.md §4): 100 halfmoves'), ['the rules notes', 'a numbered section of the notes']);
  t.same(hits('/** CONTRACT.md: Retry-After >= 1 */'), ['the contract notes']);
  t.same(hits('// as the spec groups them'), ['"the spec"']);
  t.same(hits('import { CONTRACT_VERSION } from "./route-spec.js"; // docs/ARCHITECTURE.md'), []);
});

t.test('route descriptions quote the configuration defaults the server runs with', async (t) => {
  const cfg = JSON.parse(readFileSync(join(root, 'config/default.json'), 'utf8')) as {
    limits: Record<string, unknown>; challenges: Record<string, unknown>; lobby: Record<string, unknown>;
  };
  const { maxPendingPerChallenger, maxOpenSeeksPerCaller, ...limits } = DOCUMENTED_DEFAULTS;
  for (const [k, v] of Object.entries(limits)) t.same(cfg.limits[k], v, `limits.${k}`);
  t.equal(cfg.challenges.maxPendingPerChallenger, maxPendingPerChallenger, 'challenges.maxPendingPerChallenger');
  t.equal(cfg.lobby.maxOpenSeeksPerCaller, maxOpenSeeksPerCaller, 'lobby.maxOpenSeeksPerCaller');
});

t.test('the capacity maximum is one constant, in the schemas and the descriptions', async (t) => {
  const doc = buildOpenApi('test') as { components: { schemas: Record<string, { properties: Record<string, { maximum?: number }> }> }; paths: unknown };
  const { schemas } = doc.components;
  t.equal(schemas.CapacityRequest.properties.capacity.maximum, MAX_CAPACITY, 'the request schema');
  t.equal(schemas.Capacity.properties.capacity.maximum, MAX_CAPACITY, 'the response schema');
  const text = JSON.stringify(doc.paths);
  t.match(text, `1 to ${MAX_CAPACITY}`, 'the capacity route says it');
  t.match(text, `1..${MAX_CAPACITY}`, 'and its 400 says it');
});
