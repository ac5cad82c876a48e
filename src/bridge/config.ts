// The bridge's configuration: one JSON file with every setting (each has a default, printed by
// `dicechess bridge --print-config`), then the command-line flags over it, then the engine command
// after `--`. Parsed with zod, so a wrong field is named in a one-line error.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { TimeControl } from '../wire/schemas.js';
import type { TimeControl as TimeControlValue } from '../domain/types.js';
import { TOURNAMENT_FORMATS } from '../domain/tournaments.js';
import { printableJson } from './text.js';

const TIME_CONTROL_KINDS = ['Unlimited', 'SuddenDeath', 'Fischer', 'PerMove'] as const;
const OPPONENT_KINDS = ['registered', 'anonymous', 'house', 'guest'] as const;
export type OpponentKind = (typeof OPPONENT_KINDS)[number];

const BOT_REF = /^[a-z0-9][a-z0-9-]*\/[a-z0-9][a-z0-9-]*$/;
const botRef = () => z.string().regex(BOT_REF, { error: 'must be team/name' });
/** An opponent in the allow and block lists: `team/name`, or `team/*` for every bot of a team. */
const OPPONENT_REF = /^[a-z0-9][a-z0-9-]*\/([a-z0-9][a-z0-9-]*|\*)$/;
const opponentRef = () => z.string().regex(OPPONENT_REF, { error: 'must be team/name or team/*' });

