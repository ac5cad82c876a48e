// The engine's CLI subcommands: `moves`, `perft`, `roll`, `commit`. src/cli.ts dispatches here and
// falls through to its own subcommands when this returns null.

import { legalTree, parseDfen, perft, treeToJson } from '../engine/index.js';
import { commitOf, hexToSeed, rollDice } from '../fair/index.js';

const USAGE: Record<string, string> = {
  moves: 'usage: moves "<dfen with dice>"',
  perft: 'usage: perft "<fen>" <die 1..6> <depth>',
  roll: 'usage: roll <server-seed-hex> <white-seed> <black-seed> <ply>',
  commit: 'usage: commit <server-seed-hex>',
};

/** What each command does, for --help. */
const ABOUT: Record<string, string> = {
  moves: 'Prints the legal-move tree of a position with its roll pending, as JSON (a DFEN is a FEN whose\n7th field is the dice as piece letters, e.g. NBK; {} is a forced pass).',
  perft: 'Counts single-die perft nodes: each level is one micro-move with that die, sides alternating.',
  roll: "Recomputes the dice of one ply of a finished game from its revealed seed and both players' seeds.",
  commit: 'Prints the commitment (SHA-256) a game published for a server seed, to check a reveal.',
};

/** One line per engine command, for the top-level --help. */
export const ENGINE_HELP = [
  '  moves   prints the legal-move tree of a roll',
  '  perft   counts single-die move-generation nodes',
  "  roll    recomputes a game's dice from its revealed seeds",
  '  commit  prints the commitment a game published for its seed',
].join('\n');

/** Parse a non-negative decimal integer argument (digits only), or null. */
function natural(text: string | undefined, max: number): number | null {
  if (text === undefined || !/^[0-9]+$/.test(text)) return null;
  const v = Number(text);
  return v <= max ? v : null;
}

export function engineCommand(argv: string[], out: (s: string) => void, errOut: (s: string) => void): number | null {
  const [cmd, ...args] = argv;
  if (cmd === undefined || !Object.hasOwn(USAGE, cmd)) return null;
  const usage = (why: string): number => {
    errOut(`${cmd}: ${why}\n${USAGE[cmd]}`);
    return 2;
  };
  if (args[0] === '--help' || args[0] === '-h') {
    // No argument of any command can start with "-", so this is never a real argument.
    out(`${USAGE[cmd]}\n\n${ABOUT[cmd]}`);
    return 0;
  }
  switch (cmd) {
    case 'moves': {
      if (args.length !== 1) return usage('expected one DFEN argument');
      const pos = parseDfen(args[0]);
      if (!pos.ok) return usage(`bad DFEN: ${pos.error.code}: ${pos.error.message}`);
      if (pos.value.dice.length === 0) return usage('no dice pending: the DFEN needs a seventh field with the roll (e.g. NBK)');
      out(treeToJson(legalTree(pos.value).bytes));
      return 0;
    }
    case 'perft': {
      if (args.length !== 3) return usage('expected a FEN, a die and a depth');
      const pos = parseDfen(args[0]);
      if (!pos.ok) return usage(`bad FEN: ${pos.error.code}: ${pos.error.message}`);
      const die = natural(args[1], 6);
      if (die === null || die < 1) return usage(`die must be 1..6, got "${args[1]}"`);
      const depth = natural(args[2], 64);
      if (depth === null) return usage(`depth must be a non-negative integer, got "${args[2]}"`);
      out(String(perft(pos.value, die, depth)));
      return 0;
    }
    case 'roll': {
      if (args.length !== 4) return usage('expected a seed, two client seeds and a ply');
      const seed = hexToSeed(args[0]);
      if (seed === null) return usage('server seed must be 64 hex digits (32 bytes)');
      const ply = natural(args[3], Number.MAX_SAFE_INTEGER);
      if (ply === null) return usage(`ply must be a non-negative integer, got "${args[3]}"`);
      out(JSON.stringify(rollDice(seed, args[1], args[2], ply)));
      return 0;
    }
    case 'commit': {
      if (args.length !== 1) return usage('expected one seed');
      const seed = hexToSeed(args[0]);
      if (seed === null) return usage('server seed must be 64 hex digits (32 bytes)');
      out(commitOf(seed));
      return 0;
    }
  }
  return null;
}
