// A stand-in for the dicechess server, on 127.0.0.1 port 0, that answers only what a test tells it
// to: a test of the client or the bridge against a server that misbehaves (lines without end, an
// export cut in the middle, a flood of games) hands in one handler per operationId of the route
// catalogue. Anything else is a 404 problem. Every connection is ended and the server closed at
// teardown.
import http from 'node:http';
import type net from 'node:net';
import type { OperationId } from '../../src/client/index.js';
import { ROUTES } from '../../src/wire/routes.js';
import type { Teardown } from '../helpers/http.js';

export interface FakeRequest {
  op: OperationId;
  /** The path parameters, in the order of the template. */
  params: string[];
  body: unknown;
  req: http.IncomingMessage;
}

export type Handler = (r: FakeRequest, res: http.ServerResponse) => void | Promise<void>;

export interface FakeServer {
  base: string;
  /** Every request answered, in order. */
  calls: { op: OperationId; params: string[] }[];
  count(op: OperationId): number;
}

const routes = ROUTES.map((r) => ({
  op: r.operationId as OperationId,
  method: r.method,
  pattern: new RegExp(`^${r.path.replace(/\{[^}]+\}/g, '([^/]+)')}$`),
}));

export function json(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

export function problem(res: http.ServerResponse, status: number, detail: string, code = 'fake_problem'): void {
  res.writeHead(status, { 'content-type': 'application/problem+json' });
  res.end(JSON.stringify({ type: 'about:blank', title: 'Problem', status, detail, code }));
}

/** Starts an ndjson answer that stays open: write lines with the function returned. */
export function ndjson(res: http.ServerResponse): (value: unknown) => void {
  res.writeHead(200, { 'content-type': 'application/x-ndjson' });
  res.flushHeaders();
  return (value) => void res.write(`${JSON.stringify(value)}\n`);
}

export async function fakeServer(t: Teardown, handlers: Partial<Record<OperationId, Handler>>): Promise<FakeServer> {
  const calls: FakeServer['calls'] = [];
  const sockets = new Set<net.Socket>();
  const server = http.createServer(async (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = text;
    }
    for (const r of routes) {
      const m = r.method === req.method ? r.pattern.exec(path) : null;
      if (!m) continue;
      const params = m.slice(1).map(decodeURIComponent);
      calls.push({ op: r.op, params });
      const handler = handlers[r.op];
      if (!handler) return problem(res, 404, `the fake server has no ${r.op}`);
      return handler({ op: r.op, params, body, req }, res);
    }
    problem(res, 404, `no route ${req.method} ${path}`);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((r) => server.close(r));
  });
  const { port } = server.address() as net.AddressInfo;
  return { base: `http://127.0.0.1:${port}`, calls, count: (op) => calls.filter((c) => c.op === op).length };
}