export const BridgeConfig = z.strictObject({
  url: z.string().default('http://127.0.0.1:8080'),
  /** A token to play with; when null, the token file, then `register`, then an anonymous mint. */
  token: z.string().nullable().default(null),
  /** `team/name` to register (once; the token is then kept in `tokenFile`). */
  register: botRef().nullable().default(null),
  /** Label of an anonymous identity (the server adds a random suffix). */
  anonName: z.string().default('bridge'),
  /** Where the token is kept (mode 0600 from its creation; never written through a symbolic link). */
  tokenFile: z.string().default('dicechess-token.json'),
  /**
   * How long to wait at start for a server that does not answer yet (retrying with back-off, 0.5 s
   * doubling to 10 s); null: as long as it takes (a bridge started with its server, or before it).
   */
  waitForServerSeconds: z.number().min(0).nullable().default(null),
  engine: z
    .strictObject({
      /** The program and its arguments; usually given after `--` on the command line. */
      command: z.array(z.string()).default([]),
      /** Working directory of the engine; null: the bridge's own. */
      cwd: z.string().nullable().default(null),
      helloTimeoutSeconds: z.number().positive().default(10),
      /** Longest think per turn; the clock may allow less. */
      turnTimeoutSeconds: z.number().positive().default(30),
      /** When the clock has less than this left and the engine has failed, the bridge resigns. */
      resignMarginSeconds: z.number().min(0).default(1),
      /** First wait before restarting a failed engine; doubles up to 10 s while it keeps failing. */
      restartDelaySeconds: z.number().min(0).default(0.5),
      /** Sent to the engine after its hello as `{"type":"options","options":…}` (null: no such message). */
      options: z.record(z.string(), z.unknown()).nullable().default(null),
      /** Taken off the time the engine is told it has: the move's way to the server. */
      moveOverheadMs: z.int().min(0).max(60_000).default(0),
    })
    .prefault({}),
  /** Opponents by name: a blocked one is never played; with `allow`, only those named are. */
  opponents: z
    .strictObject({
      allow: z.array(opponentRef()).max(1000).nullable().default(null),
      block: z.array(opponentRef()).max(1000).default([]),
    })
    .prefault({}),
  /** Event invitations: answered by the bridge when enabled; accepted when they pass these and `accept`. */
  invitations: z
    .strictObject({
      enabled: z.boolean().default(true),
      formats: z.array(z.enum(TOURNAMENT_FORMATS)).default([...TOURNAMENT_FORMATS]),
      /** Time control kinds (null: those of `accept.timeControls`); the bounds of `accept` hold too. */
      timeControls: z.array(z.enum(TIME_CONTROL_KINDS)).nullable().default(null),
      rated: z.boolean().default(true),
      timeOdds: z.boolean().default(true),
    })
    .prefault({}),
  /** A directory: one transcript per game, named by its id (null: none kept). */
  transcripts: z.string().nullable().default(null),
  /** A file collecting the engine's stderr and the bridge's own lines, each marked (null: none). */
  logFile: z.string().nullable().default(null),
  /** Games played at once, whatever started them; a game announced over it is resigned. */
  maxGames: z.int().min(1).max(64).default(4),
  /** Stop after this many games (null: run until interrupted). */
  games: z.int().min(1).nullable().default(null),
  /** Which challenges are accepted; all others are declined. */
  accept: z
    .strictObject({
      enabled: z.boolean().default(true),
      timeControls: z.array(z.enum(TIME_CONTROL_KINDS)).default([...TIME_CONTROL_KINDS]),
      minInitialSeconds: z.int().min(0).default(0),
      maxInitialSeconds: z.int().min(0).default(86_400),
      maxIncrementSeconds: z.int().min(0).default(600),
      minSecondsPerMove: z.int().min(0).default(0),
      opponents: z.array(z.enum(OPPONENT_KINDS)).default([...OPPONENT_KINDS]),
    })
    .prefault({}),
  /** Bots to challenge in turn (`team/name`), whenever a game slot is free. */
  challenge: z
    .strictObject({
      opponents: z.array(botRef()).default([]),
      timeControl: TimeControl.default({ Fischer: { initialSeconds: 60, incrementSeconds: 1 } }),
    })
    .prefault({}),
  /** Public seeks kept open while a game slot is free (at most 3). */
  seeks: z
    .strictObject({
      count: z.int().min(0).max(3).default(0),
      timeControl: TimeControl.default({ Fischer: { initialSeconds: 60, incrementSeconds: 1 } }),
    })
    .prefault({}),
  /** The rating ladder (registered bots): join at start with this capacity. */
  ladder: z
    .strictObject({
      join: z.boolean().default(false),
      capacity: z.int().min(1).max(32).default(1),
      /**
       * Join even when the server took the bot off the ladder (LadderRemoved); otherwise such a bot
       * stays off until started with this (or --rejoin-ladder).
       */
      rejoin: z.boolean().default(false),
    })
    .prefault({}),
  /** Hosts (`team/name`) whose events the server enters this bot into unasked; set at start (null: left as the server has it). */
  acceptEventsFrom: z.array(botRef()).max(50).nullable().default(null),
  /** With acceptEventsFrom: their rated events too. */
  acceptRatedEvents: z.boolean().default(false),
  /** `progress`: a line per event with a summary; `quiet`: errors only; `json`: one JSON object per event. */
  output: z.enum(['progress', 'quiet', 'json']).default('progress'),
}).refine((c) => !c.ladder.join || c.ladder.capacity <= c.maxGames, {
  // The ladder may start `capacity` games at once; any of them over maxGames would be resigned.
  path: ['ladder', 'capacity'],
  error: 'more ladder games at once than maxGames allows; raise --max-games to at least the capacity',
});
export type BridgeConfig = z.output<typeof BridgeConfig>;

