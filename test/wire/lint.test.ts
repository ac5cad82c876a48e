// The published documents, linted by the ecosystem's own tools: /openapi.json with Redocly's
// recommended rules (redocly.yaml at the repository root, known exceptions in
// .redocly.lint-ignore.yaml) and /asyncapi.json with the AsyncAPI parser's validation. A new route
// or event that the tools would flag fails here.
import t from 'tap';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { lintFromString, loadConfig, type NormalizedProblem } from '@redocly/openapi-core';
import { Parser } from '@asyncapi/parser';
import { asyncApiJson, openApiJson } from '../../src/wire/openapi.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
/** The name the ignore file gives the served document (a path beside redocly.yaml). */
const OPENAPI_REF = join(root, 'openapi.json');

async function lintOpenApi(source: string): Promise<NormalizedProblem[]> {
  const config = await loadConfig({ configPath: join(root, 'redocly.yaml') });
  return lintFromString({ source, absoluteRef: OPENAPI_REF, config });
}

const show = (p: NormalizedProblem): string => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? '?'}`;

t.test('/openapi.json passes Redocly’s recommended lint; the one known exception is the ambiguous pair', async (t) => {
  const problems = await lintOpenApi(openApiJson('lint'));
  t.same(problems.filter((p) => !p.ignored).map(show), [], 'no error or warning');
  t.same(
    problems.filter((p) => p.ignored).map((p) => [p.ruleId, p.location[0]?.pointer]),
    [['no-ambiguous-paths', '#/paths/~1bot~1game~1stream~1{id}']],
    'only the documented exception is ignored',
  );
});

t.test('a route added with lint problems fails the lint', async (t) => {
  const doc = JSON.parse(openApiJson('lint')) as { paths: Record<string, unknown> };
  // An operation as a careless new route might be written: no security, no error answers, no id.
  doc.paths['/bot/game/{id}/draw'] = {
    post: { summary: 'Offer a draw.', parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }], responses: { 200: { description: 'Offered.' } } },
  };
  const found = (await lintOpenApi(JSON.stringify(doc))).filter((p) => !p.ignored).map((p) => p.ruleId);
  t.ok(found.includes('security-defined'), `flagged: ${found.join(', ')}`);
  t.ok(found.includes('operation-4xx-response'), 'no 4xx answer is flagged too');
});

/** Diagnostics of the AsyncAPI parser that are known and harmless: it suggests the newest version. */
const ASYNCAPI_KNOWN = new Set(['asyncapi-latest-version']);
// The parser's severities: 0 error, 1 warning, 2 information, 3 hint.
const ERROR = 0;
const WARNING = 1;

t.test('/asyncapi.json validates with the AsyncAPI parser: no error, no warning', async (t) => {
  const diagnostics = await new Parser().validate(asyncApiJson('lint'));
  const serious = diagnostics.filter((d) => d.severity === ERROR || d.severity === WARNING);
  t.same(serious.map((d) => `${d.code}: ${d.message} at ${d.path.join('.')}`), [], 'nothing serious');
  const other = diagnostics.filter((d) => !ASYNCAPI_KNOWN.has(String(d.code)) && !serious.includes(d));
  t.same(other.map((d) => `${d.code}: ${d.message}`), [], 'no other remark than the known ones');
});

t.test('a broken AsyncAPI document fails the validation', async (t) => {
  const doc = JSON.parse(asyncApiJson('lint')) as { channels: Record<string, { messages?: Record<string, unknown> }> };
  const [name] = Object.keys(doc.channels);
  doc.channels[name].messages = { Broken: { $ref: '#/components/messages/DoesNotExist' } };
  const diagnostics = await new Parser().validate(JSON.stringify(doc));
  t.ok(diagnostics.some((d) => d.severity === ERROR), 'an unresolvable message is an error');
});
