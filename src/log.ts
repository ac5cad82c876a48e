// Structured logs with pino, behind the server's one Logger shape (src/domain/log.ts).
import { pino, type DestinationStream } from 'pino';
import type { Logger } from './domain/log.js';
import type { GameLifecycleListener } from './game/types.js';

/**
 * A logger at `level`, writing JSON lines to stdout, or to `destination` (tests capture the lines).
 * `debug` exists only when debug lines are written (see Logger.debug).
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const p = destination === undefined ? pino({ level, base: { service: 'dicechess' } }) : pino({ level, base: { service: 'dicechess' } }, destination);
  return {
    info: (fields, msg) => p.info(fields, msg),
    warn: (fields, msg) => p.warn(fields, msg),
    error: (fields, msg) => p.error(fields, msg),
    debug: p.isLevelEnabled('debug') ? (fields, msg) => p.debug(fields, msg) : undefined,
    infoEnabled: p.isLevelEnabled('info'),
  };
}

/**
 * Debug lines for each game started and ended (on main, for every game, whichever shard runs it);
 * undefined unless debug lines are written, so that the games carry no extra listener otherwise.
 */
export function gameLogLines(log: Logger): GameLifecycleListener | undefined {
  const debug = log.debug;
  if (debug === undefined) return undefined;
  return {
    gameStarted: (g) => debug({ gameId: g.id, white: g.white.id, black: g.black.id, rated: g.rated }, 'game started'),
    gameEnded: (g, rec) => {
      const over = 'Ended' in rec.status ? rec.status.Ended.over : undefined;
      debug({ gameId: g.id, termination: over?.termination, result: over ? Object.keys(over.result)[0] : undefined }, 'game ended');
    },
  };
}
