#!/usr/bin/env node
// The `dicechess` command: `serve` starts the server; the engine subcommands (moves, perft, roll,
// commit) answer rules questions from the shell.
import { engineCommand } from './cli/engine.js';
import { nativeBindingProblem } from './edge/binding.js';
import { loadConfig } from './config.js';

const USAGE = `usage:
  dicechess serve [--host H] [--port P] [--data DIR] [--memory] [--config FILE]
  dicechess moves "<dfen with dice>"
  dicechess perft "<fen>" <die 1..6> <depth>
  dicechess roll <server-seed-hex> <white-seed> <black-seed> <ply>
  dicechess commit <server-seed-hex>`;

function parseServeFlags(args: string[]): { file?: string; overrides: Record<string, unknown> } | string {
  const overrides: Record<string, unknown> = {};
  let file: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const val = (): string | undefined => args[++i];
    switch (a) {
      case '--host': overrides.host = val(); break;
      case '--port': {
        const v = Number(val());
        if (!Number.isInteger(v)) return '--port needs an integer';
        overrides.port = v;
        break;
      }
      case '--data': overrides.dataDir = val(); overrides.memory = false; break;
      case '--memory': overrides.memory = true; break;
      case '--config': file = val(); break;
      default: return `unknown flag ${a}`;
    }
    if (Object.values(overrides).includes(undefined)) return `${a} needs a value`;
  }
  return { file, overrides };
}

async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  if (cmd === 'serve') {
    const flags = parseServeFlags(rest);
    if (typeof flags === 'string') {
      console.error(`${flags}\n${USAGE}`);
      return 2;
    }
    const config = loadConfig({ file: flags.file, env: process.env, overrides: flags.overrides });
    if (!config.ok) {
      console.error(config.error);
      return 2;
    }
    // Before main.js loads the binding, which would otherwise fall back to a JavaScript imitation.
    const problem = nativeBindingProblem();
    if (problem !== undefined) {
      console.error(problem);
      return 1;
    }
    const { serveUntilSignal } = await import('./main.js');
    const code = await serveUntilSignal(config.value);
    // Everything is closed and flushed; idle keep-alive connections that this uWS build cannot
    // close would otherwise hold the process until their idle timeout.
    process.exit(code);
  }
  const code = engineCommand(argv, (s) => process.stdout.write(s.endsWith('\n') ? s : s + '\n'), (s) =>
    process.stderr.write(s.endsWith('\n') ? s : s + '\n'),
  );
  if (code !== null) return code;
  console.error(USAGE);
  return 2;
}

process.exitCode = await main(process.argv.slice(2));
