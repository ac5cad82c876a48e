// Structured logs with pino, behind the server's one Logger shape (src/domain/log.ts).
import { pino } from 'pino';
import type { Logger } from './domain/log.js';

export function createLogger(level: string): Logger {
  const p = pino({ level, base: { service: 'dicechess' } });
  return {
    info: (fields, msg) => p.info(fields, msg),
    warn: (fields, msg) => p.warn(fields, msg),
    error: (fields, msg) => p.error(fields, msg),
  };
}
