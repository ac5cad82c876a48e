#!/usr/bin/env node
// The `dicechess` command: `serve` starts the server; `bridge` plays through any engine program; the
// engine subcommands (moves, perft, roll, commit) answer rules questions from the shell. The work is
// in src/cli/main.ts.
import { runCli } from './cli/main.js';

process.exitCode = await runCli(process.argv.slice(2));
