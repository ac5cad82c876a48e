// A real webhook endpoint on 127.0.0.1 for tests: checks the signature of every delivery it gets
// (recomputed here with node:crypto, independently of the server's code, once the secret is known),
// records what came, and answers as the test says.
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Teardown } from './http.js';

export interface Delivery {
  body: string;
  json: Record<string, any>;
  headers: http.IncomingHttpHeaders;
  /** Null when the secret was not known yet (the handshake). */
  signatureOk: boolean | null;
  path: string;
  /** Remote port: tells connections apart (keep-alive). */
  remotePort: number;
}

/** What to answer: a status and a JSON value or raw text; 'hang' never answers (until closed). */
export type Answer = { status: number; json?: unknown; text?: string; headers?: Record<string, string> } | 'hang';

export interface Receiver {
  url: string;
  port: number;
  deliveries: Delivery[];
  /** Every delivery with a bad or missing signature (must stay empty). */
  badSignatures: string[];
  setSecret(secret: string): void;
  /** How the handshake is answered; by default the nonce is echoed. */
  onVerification: (d: Delivery) => Answer;
  /** Every other delivery is answered through `onTurn`. */
  onTurn: (d: Delivery) => Answer | Promise<Answer>;
  /** Resolves at the next delivery of type yourTurn. */
  nextTurn(): Promise<Delivery>;
  connections(): number;
  /** Stops listening and drops every connection (the endpoint becomes unreachable). */
  close(): Promise<void>;
}

/** HMAC-SHA256 over `<timestamp>.<body>`, keyed by the secret's UTF-8 bytes, as lowercase hex. */
export function expectedSignature(secret: string, timestamp: string, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
}

export async function startReceiver(t: Teardown, opts: { path?: string } = {}): Promise<Receiver> {
  let secret: string | null = null;
  let sockets = 0;
  const waiters: ((d: Delivery) => void)[] = [];
  const hanging = new Set<http.ServerResponse>();
  const rx: Receiver = {
    url: '',
    port: 0,
    deliveries: [],
    badSignatures: [],
    setSecret: (s) => void (secret = s),
    onVerification: (d) => ({ status: 200, json: { nonce: d.json.nonce } }),
    onTurn: () => ({ status: 200, json: { moves: [] } }),
    nextTurn: () => new Promise((resolve) => waiters.push(resolve)),
    connections: () => sockets,
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const h = req.headers;
      let signatureOk: boolean | null = null;
      if (secret !== null) {
        const ts = String(h['x-game-timestamp'] ?? '');
        const want = Buffer.from(expectedSignature(secret, ts, body));
        const got = Buffer.from(String(h['x-game-signature'] ?? ''));
        signatureOk =
          got.length === want.length && timingSafeEqual(got, want) &&
          h['x-dicechess-signature'] === h['x-game-signature'] && h['x-dicechess-timestamp'] === ts &&
          /^\d+$/.test(ts);
      }
      const d: Delivery = { body, json: JSON.parse(body), headers: h, signatureOk, path: req.url ?? '', remotePort: req.socket.remotePort ?? 0 };
      rx.deliveries.push(d);
      if (signatureOk === false) rx.badSignatures.push(body.slice(0, 80));
      if (d.json.type !== 'verification') for (const w of waiters.splice(0)) w(d);
      const answer = d.json.type === 'verification' ? rx.onVerification(d) : rx.onTurn(d);
      void Promise.resolve(answer).then((a) => {
        if (a === 'hang') {
          hanging.add(res);
          return;
        }
        const text = a.text ?? JSON.stringify(a.json ?? {});
        res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers }).end(text);
      });
    });
  });
  server.on('connection', () => sockets++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  rx.port = (server.address() as AddressInfo).port;
  rx.url = `http://127.0.0.1:${rx.port}${opts.path ?? '/hook'}`;
  t.teardown(() => rx.close());
  return rx;
}
