// The scripted engine of the bridge tests (test/bridge/scripted_engine.py): it appends every message
// it reads to a record file, which the tests read back to see what the engine was told.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './bridge.js';

/** `[...SCRIPTED_ENGINE, MODE, RECORD_FILE]`; the modes are in the script's docstring. */
export const SCRIPTED_ENGINE = ['python3', join(ROOT, 'test/bridge/scripted_engine.py')];

/** A line of the record: when the engine read it (ms since the epoch) and the message. */
export type Recorded = { at: number; msg: Record<string, any> };

/** A temporary directory, removed at teardown. */
export function scratch(t: { teardown(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'dicechess-scripted-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export const readRecord = (file: string): Recorded[] =>
  existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Recorded) : [];
