// The one logger shape of the whole server, as pino logs: structured fields first, then the message.
// It lives in the domain so the game, the services and the edge can all take one; src/log.ts makes
// the real one, and tests pass a silent or a recording one.
export interface Logger {
  info(fields: Record<string, unknown>, msg?: string): void;
  warn(fields: Record<string, unknown>, msg?: string): void;
  error(fields: Record<string, unknown>, msg?: string): void;
  /**
   * Detail for an operator who asked for it (logLevel debug). Present only then, so a call written
   * `log.debug?.({…})` builds nothing at all at the usual levels: the optional call skips its arguments.
   */
  debug?(fields: Record<string, unknown>, msg?: string): void;
  /** Whether `info` lines are written (absent: they are); the access log is skipped when they are not. */
  infoEnabled?: boolean;
}

export const silentLogger: Logger = { info() {}, warn() {}, error() {}, infoEnabled: false };
