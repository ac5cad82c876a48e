// Rules of the house: imports point down the flow (edge → services/actors → engine/store → domain),
// and the engine imports nothing but its own files. Wire (schemas and the encoders of every body)
// imports only domain, so the edge, the services and the game actors may all use it without a cycle.
// This test reads every source file.
import t from 'tap';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const srcDir = join(root, 'src');

/**
 * Which modules of src/ each top-level module may import (itself always allowed). An entry names a
 * top-level module (`store`), one file (`game/types`), or a folder with a trailing slash (`shard/protocol/`).
 */
const ALLOWED: Record<string, string[]> = {
  domain: [],
  engine: [],
  fair: [],
  store: ['domain'],
  game: ['domain', 'engine', 'fair', 'store', 'wire'],
  // Game shards: main's side (shard/main/), the owner's side (shard/owner/) and the messages between
  // them (shard/protocol/); only the composition roots and the cluster import it.
  shard: ['domain', 'engine', 'fair', 'store', 'game', 'wire'],
  services: ['domain', 'store', 'game/types', 'wire', 'fair'],
  wire: ['domain'],
  edge: ['domain', 'wire', 'services', 'game/types', 'store/types', 'log'],
  // The typed client stands alone (no uWS, no LMDB). Only its types.ts reads the wire's types (for the
  // web page and scripts/client-catalogue.mjs); the client itself imports its own folder only, which
  // the build of packages/client enforces (its rootDir is src/client).
  client: ['wire', 'domain'],
  // `dicechess bridge` is a bot built on the client.
  bridge: ['client', 'wire', 'domain'],
  // Running as a node of a NATS cluster: a package the composition root plugs in (src/cluster/index.ts).
  // It hosts shard owners and carries main's commands to them, shares the services' state between
  // nodes, and installs the edge's game gate, so it sits just under the composition root.
  cluster: ['domain', 'store', 'wire', 'shard', 'game', 'services', 'edge/deps', 'server-config'],
};

/** Folders inside a module with a narrower rule: what each may not import from its own module. */
const INSIDE: Record<string, string[]> = {
  // The messages and the transport seam know neither side; each side knows only the messages.
  'shard/protocol/': ['shard/main/', 'shard/owner/', 'shard/loopback-transport'],
  'shard/main/': ['shard/owner/', 'shard/loopback-transport'],
  'shard/owner/': ['shard/main/', 'shard/loopback-transport'],
};

/** Packages with one public face: outside the folder, src/ imports only the face. */
const FACES: Record<string, string> = { 'cluster/': 'cluster/index' };

/** Modules that may import node: builtins or packages; the engine may not. */
const PURE = new Set(['engine']);

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? walk(p) : p.endsWith('.ts') ? [p] : [];
  });
}

const importRe = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function moduleOf(file: string): string {
  return relative(srcDir, file).split('/')[0].replace(/\.ts$/, '');
}

t.test('every import points down the flow', async (t) => {
  const files = walk(srcDir);
  t.ok(files.length > 10, 'found the source files');
  const violations: string[] = [];
  for (const file of files) {
    const mod = moduleOf(file);
    const allowed = ALLOWED[mod];
    if (!allowed) continue; // composition root (main, cli, server-config, log) may import anything
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(importRe)) {
      const spec = m[1] ?? m[2];
      if (!spec.startsWith('.')) {
        if (PURE.has(mod)) violations.push(`${relative(root, file)} imports package ${spec}`);
        continue;
      }
      const target = relative(srcDir, resolve(dirname(file), spec)).replace(/\.js$/, '');
      const targetMod = target.split('/')[0];
      if (targetMod === mod) continue;
      const ok = allowed.some((a) => matches(target, a));
      if (!ok) violations.push(`${relative(root, file)} (${mod}) imports ${target}`);
    }
  }
  t.same(violations, [], 'no upward or sideways imports');
});

/** Whether a module path (relative to src, no extension) is the entry: a module, a file, or a folder/. */
function matches(target: string, entry: string): boolean {
  if (entry.endsWith('/')) return target.startsWith(entry);
  return entry.includes('/') ? target === entry : target.split('/')[0] === entry;
}