export const BRIDGE_USAGE = `usage: dicechess bridge [--url URL] [--token TOKEN | --register TEAM/NAME] [--config FILE]
                        [options] -- COMMAND [ARGS...]

Plays games on a dicechess server with any program that speaks the engine protocol
(docs/BRIDGE.md): the bridge holds the streams, accepts or makes challenges, and asks the
engine for each turn.

  --url URL            the server (default http://127.0.0.1:8080)
  --token TOKEN        play as this token
  --register TEAM/NAME register this identity once, keep its token in the token file
  --token-file FILE    where tokens are kept, by server and bot (default dicechess-token.json, mode 0600)
  --wait-for-server S  give up after S seconds if the server does not answer (default: keep waiting)
  --config FILE        a JSON config file (print every default with --print-config)
  --challenge T/N      challenge this bot whenever a game slot is free (repeatable)
  --tc SPEC            time control of challenges and seeks: unlimited, sudden:S,
                       fischer:S+I or permove:S
  --seeks N            keep N public seeks open (0..3)
  --ladder             join the rating ladder (registered bots)
  --capacity N         ladder games at once (1..32)
  --accept-events-from T/N  let this host enter the bot into its events unasked (repeatable)
  --accept-rated-events     and into its rated events too
  --rejoin-ladder      join the ladder even after the server took the bot off it
  --allow T/N          play only these opponents (repeatable; T/* for a team)
  --block T/N          never play this opponent (repeatable; T/* for a team)
  --move-overhead MS   taken off the time the engine is told it has (default 0)
  --transcripts DIR    keep a transcript of each game in DIR
  --log-file FILE      append the engine's stderr and the bridge's lines to FILE
  --max-games N        games at once (default 4)
  --games N            stop after N games
  --no-accept          decline every challenge
  --cwd DIR            working directory of the engine
  --turn-timeout S     longest think per turn, seconds (default 30)
  --quiet              print errors only
  --json               print one JSON object per event
  --print-config       print the configuration in effect (with every default; the token
                       redacted) and exit
  --help               this text`;

/**
 * A token as it may be shown: its prefix (`dcb_`) and last four characters, or nothing at all of a
 * short one (four characters of it would give away too much).
 */
export function redactToken(token: string): string {
  if (token.length < 16) return '<redacted>';
  const prefix = /^[a-z]+_/.exec(token)?.[0] ?? '';
  return `${prefix}…${token.slice(-4)}`;
}

/** The configuration as `--print-config` shows it: a config file, with the token redacted. */
export function printableConfig(config: BridgeConfig): string {
  return printableJson({ ...config, token: config.token === null ? null : redactToken(config.token) }, 2);
}

/** `fischer:60+1` and friends, or a JSON time control. */
export function parseTimeControl(spec: string): TimeControlValue | string {
  const s = spec.trim();
  let value: unknown;
  if (s.startsWith('{')) {
    try {
      value = JSON.parse(s);
    } catch {
      return `--tc: not JSON: ${s}`;
    }
  } else {
    const m = /^(unlimited|sudden|fischer|permove)(?::(\d+)(?:\+(\d+))?)?$/i.exec(s);
    if (!m) return `--tc: expected unlimited, sudden:S, fischer:S+I or permove:S, got ${s}`;
    const [, kind, a, b] = m;
    const n = (x: string | undefined) => (x === undefined ? undefined : Number(x));
    switch (kind!.toLowerCase()) {
      case 'unlimited':
        value = { Unlimited: {} };
        break;
      case 'sudden':
        value = { SuddenDeath: { initialSeconds: n(a) } };
        break;
      case 'fischer':
        value = { Fischer: { initialSeconds: n(a), incrementSeconds: n(b) ?? 0 } };
        break;
      default:
        value = { PerMove: { secondsPerMove: n(a) } };
    }
  }
  const r = TimeControl.safeParse(value);
  return r.success ? (r.data as TimeControlValue) : `--tc ${s}: ${r.error.issues[0]?.message ?? 'invalid'}`;
}

export interface BridgeArgs {
  config: BridgeConfig;
  help: boolean;
  printConfig: boolean;
}

