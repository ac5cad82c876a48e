// Summarises V8 .cpuprofile files (from `node --cpu-prof`, e.g. a server child started with
// BENCH_CPU_PROF=DIR): self time by part of the server (bench/profile-parts.ts: engine, the tree's
// JSON, GC, socket writes, LMDB, messaging between threads, ...), by module and by function, busiest
// first. Not a suite; a tool.
//
//   BENCH_CPU_PROF=/tmp/prof node .build/bench/bench/run.js throughput
//   node .build/bench/bench/cpu-profile.js /tmp/prof/*.cpuprofile [--top 25]
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { partOf } from './profile-parts.js';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Where a function lives: our source file, a package, Node internals, or a V8 pseudo-frame. */
function moduleOf(url: string, name: string): string {
  if (!url) return name.startsWith('(') ? name : '(native)';
  if (url.startsWith('node:')) return 'node: internals';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  const src = /\/((?:src|bench|test)\/.*)$/.exec(url);
  return src ? src[1] : url;
}

/** A sample's frames, innermost first, as [function name, url]. */
function stackOf(node: ProfileNode, parent: Map<number, ProfileNode>): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (let n: ProfileNode | undefined = node; n; n = parent.get(n.id)) out.push([n.callFrame.functionName, n.callFrame.url]);
  return out;
}

function summarise(file: string, top: number): string {
  const p = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, ProfileNode>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n);
  const partSelf = new Map<string, number>();
  const fnSelf = new Map<string, number>();
  const modSelf = new Map<string, number>();
  let total = 0;
  for (let i = 0; i < p.samples.length; i++) {
    const node = byId.get(p.samples[i]);
    const us = p.timeDeltas[i] ?? 0;
    if (!node || us <= 0) continue;
    total += us;
    const { functionName, url, lineNumber } = node.callFrame;
    const name = functionName || '(anonymous)';
    const mod = moduleOf(url, name);
    const key = url ? `${name}  ${mod}:${lineNumber + 1}` : name;
    fnSelf.set(key, (fnSelf.get(key) ?? 0) + us);
    modSelf.set(mod, (modSelf.get(mod) ?? 0) + us);
    const part = partOf(stackOf(node, parent));
    partSelf.set(part, (partSelf.get(part) ?? 0) + us);
  }
  const idle = fnSelf.get('(idle)') ?? 0;
  const busy = total - idle;
  const fmt = (m: Map<string, number>) =>
    [...m.entries()]
      .filter(([k]) => k !== '(idle)')
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, us]) => `  ${(us / 1000).toFixed(0).padStart(7)} ms ${((us / busy) * 100).toFixed(1).padStart(5)}%  ${k}`)
      .join('\n');
  return [
    `${basename(file)}: ${(total / 1e6).toFixed(1)} s sampled, busy ${(busy / 1e6).toFixed(1)} s (${((busy / total) * 100).toFixed(0)}%)`,
    'self time by part (% of busy; a builtin or node internal counts for the caller that owns it):',
    fmt(partSelf),
    'self time by module (% of busy):',
    fmt(modSelf),
    'self time by function (% of busy):',
    fmt(fnSelf),
  ].join('\n');
}

const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string', default: '25' } } });
if (positionals.length === 0) {
  console.error('usage: cpu-profile <file.cpuprofile> ... [--top N]');
  process.exit(2);
}
for (const f of positionals) console.log(`${summarise(f, Number(values.top))}\n`);
