// Pieces the load drivers share (bench/load-driver.ts, bench/webhook-driver.ts, bench/ladder-driver.ts).
import http from 'node:http';

export type Tree = { [uci: string]: Tree };

/** A uniformly random root-to-leaf path of a legal-move tree ([] for the empty tree, a forced pass). */
export function randomPath(tree: Tree): string[] {
  const path: string[] = [];
  for (let keys = Object.keys(tree); keys.length; keys = Object.keys(tree)) {
    const k = keys[Math.floor(Math.random() * keys.length)];
    path.push(k);
    tree = tree[k];
  }
  return path;
}

export interface Answer {
  status: number;
  text: string;
}

/** A JSON request function against one server, on a shared keep-alive agent, each call bounded in time. */
export function requester(base: URL, agent: http.Agent, timeoutMs: number) {
  return (method: string, path: string, token?: string, body?: unknown): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? '' : JSON.stringify(body);
      const headers: Record<string, string> = { 'content-length': String(Buffer.byteLength(payload)) };
      if (token) headers.authorization = `Bearer ${token}`;
      if (body !== undefined) headers['content-type'] = 'application/json';
      const req = http.request({ host: base.hostname, port: base.port, method, path, headers, agent }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', reject);
      });
      req.setTimeout(timeoutMs, () => req.destroy(new Error(`${method} ${path}: no answer in ${timeoutMs} ms`)));
      req.on('error', reject);
      req.end(payload);
    });
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
