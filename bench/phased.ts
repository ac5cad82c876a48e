// A driver child that moves through named phases, the bench measuring the server between them
// (bench/streams.ts, bench/idle-games.ts). The driver says `{phase, data}` and waits; the parent
// runs its handler (e.g. scrapes /metrics) and answers `{ack: phase}`, so a measurement happens
// exactly at the boundary. The driver's last stdout line is its JSON summary.
import type { ChildProcess } from 'node:child_process';
import { forkDriver, stopChild } from './procs.js';

export interface PhaseMessage {
  phase: string;
  data?: unknown;
}

/** Runs `script` with `args`; `onPhase` runs for each phase; resolves with the parsed summary. */
export async function runPhased<T>(
  script: string,
  args: string[],
  timeoutMs: number,
  onPhase: (m: PhaseMessage) => void | Promise<void>,
): Promise<T> {
  const child = forkDriver(script, args);
  let failure: unknown;
  child.on('message', (m: PhaseMessage) => {
    if (typeof m?.phase !== 'string') return;
    void Promise.resolve()
      .then(() => onPhase(m))
      .catch((e: unknown) => void (failure ??= e))
      .finally(() => {
        if (child.connected) child.send({ ack: m.phase });
      });
  });
  let out = '';
  let err = '';
  child.stdout?.setEncoding('utf8').on('data', (s: string) => (out += s));
  child.stderr?.setEncoding('utf8').on('data', (s: string) => (err = (err + s).slice(-4000)));
  const done = new Promise<number | null>((resolve) => child.once('close', (code: number | null) => resolve(code)));
  let hung = false;
  const timer = setTimeout(() => {
    hung = true;
    child.kill('SIGKILL');
  }, timeoutMs);
  try {
    const code = await done;
    if (hung) throw new Error(`${script} hung (killed after ${timeoutMs} ms):\n${err}`);
    if (failure) throw failure;
    const last = out.trim().split('\n').pop() ?? '';
    if (code !== 0 || !last.startsWith('{')) throw new Error(`${script} failed (exit ${code}):\n${err}\n${out.slice(-2000)}`);
    return JSON.parse(last) as T;
  } finally {
    clearTimeout(timer);
    await stopChild(child as ChildProcess);
  }
}

/** The driver's side: announce a phase and wait for the parent's acknowledgement. */
export function phase(name: string, data?: unknown): Promise<void> {
  if (!process.send) return Promise.resolve();
  return new Promise((resolve) => {
    const onMessage = (m: { ack?: string }) => {
      if (m?.ack !== name) return;
      process.off('message', onMessage);
      resolve();
    };
    process.on('message', onMessage);
    process.send?.({ phase: name, data });
  });
}
