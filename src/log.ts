// Structured logs with pino. Components get the small Logger shape so tests can pass a silent one.
import { pino } from 'pino';

export interface Logger {
  info(obj: object | string, msg?: string): void;
  warn(obj: object | string, msg?: string): void;
  error(obj: object | string, msg?: string): void;
  debug(obj: object | string, msg?: string): void;
}

export function createLogger(level: string): Logger {
  const p = pino({ level, base: { service: 'dicechess' } });
  const wrap =
    (fn: 'info' | 'warn' | 'error' | 'debug') =>
    (obj: object | string, msg?: string): void => {
      if (typeof obj === 'string') p[fn](obj);
      else p[fn](obj, msg);
    };
  return { info: wrap('info'), warn: wrap('warn'), error: wrap('error'), debug: wrap('debug') };
}

export const silentLogger: Logger = { info() {}, warn() {}, error() {}, debug() {} };
