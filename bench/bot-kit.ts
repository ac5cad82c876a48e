// Small pieces the benchmark bots share (bench/load-driver.ts, bench/ladder-driver.ts).
export type Tree = { [uci: string]: Tree };

/** A uniformly random root-to-leaf path of a legal-move tree: how the benchmark bots choose a turn. */
export function randomPath(tree: Tree): string[] {
  const path: string[] = [];
  for (let keys = Object.keys(tree); keys.length; keys = Object.keys(tree)) {
    const k = keys[Math.floor(Math.random() * keys.length)];
    path.push(k);
    tree = tree[k];
  }
  return path;
}

/** A 'data' handler for an ndjson response (utf8 chunks) that calls onLine per non-empty line. */
export function lineSplitter(onLine: (line: string) => void): (chunk: string) => void {
  let buf = '';
  return (chunk) => {
    buf += chunk;
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      if (line) onLine(line);
    }
  };
}
