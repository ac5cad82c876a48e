// What the bridge writes down besides its output: a transcript per game (config `transcripts`: a
// directory; one file per game, named by its id, one JSON object a line: every message to and from
// the engine about the game, and every turn played in it), and a log file (config `logFile`) that
// collects the engine's stderr, which is otherwise shown only when the engine crashes, with the
// bridge's own lines among it, each line marked with who wrote it.
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import type { EngineJournal } from './engines.js';

/** Transcripts open at once stay within the bridge's games; this bounds a misbehaving caller anyway. */
const OPEN_MAX = 256;

/** A game id as a file name: the server's ids are letters, digits, `-` and `_`; anything else is replaced. */
export function transcriptName(gameId: string): string {
  return `${gameId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 100)}.jsonl`;
}

export class Journal implements EngineJournal {
  private readonly open = new Map<string, WriteStream>();
  private readonly log: WriteStream | undefined;
  /** Files that failed, each said once: a file that cannot be written must not stop the games. */
  private readonly failed = new Set<string>();

  /** Throws when the transcript directory cannot be made (the bridge does not start). */
  constructor(
    private readonly transcriptDir: string | null,
    logFile: string | null,
    private readonly onError: (message: string) => void = () => {},
    private readonly now: () => Date = () => new Date(),
  ) {
    if (transcriptDir !== null) mkdirSync(transcriptDir, { recursive: true });
    this.log = logFile === null ? undefined : createWriteStream(logFile, { flags: 'a', mode: 0o600 });
    this.log?.on('error', (e) => this.failure(`log file ${logFile}`, e));
  }

  private failure(what: string, e: Error): void {
    if (this.failed.has(what) || this.failed.size >= 100) return; // past 100, the rest go unsaid
    this.failed.add(what);
    this.onError(`${what}: ${e.message}`);
  }

  /** A message exchanged with the engine about a game (`to`: the bridge wrote it; `from`: the engine). */
  traffic(gameId: string, direction: 'to' | 'from', message: Record<string, unknown>): void {
    this.write(gameId, { direction, message });
  }

  /** Something that happened in a game besides the engine's messages (a turn played, the end). */
  game(gameId: string, event: Record<string, unknown>): void {
    this.write(gameId, event);
  }

  /** The game is over: its transcript is closed (a later line opens it again, appending). */
  close(gameId: string): void {
    const stream = this.open.get(gameId);
    this.open.delete(gameId);
    stream?.end();
  }

  /** A line of an engine's stderr. */
  stderr(pid: number | null, line: string): void {
    this.log?.write(`${this.now().toISOString()} [engine ${pid ?? '?'}] ${line}\n`);
  }

  /** A line of the bridge's own output. */
  bridge(line: string): void {
    this.log?.write(`${this.now().toISOString()} [bridge] ${line}\n`);
  }

  /** Everything written so far reaches its file; resolves when every file is closed. */
  async closeAll(): Promise<void> {
    const streams = [...this.open.values(), ...(this.log ? [this.log] : [])];
    this.open.clear();
    await Promise.all(streams.map((s) => new Promise<void>((r) => (s.writableFinished || s.destroyed ? r() : s.end(r)))));
  }

  private write(gameId: string, entry: Record<string, unknown>): void {
    if (this.transcriptDir === null) return;
    let stream = this.open.get(gameId);
    if (!stream) {
      if (this.open.size >= OPEN_MAX) this.close(this.open.keys().next().value!);
      const path = join(this.transcriptDir, transcriptName(gameId));
      stream = createWriteStream(path, { flags: 'a' });
      stream.on('error', (e) => this.failure(`transcript ${path}`, e));
      this.open.set(gameId, stream);
    }
    stream.write(`${JSON.stringify({ time: this.now().toISOString(), ...entry })}\n`);
  }
}
