// Waiting without sleeping: a test yields to pending I/O and timers due now, never to the wall clock.

/** Lets pending I/O callbacks and timers due now run (no wall-clock waiting). */
export const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

/**
 * Polls `probe` until it returns a value other than undefined: `tries` times an event-loop turn
 * apart, then, for work done off this thread (compression, a worker) that a loaded machine holds up,
 * every 10 ms for up to 30 s more. The wait decides nothing by itself: only the probe does.
 */
export async function until<T>(probe: () => Promise<T | undefined> | T | undefined, what: string, tries = 500): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const v = await probe();
    if (v !== undefined) return v;
    await tick();
  }
  const giveUpAt = Date.now() + 30_000;
  while (Date.now() < giveUpAt) {
    const v = await probe();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`gave up waiting for ${what}`);
}
