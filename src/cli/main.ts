// The `dicechess` command itself (src/cli.ts only calls it): `serve` starts the server; `bridge` plays
// through any engine program; the engine subcommands (moves, perft, roll, commit) answer rules
// questions from the shell. Help and usage lines go through an injectable io, so tests can run the
// command in their own process.
import { engineCommand, ENGINE_HELP } from './engine.js';
import { parseServeFlags, serveConfig, SERVE_USAGE } from './serve-flags.js';
import { nativeBindingProblem } from './native-binding.js';

const USAGE = `usage:
  dicechess --help
  dicechess serve [--host H] [--port P] [--data DIR] [--memory] [--config FILE]
  dicechess bridge --url URL [--token T | --register TEAM/NAME] [options] -- COMMAND [ARGS...]
  dicechess moves "<dfen with dice>"
  dicechess perft "<fen>" <die 1..6> <depth>
  dicechess roll <server-seed-hex> <white-seed> <black-seed> <ply>
  dicechess commit <server-seed-hex>
  dicechess verify-event FILE
  dicechess reissue-token TEAM/NAME [--data DIR]
  dicechess backup [--data DIR] [--compact] TARGET
  dicechess <command> --help`;

/** Where the command's own lines go: the console, or a test's capture. */
export interface CliIo {
  log(text: string): void;
  error(text: string): void;
}

/**
 * Runs `dicechess ARGV` and returns its exit code. `serve` and `bridge` end the process themselves once
 * they have run; help, usage mistakes and the engine commands only write through `io`.
 */
export async function runCli(argv: string[], io: CliIo = console): Promise<number> {
  const [cmd, ...rest] = argv;
  if (cmd === undefined || cmd === '--help' || cmd === '-h' || cmd === 'help') {
    // Asked for help: the answer goes to stdout and is not an error. With no command at all it is.
    const text = cmd === undefined ? USAGE : `${USAGE}\n\ncommands:\n  serve   starts the bot service\n  bridge  plays games on a server through an engine program (docs/BRIDGE.md)\n  backup  copies a data directory consistently, while its server runs or not\n${ENGINE_HELP}`;
    if (cmd === undefined) io.error(text);
    else io.log(text);
    return cmd === undefined ? 2 : 0;
  }
  if (cmd === 'bridge') {
    const { bridgeCommand } = await import('../bridge/cli.js');
    const code = await bridgeCommand(rest);
    // Keep-alive connections of fetch would otherwise hold the process for their idle timeout.
    process.exit(code);
  }
  if (cmd === 'serve') {
    const flags = parseServeFlags(rest);
    if (typeof flags === 'string') {
      io.error(`${flags}\n${SERVE_USAGE}`);
      return 2;
    }
    if (flags.help) {
      io.log(SERVE_USAGE);
      return 0;
    }
    const config = serveConfig(flags, process.env);
    if (!config.ok) {
      io.error(config.error);
      return 2;
    }
    // Before main.js loads the binding, which would otherwise fall back to a JavaScript imitation.
    const problem = nativeBindingProblem();
    if (problem !== undefined) {
      io.error(problem);
      return 1;
    }
    const { serveUntilSignal } = await import('../serve.js');
    const code = await serveUntilSignal(config.value);
    // Everything is closed and flushed; idle keep-alive connections that this uWS build cannot
    // close would otherwise hold the process until their idle timeout.
    process.exit(code);
  }
  if (cmd === 'reissue-token') {
    const { reissueTokenCommand } = await import('./reissue-token.js');
    return reissueTokenCommand(rest, io);
  }
  if (cmd === 'backup') {
    const { backupCommand } = await import('./backup.js');
    return backupCommand(rest, process.env, { out: (l) => io.log(l), err: (l) => io.error(l) });
  }
  if (cmd === 'verify-event') {
    const { verifyEvent, VERIFY_USAGE } = await import('./verify-tournament.js');
    if (rest.length !== 1 || rest[0] === '--help') {
      if (rest[0] === '--help') io.log(VERIFY_USAGE);
      else io.error(VERIFY_USAGE);
      return rest[0] === '--help' ? 0 : 2;
    }
    const tty = process.stderr.isTTY;
    return verifyEvent(rest[0], {
      out: (line) => process.stdout.write(`${line}\n`),
      err: (line) => process.stderr.write(`${line}\n`),
      progress: (done, total) => process.stderr.write(tty ? `\rverified ${done}/${total} games` + (done === total ? '\n' : '') : `verified ${done}/${total} games\n`),
    });
  }
  const line = (s: string): string => (s.endsWith('\n') ? s.slice(0, -1) : s);
  const code = engineCommand(argv, (s) => io.log(line(s)), (s) => io.error(line(s)));
  if (code !== null) return code;
  io.error(`unknown command ${cmd}\n${USAGE}`);
  return 2;
}

