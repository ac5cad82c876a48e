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

/** Which top-level modules of src/ each module may import (itself always allowed). */
const ALLOWED: Record<string, string[]> = {
  domain: [],
  engine: [],
  fair: [],
  store: ['domain'],
  game: ['domain', 'engine', 'fair', 'store', 'wire'],
  // Game shards: main's mirrors and the shard host; only the composition roots import it.
  shard: ['domain', 'engine', 'fair', 'store', 'game', 'wire'],
  services: ['domain', 'store', 'game/types', 'wire', 'fair'],
  wire: ['domain'],
  edge: ['domain', 'wire', 'services', 'game/types', 'store/types', 'log'],
  // The typed client stands alone (no uWS, no LMDB): the wire schemas and domain types only.
  client: ['wire', 'domain'],
  // `dicechess bridge` is a bot built on the client.
  bridge: ['client', 'wire', 'domain'],
  // Running on a NATS cluster: leases, the game log, the shared identity store. It sits beside the
  // stores and under the shard transport seam, so it sees only the layers below it.
  cluster: ['domain', 'store', 'wire', 'shard/transport', 'shard/protocol'],
};
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
      const ok = allowed.some((a) => (a.includes('/') ? target === a : targetMod === a));
      if (!ok) violations.push(`${relative(root, file)} (${mod}) imports ${target}`);
    }
  }
  t.same(violations, [], 'no upward or sideways imports');
});

t.test('the checker itself catches an upward import', async (t) => {
  const fake = `import { x } from '../edge/router.js';\nexport const y = 1;`;
  const specs = [...fake.matchAll(importRe)].map((m) => m[1] ?? m[2]);
  t.same(specs, ['../edge/router.js']);
  const target = relative(srcDir, resolve(join(srcDir, 'engine'), specs[0])).replace(/\.js$/, '');
  t.notOk(ALLOWED.engine.includes(target.split('/')[0]), 'engine may not import edge');
});
