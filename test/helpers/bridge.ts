// Runs a Bridge in the test process against a real server (in-process or a child), with its events
// gathered, its token file in a temporary directory, and a bounded stop at teardown.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Bridge, type BridgeHooks } from '../../src/bridge/bridge.js';
import { parseBridgeArgs } from '../../src/bridge/config.js';
import { Reporter, type BridgeEvent } from '../../src/bridge/report.js';
import type { Teardown } from './http.js';

/** The repository (tests run from dist/test/bridge). */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
export const RANDOM_ENGINE = ['python3', join(ROOT, 'examples/random_engine.py')];
export const GREEDY_ENGINE = ['python3', join(ROOT, 'examples/greedy_engine.py')];
export const FAULTY_ENGINE = ['python3', join(ROOT, 'test/bridge/faulty_engine.py')];

export interface RunningBridge {
  bridge: Bridge;
  tokenFile: string;
  events: BridgeEvent[];
  /** Everything the reporter printed (progress mode), errors included. */
  lines: string[];
  /** Resolves with the first event (already seen or to come) that matches; bounded. */
  waitFor(pred: (e: BridgeEvent) => boolean, what: string, ms?: number): Promise<BridgeEvent>;
  /** Resolves when the bridge has stopped; bounded. */
  done(ms?: number): Promise<void>;
}

const bounded = <T>(p: Promise<T>, ms: number, what: string): Promise<T> =>
  new Promise<T>((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`timed out waiting for ${what}`)), ms);
    p.then(
      (v) => (clearTimeout(timer), res(v)),
      (e) => (clearTimeout(timer), rej(e)),
    );
  });

/** Starts `dicechess bridge <args>` in this process (the same flag parser), ready when this resolves. */
export async function startBridge(t: Teardown, url: string, args: string[], engine: string[], hooks: BridgeHooks = {}): Promise<RunningBridge> {
  const dir = mkdtempSync(join(tmpdir(), 'dicechess-bridge-'));
  const parsed = parseBridgeArgs(['--url', url, '--token-file', join(dir, 'token.json'), ...args, '--', ...engine]);
  if (typeof parsed === 'string') throw new Error(parsed);
  const events: BridgeEvent[] = [];
  const lines: string[] = [];
  const waiters: { pred: (e: BridgeEvent) => boolean; resolve: (e: BridgeEvent) => void }[] = [];
  const report = new Reporter('progress', (l) => lines.push(l), (l) => lines.push(l));
  report.listen((e) => {
    events.push(e);
    for (const w of [...waiters]) if (w.pred(e)) (waiters.splice(waiters.indexOf(w), 1), w.resolve(e));
  });
  const bridge = new Bridge(parsed.config, report, undefined, hooks);
  t.teardown(async () => {
    await bridge.stop(true);
    await bounded(bridge.stopped, 10_000, 'the bridge to stop at teardown').catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  });
  await bridge.start();
  return {
    bridge,
    tokenFile: parsed.config.tokenFile,
    events,
    lines,
    waitFor(pred, what, ms = 45_000) {
      const seen = events.find(pred);
      if (seen) return Promise.resolve(seen);
      return bounded(new Promise((resolve) => waiters.push({ pred, resolve })), ms, what);
    },
    done: (ms = 45_000) => bounded(bridge.stopped, ms, 'the bridge to stop'),
  };
}

export const ended = (events: BridgeEvent[]) => events.filter((e): e is Extract<BridgeEvent, { event: 'gameEnded' }> => e.event === 'gameEnded');
export const failures = (events: BridgeEvent[]) => events.filter((e): e is Extract<BridgeEvent, { event: 'engineFailed' }> => e.event === 'engineFailed');
