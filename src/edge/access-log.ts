// One line per request at info, written once its response is over (answered, stream ended, or the
// client gone), so that logging adds nothing before the answer leaves. The router calls it only when
// info lines are written at all: at a quieter level a request costs the access log nothing.
import type { Logger } from '../domain/log.js';
import type { Responder } from './responder.js';

/** What the router hands over when a response is over; `startMs` is performance.now() at its start. */
export type AccessLog = (method: string, pattern: string, res: Responder, startMs: number) => void;

export function accessLog(log: Pick<Logger, 'info'>): AccessLog {
  return (method, pattern, res, startMs) => {
    const subject = res.subject;
    // One object, the line itself: pino serialises it as it comes.
    log.info(
      {
        method,
        route: pattern,
        status: res.status,
        ms: Math.round((performance.now() - startMs) * 10) / 10,
        ip: subject?.ip,
        identity: subject?.identity,
        aborted: res.aborted || undefined,
      },
      'request',
    );
  };
}