/** Flags over the config file over the defaults; an error message instead when anything is wrong. */
export function parseBridgeArgs(argv: string[], readFile: (path: string) => string = (p) => readFileSync(p, 'utf8')): BridgeArgs | string {
  const dash = argv.indexOf('--');
  const flags = dash >= 0 ? argv.slice(0, dash) : argv;
  const command = dash >= 0 ? argv.slice(dash + 1) : [];
  let file: Record<string, unknown> = {};
  const over: Record<string, unknown> = {};
  const nested = (key: string): Record<string, unknown> => (over[key] ??= {}) as Record<string, unknown>;
  let help = false;
  let printConfig = false;
  const challenges: string[] = [];
  const eventHosts: string[] = [];
  const allow: string[] = [];
  const block: string[] = [];
  let tc: TimeControlValue | undefined;
  for (let i = 0; i < flags.length; i++) {
    const flag = flags[i]!;
    const value = () => {
      const v = flags[++i];
      if (v === undefined) throw new Error(`${flag} needs a value`);
      return v;
    };
    const int = () => {
      const v = value();
      if (!/^\d+$/.test(v)) throw new Error(`${flag} needs a whole number, got ${v}`);
      return Number(v);
    };
    try {
      switch (flag) {
        case '--help':
        case '-h':
          help = true;
          break;
        case '--print-config':
          printConfig = true;
          break;
        case '--config': {
          const path = value();
          let text: string;
          try {
            text = readFile(path);
          } catch (e) {
            return `--config ${path}: ${(e as Error).message}`;
          }
          try {
            file = JSON.parse(text) as Record<string, unknown>;
          } catch (e) {
            return `--config ${path}: not JSON (${(e as Error).message})`;
          }
          break;
        }
        case '--url':
          over.url = value();
          break;
        case '--token':
          over.token = value();
          break;
        case '--register':
          over.register = value();
          break;
        case '--token-file':
          over.tokenFile = value();
          break;
        case '--wait-for-server':
          over.waitForServerSeconds = int();
          break;
        case '--challenge':
          challenges.push(value());
          break;
        case '--tc': {
          const parsed = parseTimeControl(value());
          if (typeof parsed === 'string') return parsed;
          tc = parsed;
          break;
        }
        case '--seeks':
          nested('seeks').count = int();
          break;
        case '--ladder':
          nested('ladder').join = true;
          break;
        case '--capacity':
          nested('ladder').capacity = int();
          break;
        case '--accept-events-from':
          eventHosts.push(value());
          break;
        case '--accept-rated-events':
          over.acceptRatedEvents = true;
          break;
        case '--rejoin-ladder':
          nested('ladder').rejoin = true;
          break;
        case '--allow':
          allow.push(value());
          break;
        case '--block':
          block.push(value());
          break;
        case '--move-overhead':
          nested('engine').moveOverheadMs = int();
          break;
        case '--transcripts':
          over.transcripts = value();
          break;
        case '--log-file':
          over.logFile = value();
          break;
        case '--max-games':
          over.maxGames = int();
          break;
        case '--games':
          over.games = int();
          break;
        case '--no-accept':
          nested('accept').enabled = false;
          break;
        case '--cwd':
          nested('engine').cwd = value();
          break;
        case '--turn-timeout':
          nested('engine').turnTimeoutSeconds = Number(value());
          break;
        case '--quiet':
          over.output = 'quiet';
          break;
        case '--json':
          over.output = 'json';
          break;
        default:
          return `unknown option ${flag}`;
      }
    } catch (e) {
      return (e as Error).message;
    }
  }
  if (challenges.length) nested('challenge').opponents = challenges;
  if (eventHosts.length) over.acceptEventsFrom = eventHosts;
  if (allow.length) nested('opponents').allow = allow;
  if (block.length) nested('opponents').block = block;
  if (tc) {
    nested('challenge').timeControl = tc;
    nested('seeks').timeControl = tc;
  }
  if (command.length) nested('engine').command = command;
  const merged: Record<string, unknown> = { ...file };
  for (const [k, v] of Object.entries(over)) {
    const base = merged[k];
    merged[k] = v && typeof v === 'object' && !Array.isArray(v) && base && typeof base === 'object' ? { ...base, ...v } : v;
  }
  const r = BridgeConfig.safeParse(merged);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    return `config: ${issue.path.join('.') || '(top)'}: ${issue.message}`;
  }
  return { config: r.data, help, printConfig };
}
