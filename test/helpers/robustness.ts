// Plumbing for the robustness tests: a request that survives anything the server may do (a stream
// that never ends, a connection cut after a 413, a hang), and the invariants every answer must keep
// (docs/API.md, "Errors and limits"): never a 5xx, every error a problem JSON whose `status` is the HTTP status,
// 401 with WWW-Authenticate, 429 with Retry-After in whole seconds, 405 with Allow.
import http from 'node:http';
import { tryJson } from './http.js';

export interface Sent {
  method: string;
  /** Path and query, exactly as put on the request line. */
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

export interface Answer {
  /** 0 when the connection ended without an answer. */
  status: number;
  headers: Record<string, string>;
  text: string;
  /** The answer was an ndjson stream; only its head was read. */
  streamed: boolean;
  /** Set when the connection failed before an answer arrived. */
  error?: string;
}

/** Sends one request on its own connection. Never rejects: a hang of `timeoutMs` is an answer too. */
export function send(port: number, req: Sent, timeoutMs = 10_000): Promise<Answer> {
  return new Promise((resolve) => {
    let done = false;
    const finish = (a: Answer): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(a);
    };
    // Always a well-framed message: node sends a GET or DELETE body without any length otherwise.
    const body = req.body === undefined ? undefined : Buffer.isBuffer(req.body) ? req.body : Buffer.from(req.body, 'utf8');
    const headers = body === undefined ? req.headers : { ...req.headers, 'content-length': String(body.length) };
    const r = http.request(
      { host: '127.0.0.1', port, method: req.method, path: req.path, headers, agent: false },
      (res) => {
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
        const status = res.statusCode ?? 0;
        if ((headers['content-type'] ?? '').startsWith('application/x-ndjson')) {
          res.destroy();
          r.destroy();
          finish({ status, headers, text: '', streamed: true });
          return;
        }
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', () => finish({ status, headers, text: Buffer.concat(chunks).toString('utf8'), streamed: false }));
        res.on('end', () => finish({ status, headers, text: Buffer.concat(chunks).toString('utf8'), streamed: false }));
      },
    );
    const timer = setTimeout(() => {
      r.destroy();
      finish({ status: 0, headers: {}, text: '', streamed: false, error: `no answer within ${timeoutMs} ms` });
    }, timeoutMs);
    r.on('error', (e) => finish({ status: 0, headers: {}, text: '', streamed: false, error: String(e) }));
    r.end(body);
  });
}

const CODE = /^[a-z][a-z0-9_]*$/;

/** Every way an answer breaks the error contract (empty when it keeps it). */
export function violations(req: Sent, a: Answer, opts: { mayCut?: boolean } = {}): string[] {
  const out: string[] = [];
  if (a.status === 0) {
    if (!opts.mayCut) out.push(`no answer (${a.error})`);
    return out;
  }
  // With webhooks disabled every webhook route is 503 (the one 5xx the contract has).
  const webhooksOff = a.status === 503 && req.path.split('?')[0] === '/bot/webhook' && /"code":"webhooks_disabled"/.test(a.text);
  if (a.status >= 500 && !(webhooksOff || (a.status === 503 && req.method === 'HEAD' && req.path.startsWith('/bot/webhook')))) out.push(`a ${a.status}`);
  const ct = a.headers['content-type'] ?? '';
  const head = req.method === 'HEAD';
  if (a.status === 401 && a.headers['www-authenticate'] !== 'Bearer realm="dicechess"') out.push('401 without WWW-Authenticate: Bearer realm="dicechess"');
  if (a.status === 429 && !/^[1-9][0-9]*$/.test(a.headers['retry-after'] ?? '')) out.push(`429 with Retry-After ${JSON.stringify(a.headers['retry-after'])}`);
  if (a.status === 405 && !a.headers.allow) out.push('405 without Allow');
  if (a.status >= 400) {
    const verdict = a.status === 409 && ct.startsWith('application/json') && /\/move$/.test(req.path.split('?')[0]);
    if (verdict) {
      const v = parse(a.text) as { applied?: unknown; version?: unknown; reason?: unknown } | undefined;
      if (!v || v.applied !== false || v.version !== null || !['not your turn', 'illegal turn', 'game is over'].includes(v.reason as string)) {
        out.push(`a 409 verdict that is not {applied:false,version:null,reason}: ${a.text.slice(0, 200)}`);
      }
    } else {
      if (!ct.startsWith('application/problem+json')) out.push(`error with content type ${JSON.stringify(ct)}`);
      if (head) {
        if (a.text !== '') out.push('a HEAD answer with a body');
      } else {
        const p = parse(a.text) as Record<string, unknown> | undefined;
        if (!p || typeof p !== 'object') out.push(`error body is not JSON: ${JSON.stringify(a.text.slice(0, 200))}`);
        else {
          if (typeof p.type !== 'string') out.push('problem without type');
          if (typeof p.title !== 'string') out.push('problem without title');
          if (p.status !== a.status) out.push(`problem status ${String(p.status)} ≠ HTTP ${a.status}`);
          if (typeof p.detail !== 'string') out.push('problem without detail');
          if (typeof p.code !== 'string' || !CODE.test(p.code)) out.push(`problem code ${JSON.stringify(p.code)}`);
        }
      }
    }
  } else if (!head && !a.streamed && a.status !== 204 && ct.startsWith('application/json') && parse(a.text) === undefined) {
    out.push(`a ${a.status} whose JSON body does not parse`);
  }
  return out;
}

/** The JSON value of an answer's text, or undefined when it is not JSON. */
export const parse = tryJson;

/** A short description of a request for failure messages. */
export function describe(req: Sent, a?: Answer): string {
  const body = req.body === undefined ? '' : ` body(${req.body.length})=${JSON.stringify(String(req.body).slice(0, 120))}`;
  const ans = a ? ` → ${a.status} ${a.headers['content-type'] ?? ''} ${a.text.slice(0, 200)}${a.error ? ` (${a.error})` : ''}` : '';
  return `${req.method} ${req.path.slice(0, 200)} ${JSON.stringify(req.headers).slice(0, 300)}${body}${ans}`;
}

/** Strings header values may carry (node refuses control characters other than tab). */
export const headerSafe = (s: string): string => s.replace(/[^\t\x20-\x7e\x80-\xff]/g, '');

/** Percent-encodes any string, lone surrogates included. */
export function pct(s: string): string {
  return encodeURIComponent(s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD'));
}
