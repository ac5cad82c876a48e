// Maximum matching in a general graph (Edmonds' blossom algorithm), for the Swiss pairing: whether the
// players still to be paired in a round can all be paired without a rematch, and one way to do it.
// Graphs here are small (an event has at most a few dozen players), so the plain O(V³) form serves.

/** Whether two vertices (0 … n−1) may be matched. */
export type Adjacent = (a: number, b: number) => boolean;

/**
 * A maximum matching of the graph on `n` vertices: mate[v] is v's partner, or −1. Starts from a
 * greedy matching and grows it along augmenting paths, shrinking odd cycles (blossoms) as it meets them.
 */
export function maximumMatching(n: number, adjacent: Adjacent): Int32Array {
  const nbrs: number[][] = Array.from({ length: n }, () => []);
  for (let a = 0; a < n; a++) for (let b = a + 1; b < n; b++) if (adjacent(a, b)) nbrs[a].push(b), nbrs[b].push(a);
  const mate = new Int32Array(n).fill(-1);
  for (let a = 0; a < n; a++) {
    if (mate[a] !== -1) continue;
    const b = nbrs[a].find((x) => mate[x] === -1);
    if (b !== undefined) (mate[a] = b), (mate[b] = a);
  }
  const parent = new Int32Array(n);
  const base = new Int32Array(n);
  const inTree = new Uint8Array(n);
  const inBlossom = new Uint8Array(n);
  const onPath = new Uint8Array(n);

  // The base of the innermost blossom holding both a and b's paths to the root (their meeting point).
  const meet = (a: number, b: number): number => {
    onPath.fill(0);
    for (;;) {
      a = base[a];
      onPath[a] = 1;
      if (mate[a] === -1) break;
      a = parent[mate[a]];
    }
    for (;;) {
      b = base[b];
      if (onPath[b]) return b;
      b = parent[mate[b]];
    }
  };
  // Marks the blossom's vertices from v up to its base, pointing their parents back across the cycle.
  const mark = (v: number, top: number, child: number): void => {
    while (base[v] !== top) {
      inBlossom[base[v]] = 1;
      inBlossom[base[mate[v]]] = 1;
      parent[v] = child;
      child = mate[v];
      v = parent[mate[v]];
    }
  };
  // An unmatched vertex reachable from root by an alternating path, or −1.
  const search = (root: number): number => {
    parent.fill(-1);
    inTree.fill(0);
    for (let i = 0; i < n; i++) base[i] = i;
    inTree[root] = 1;
    const queue = [root];
    for (let head = 0; head < queue.length; head++) {
      const v = queue[head];
      for (const u of nbrs[v]) {
        if (base[v] === base[u] || mate[v] === u) continue;
        if (u === root || (mate[u] !== -1 && parent[mate[u]] !== -1)) {
          // An odd cycle: shrink it to its base, and every vertex in it becomes an outer vertex.
          const top = meet(v, u);
          inBlossom.fill(0);
          mark(v, top, u);
          mark(u, top, v);
          for (let i = 0; i < n; i++) {
            if (!inBlossom[base[i]]) continue;
            base[i] = top;
            if (!inTree[i]) (inTree[i] = 1), queue.push(i);
          }
        } else if (parent[u] === -1) {
          parent[u] = v;
          if (mate[u] === -1) return u;
          inTree[mate[u]] = 1;
          queue.push(mate[u]);
        }
      }
    }
    return -1;
  };
  for (let root = 0; root < n; root++) {
    if (mate[root] !== -1) continue;
    let v = search(root);
    // Flip the path's edges: each vertex on it takes its parent as partner.
    while (v !== -1) {
      const pv = parent[v];
      const next = mate[pv];
      mate[v] = pv;
      mate[pv] = v;
      v = next;
    }
  }
  return mate;
}

/** Pairs covering every one of `players` (ids), each two `ok`, or null when none exists. */
export function perfectPairs(players: readonly number[], ok: (a: number, b: number) => boolean): [number, number][] | null {
  if (players.length % 2 === 1) return null;
  const mate = maximumMatching(players.length, (i, j) => ok(players[i], players[j]));
  const out: [number, number][] = [];
  for (let i = 0; i < players.length; i++) {
    if (mate[i] === -1) return null;
    if (i < mate[i]) out.push([players[i], players[mate[i]]]);
  }
  return out;
}
