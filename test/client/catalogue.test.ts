// The client's generated files (src/client/generated/) against the catalogue they are written from:
// up to date, a grouped method for every route with its route's summary as its TSDoc, and the old
// flat names deprecated and the very same functions.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import { AREAS, Client } from '../../src/client/index.js';
import { ROUTES } from '../../src/wire/routes.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

t.test('src/client/generated is what scripts/client-catalogue.mjs writes from the catalogue now', async (t) => {
  const { generate } = (await import(pathToFileURL(join(root, 'scripts/client-catalogue.mjs')).href)) as {
    generate(): Promise<Record<string, string>>;
  };
  for (const [path, text] of Object.entries(await generate())) {
    t.ok(readFileSync(join(root, path), 'utf8') === text, `${path} is current (else: node scripts/client-catalogue.mjs --write)`);
  }
});

/** The TSDoc of each member of each interface of a file: interface name → member name → text. */
function docsOf(path: string): Map<string, Map<string, string>> {
  const file = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.ES2022, true);
  const out = new Map<string, Map<string, string>>();
  for (const st of file.statements) {
    if (!ts.isInterfaceDeclaration(st)) continue;
    const members = new Map<string, string>();
    for (const m of st.members) {
      const text = ts.getJSDocCommentsAndTags(m).map((d) => d.getText()).join('\n');
      members.set((m.name as ts.Identifier).text, text.replace(/^\/\*\*\s*|\s*\*\/$/g, ''));
    }
    out.set(st.name.text, members);
  }
  return out;
}

t.test('every route has one grouped method, documented with its summary', async (t) => {
  const docs = docsOf(join(root, 'src/client/generated/methods.ts'));
  const grouped = new Map<string, string>();
  for (const [area, methods] of Object.entries(AREAS)) {
    const members = docs.get(`${area[0]!.toUpperCase()}${area.slice(1)}Methods`);
    t.ok(members, `the ${area} area has its interface`);
    for (const [name, id] of Object.entries(methods)) {
      t.notOk(grouped.has(id), `${id} has one grouped name`);
      grouped.set(id, `${area}.${name}`);
      const route = ROUTES.find((r) => r.operationId === id);
      t.equal(members?.get(name), route?.summary, `${area}.${name}: its TSDoc is the summary of ${id}`);
    }
    t.same([...(members?.keys() ?? [])].sort(), Object.keys(methods).sort(), `the ${area} interface has exactly the area's methods`);
  }
  t.same(ROUTES.map((r) => r.operationId).filter((id) => !grouped.has(id)), [], 'every catalogue route has a grouped method');

  const flat = docs.get('FlatMethods')!;
  const client = new Client({ url: 'http://127.0.0.1:9' }) as unknown as Record<string, Record<string, unknown>>;
  for (const r of ROUTES) {
    const [area, name] = grouped.get(r.operationId)!.split('.') as [string, string];
    t.equal(flat.get(r.operationId), `@deprecated Use \`client.${area}.${name}(…)\`, the same call.`, `${r.operationId} is deprecated in favour of ${area}.${name}`);
    t.equal(client[r.operationId], client[area]![name], `client.${r.operationId} is the same function as client.${area}.${name}`);
    t.type(client[r.operationId], 'function');
  }
});
