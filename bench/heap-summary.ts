// What holds a V8 heap: reads a .heapsnapshot (from `node --heapsnapshot-signal=SIGUSR2`,
// v8.writeHeapSnapshot or the inspector), computes the dominator tree and prints the objects that
// retain the most (each with the chain of objects that dominate it) and the heap by constructor.
//
//   node dist/bench/heap-summary.js FILE.heapsnapshot [top=20]
//
// Retained size is what freeing an object would free: its own size plus that of everything only
// reachable through it. Weak edges do not retain. Dominators by the iterative algorithm of Cooper,
// Harvey and Kennedy ("A Simple, Fast Dominance Algorithm") over a reverse postorder.
import { readFileSync } from 'node:fs';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; edge_fields: string[]; node_types: [string[]]; edge_types: [string[]] }; node_count: number };
  nodes: number[];
  edges: number[];
  strings: string[];
}

export interface HeapSummary {
  totalBytes: number;
  /** Largest retainers: [label, retained bytes, self bytes, chain of dominators (nearest first)]. */
  top: { label: string; retained: number; self: number; heldBy: string[] }[];
  /** Self bytes and count by constructor or type, largest first. */
  byName: { name: string; self: number; count: number }[];
}

export function summarize(snap: Snapshot, topN = 20): HeapSummary {
  const { meta } = snap.snapshot;
  const nf = meta.node_fields.length;
  const ef = meta.edge_fields.length;
  const fType = meta.node_fields.indexOf('type');
  const fName = meta.node_fields.indexOf('name');
  const fSelf = meta.node_fields.indexOf('self_size');
  const fEdges = meta.node_fields.indexOf('edge_count');
  const eType = meta.edge_fields.indexOf('type');
  const eTo = meta.edge_fields.indexOf('to_node');
  const nodeTypes = meta.node_types[0];
  const weak = meta.edge_types[0].indexOf('weak');
  const n = snap.nodes.length / nf;
  const firstEdge = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) firstEdge[i + 1] = firstEdge[i] + snap.nodes[i * nf + fEdges];
  const target = (e: number): number => snap.edges[e * ef + eTo] / nf;
  const strong = (e: number): boolean => snap.edges[e * ef + eType] !== weak;

  // Postorder from the root (node 0) by an explicit stack.
  const post = new Int32Array(n).fill(-1);
  const order = new Int32Array(n);
  const seen = new Uint8Array(n);
  const stack = new Int32Array(n);
  const cursor = new Int32Array(n);
  let sp = 0;
  let count = 0;
  stack[sp++] = 0;
  seen[0] = 1;
  cursor[0] = firstEdge[0];
  while (sp > 0) {
    const v = stack[sp - 1];
    if (cursor[v] < firstEdge[v + 1]) {
      const e = cursor[v]++;
      if (!strong(e)) continue;
      const w = target(e);
      if (!seen[w]) {
        seen[w] = 1;
        cursor[w] = firstEdge[w];
        stack[sp++] = w;
      }
    } else {
      sp--;
      post[v] = count;
      order[count++] = v;
    }
  }
  // Predecessors (strong edges between reached nodes), as lists of postorder numbers.
  const predCount = new Int32Array(count + 1);
  for (let v = 0; v < n; v++) {
    if (post[v] < 0) continue;
    for (let e = firstEdge[v]; e < firstEdge[v + 1]; e++) if (strong(e) && post[target(e)] >= 0) predCount[post[target(e)] + 1]++;
  }
  for (let i = 0; i < count; i++) predCount[i + 1] += predCount[i];
  const preds = new Int32Array(predCount[count]);
  const fill = predCount.slice(0, count);
  for (let v = 0; v < n; v++) {
    if (post[v] < 0) continue;
    for (let e = firstEdge[v]; e < firstEdge[v + 1]; e++) if (strong(e) && post[target(e)] >= 0) preds[fill[post[target(e)]]++] = post[v];
  }
  const root = count - 1;
  const idom = new Int32Array(count).fill(-1);
  idom[root] = root;
  const intersect = (a: number, b: number): number => {
    while (a !== b) {
      while (a < b) a = idom[a];
      while (b < a) b = idom[b];
    }
    return a;
  };
  for (let changed = true; changed;) {
    changed = false;
    for (let b = root - 1; b >= 0; b--) {
      let d = -1;
      for (let k = predCount[b]; k < predCount[b + 1]; k++) {
        const p = preds[k];
        if (idom[p] < 0) continue;
        d = d < 0 ? p : intersect(p, d);
      }
      if (d >= 0 && idom[b] !== d) {
        idom[b] = d;
        changed = true;
      }
    }
  }
  const self = (b: number): number => snap.nodes[order[b] * nf + fSelf];
  const retained = new Float64Array(count);
  for (let b = 0; b < count; b++) retained[b] += self(b);
  for (let b = 0; b < root; b++) if (idom[b] >= 0) retained[idom[b]] += retained[b];
  const label = (b: number): string => {
    const i = order[b] * nf;
    const name = snap.strings[snap.nodes[i + fName]];
    return `${nodeTypes[snap.nodes[i + fType]]} ${name.length > 60 ? `${name.slice(0, 57)}...` : name}`;
  };
  const synthetic = nodeTypes.indexOf('synthetic');
  const candidates: number[] = [];
  for (let b = 0; b < root; b++) if (snap.nodes[order[b] * nf + fType] !== synthetic) candidates.push(b);
  candidates.sort((a, b) => retained[b] - retained[a]);
  const top = candidates.slice(0, topN).map((b) => {
    const heldBy: string[] = [];
    for (let d = idom[b]; d !== root && d >= 0 && heldBy.length < 4; d = idom[d]) heldBy.push(label(d));
    return { label: label(b), retained: retained[b], self: self(b), heldBy };
  });
  const names = new Map<string, { self: number; count: number }>();
  for (let b = 0; b < root; b++) {
    const i = order[b] * nf;
    const type = nodeTypes[snap.nodes[i + fType]];
    const key = type === 'object' ? snap.strings[snap.nodes[i + fName]] : `(${type})`;
    const entry = names.get(key) ?? { self: 0, count: 0 };
    entry.self += self(b);
    entry.count++;
    names.set(key, entry);
  }
  const byName = [...names].map(([name, v]) => ({ name, ...v })).sort((a, b) => b.self - a.self).slice(0, topN);
  return { totalBytes: retained[root], top, byName };
}

function main(): void {
  const [file, topArg] = process.argv.slice(2);
  if (!file) {
    console.error('usage: node dist/bench/heap-summary.js FILE.heapsnapshot [top]');
    process.exitCode = 2;
    return;
  }
  const s = summarize(JSON.parse(readFileSync(file, 'utf8')) as Snapshot, Number(topArg ?? 20));
  const mb = (b: number): string => (b / 1024 / 1024).toFixed(2);
  console.log(`reachable heap: ${mb(s.totalBytes)} MB\n\nlargest retainers (MB retained / self; held by, nearest first):`);
  for (const t of s.top) console.log(`  ${mb(t.retained).padStart(8)} ${mb(t.self).padStart(7)}  ${t.label}${t.heldBy.length ? `  <- ${t.heldBy.join(' <- ')}` : ''}`);
  console.log('\nself size by constructor (MB, count):');
  for (const c of s.byName) console.log(`  ${mb(c.self).padStart(8)} ${String(c.count).padStart(8)}  ${c.name}`);
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/^.*\//, ''))) main();
