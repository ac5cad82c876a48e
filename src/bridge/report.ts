// What the bridge tells its operator. `progress`: one readable line per event, and after each game
// or error the tally (games running, results so far, the last error). `json`: one JSON object a line
// on stdout, for machines. `quiet`: errors only. Listeners see every event too (the tests do).
// Much of what is printed comes from the server or the engine, so every line is made printable
// (text.ts) on its way out, whatever the event.
import { printable, printableJson } from './text.js';

export type BridgeEvent =
  | { event: 'ready'; id: string; engine: string; concurrent: boolean }
  | { event: 'gameStarted'; gameId: string; seat: 'White' | 'Black' | null; opponent: string | null }
  | { event: 'gameEnded'; gameId: string; seat: 'White' | 'Black' | null; result: 'win' | 'loss' | 'draw'; termination: string }
  | { event: 'challengeAccepted' | 'challengeDeclined'; challengeId: string; opponent: string; why?: string }
  | { event: 'challengeSent'; challengeId: string; opponent: string }
  | { event: 'seekOpened'; seekId: string }
  /** An event invitation answered by the bridge (or, `invitation: accepted`, taken as it came). */
  | { event: 'invitationAccepted' | 'invitationDeclined'; eventId: string; name: string; host: string; why: string }
  /** The server took the bot off the ladder: the bridge does not rejoin on its own. */
  | { event: 'ladderRemoved'; reason: string; rejoin: string }
  | { event: 'forcedPass'; gameId: string; version: number }
  | { event: 'resigned'; gameId: string; why: string }
  /** A game the server announced that the bridge will not play (over a limit, or not one it wants). */
  | { event: 'gameRefused'; gameId: string; why: string; resigned: boolean; detail?: string }
  | { event: 'engineFailed'; gameId: string | null; kind: string; message: string }
  | { event: 'engineStarted'; pid: number | null; name: string }
  | { event: 'engineLog'; message: string }
  | { event: 'reconnecting'; stream: string; status: number; detail: string; waitMs: number }
  /** At start: the server did not answer (or not yet usefully); the bridge tries again after waitMs. */
  | { event: 'waitingForServer'; url: string; what: string; status: number; detail: string; attempt: number; waitMs: number }
  | { event: 'error'; message: string }
  | { event: 'stopped'; played: number };

export type Output = 'progress' | 'quiet' | 'json';

export interface Tally {
  running: number;
  wins: number;
  draws: number;
  losses: number;
  lastError: string | null;
}

const ERRORS = new Set(['engineFailed', 'error', 'resigned', 'gameRefused', 'ladderRemoved']);

export class Reporter {
  readonly tally: Tally = { running: 0, wins: 0, draws: 0, losses: 0, lastError: null };
  private readonly listeners: ((e: BridgeEvent) => void)[] = [];
  private readonly tees: ((line: string) => void)[] = [];

  constructor(
    private readonly output: Output,
    private readonly out: (line: string) => void = (l) => process.stdout.write(`${l}\n`),
    private readonly err: (line: string) => void = (l) => process.stderr.write(`${l}\n`),
    private readonly now: () => Date = () => new Date(),
  ) {}

  listen(fn: (e: BridgeEvent) => void): void {
    this.listeners.push(fn);
  }

  /** Every event as its readable line, whatever the output mode (the log file's copy). */
  tee(fn: (line: string) => void): void {
    this.tees.push(fn);
  }

  emit(e: BridgeEvent): void {
    if (e.event === 'gameEnded') {
      if (e.result === 'win') this.tally.wins++;
      else if (e.result === 'draw') this.tally.draws++;
      else this.tally.losses++;
    }
    if (ERRORS.has(e.event)) this.tally.lastError = describe(e);
    for (const fn of this.listeners) fn(e);
    if (this.tees.length) {
      const line = printable(describe(e));
      for (const fn of this.tees) fn(line);
    }
    if (this.output === 'json') {
      this.out(printableJson({ time: this.now().toISOString(), ...e }));
      return;
    }
    const isError = ERRORS.has(e.event);
    if (this.output === 'quiet' && !isError) return;
    const line = describe(e);
    const summary = e.event === 'gameEnded' || e.event === 'gameStarted' || isError ? `  [${this.summary()}]` : '';
    (isError ? this.err : this.out)(printable(`${line}${summary}`));
  }

  summary(): string {
    const t = this.tally;
    const played = t.wins + t.draws + t.losses;
    const last = t.lastError ? `; last error: ${t.lastError}` : '';
    return `${t.running} running; ${played} played: ${t.wins} won, ${t.draws} drawn, ${t.losses} lost${last}`;
  }
}

function describe(e: BridgeEvent): string {
  switch (e.event) {
    case 'ready':
      return `ready as ${e.id}, engine ${e.engine}${e.concurrent ? ' (one process for all games)' : ''}`;
    case 'gameStarted':
      return `game ${e.gameId} started${e.seat ? ` as ${e.seat}` : ''}${e.opponent ? ` against ${e.opponent}` : ''}`;
    case 'gameEnded':
      return `game ${e.gameId} ended: ${e.result} (${e.termination})`;
    case 'challengeAccepted':
      return `accepted challenge ${e.challengeId} from ${e.opponent}`;
    case 'challengeDeclined':
      return `declined challenge ${e.challengeId} from ${e.opponent}${e.why ? `: ${e.why}` : ''}`;
    case 'challengeSent':
      return `challenged ${e.opponent} (${e.challengeId})`;
    case 'seekOpened':
      return `opened seek ${e.seekId}`;
    case 'invitationAccepted':
      return `accepted event ${e.eventId} (${e.name}) from ${e.host}: ${e.why}`;
    case 'invitationDeclined':
      return `declined event ${e.eventId} (${e.name}) from ${e.host}: ${e.why}`;
    case 'ladderRemoved':
      return `taken off the ladder: ${e.reason}; not rejoining (${e.rejoin})`;
    case 'forcedPass':
      return `game ${e.gameId}: forced pass at version ${e.version}`;
    case 'resigned':
      return `game ${e.gameId}: resigned (${e.why})`;
    case 'gameRefused':
      return `game ${e.gameId} not played: ${e.why}; ${e.resigned ? 'resigned it' : `not resigned${e.detail ? ` (${e.detail})` : ''}`}`;
    case 'engineFailed':
      return `engine ${e.kind}${e.gameId ? ` in game ${e.gameId}` : ''}: ${e.message}; restarting it`;
    case 'engineLog':
      return e.message;
    case 'engineStarted':
      return `engine ${e.name} started (pid ${e.pid ?? '?'})`;
    case 'reconnecting':
      return `${e.stream} stream: ${e.status || 'no answer'} ${e.detail}; reconnecting in ${e.waitMs} ms`;
    case 'waitingForServer':
      return `waiting for ${e.url} (${e.what}: ${e.status || 'no answer'} ${e.detail}); trying again in ${e.waitMs / 1000} s (attempt ${e.attempt})`;
    case 'error':
      return `error: ${e.message}`;
    case 'stopped':
      return `stopped after ${e.played} games`;
  }
}
