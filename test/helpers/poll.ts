// Waiting without sleeping: a test yields to pending I/O and timers due now, never to the wall clock.

/** Lets pending I/O callbacks and timers due now run (no wall-clock waiting). */
export const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

/** Polls `probe` until it returns a value other than undefined, at most `tries` times. */
export async function until<T>(probe: () => Promise<T | undefined> | T | undefined, what: string, tries = 500): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const v = await probe();
    if (v !== undefined) return v;
    await tick();
  }
  throw new Error(`gave up waiting for ${what}`);
}