/** Every relative import of every source file, as [importing file, imported module], both relative to src. */
function allImports(): [string, string][] {
  const out: [string, string][] = [];
  for (const file of walk(srcDir)) {
    const from = relative(srcDir, file).replace(/\.ts$/, '');
    for (const m of readFileSync(file, 'utf8').matchAll(importRe)) {
      const spec = m[1] ?? m[2];
      if (spec.startsWith('.')) out.push([from, relative(srcDir, resolve(dirname(file), spec)).replace(/\.js$/, '')]);
    }
  }
  return out;
}

/** The imports that break the inside rules or reach past a package's face. */
function insideViolations(imports: [string, string][]): string[] {
  const out: string[] = [];
  for (const [from, target] of imports) {
    for (const [folder, banned] of Object.entries(INSIDE)) {
      if (from.startsWith(folder) && banned.some((b) => matches(target, b))) out.push(`${from} imports ${target}`);
    }
    for (const [folder, face] of Object.entries(FACES)) {
      if (!from.startsWith(folder) && target.startsWith(folder) && target !== face) out.push(`${from} imports ${target}, past ${face}`);
    }
  }
  return out;
}

t.test('the shard sides stay apart, and the cluster is imported only through its face', async (t) => {
  const imports = allImports();
  t.ok(imports.some(([from]) => from.startsWith('shard/main/')), 'read shard/main');
  t.ok(imports.some(([, target]) => target === 'cluster/index'), 'the composition root imports the cluster through its face');
  t.same(insideViolations(imports), [], 'no import across the shard sides or past the cluster face');
});

t.test('the inside checks catch a crossing and a reach past the face', async (t) => {
  t.same(insideViolations([
    ['shard/main/replica', 'shard/owner/host'],
    ['shard/owner/host', 'shard/protocol/messages'],
    ['shard/protocol/codec', 'shard/main/requests'],
    ['main', 'cluster/store/bots'],
    ['main', 'cluster/index'],
    ['cluster/node', 'cluster/store/bots'],
  ]), [
    'shard/main/replica imports shard/owner/host',
    'shard/protocol/codec imports shard/main/requests',
    'main imports cluster/store/bots, past cluster/index',
  ]);
  t.ok(matches('shard/protocol/messages', 'shard/protocol/'));
  t.notOk(matches('shard/protocolx', 'shard/protocol/'));
  t.ok(matches('game/types', 'game/types'));
  t.notOk(matches('game/view', 'game/types'));
});

t.test('the checker itself catches an upward import', async (t) => {
  const fake = `import { x } from '../edge/router.js';\nexport const y = 1;`;
  const specs = [...fake.matchAll(importRe)].map((m) => m[1] ?? m[2]);
  t.same(specs, ['../edge/router.js']);
  const target = relative(srcDir, resolve(join(srcDir, 'engine'), specs[0])).replace(/\.js$/, '');
  t.notOk(ALLOWED.engine.includes(target.split('/')[0]), 'engine may not import edge');
});

/**
 * The import cycles among the files whose path starts with `prefix` (type-only imports count: a cycle
 * of types still ties the files together), each as the files around it, from a depth-first search.
 */
function cyclesWithin(imports: [string, string][], prefix: string): string[] {
  const next = new Map<string, string[]>();
  for (const [from, target] of imports) {
    if (from.startsWith(prefix) && target.startsWith(prefix)) next.set(from, [...(next.get(from) ?? []), target]);
  }
  const done = new Set<string>();
  const path: string[] = [];
  const found: string[] = [];
  const visit = (f: string): void => {
    const at = path.indexOf(f);
    if (at >= 0) return void found.push([...path.slice(at), f].join(' → '));
    if (done.has(f)) return;
    path.push(f);
    for (const g of next.get(f) ?? []) visit(g);
    path.pop();
    done.add(f);
  };
  for (const f of [...next.keys()].sort()) visit(f);
  return found;
}

t.test('src/game has no import cycle (the command table names no actor class)', async (t) => {
  const imports = allImports();
  t.ok(imports.some(([from, target]) => from === 'game/actor' && target === 'game/commands'), 'the actor imports the table');
  t.same(cyclesWithin(imports, 'game/'), []);
});

t.test('the cycle check finds a cycle', async (t) => {
  t.same(cyclesWithin([['game/a', 'game/b'], ['game/b', 'game/c'], ['game/c', 'game/a'], ['game/c', 'domain/x']], 'game/'), ['game/a → game/b → game/c → game/a']);
  t.same(cyclesWithin([['game/a', 'game/b'], ['game/a', 'game/c'], ['game/b', 'game/c']], 'game/'), []);
});
