// Test doubles for the services: a fake GameFactory that records what it was asked to create, a
// sink that collects account-stream lines, and a store wrapper whose writes commit a tick later
// (as LMDB's do) to expose read-modify-write races.
import type { BotRecord } from '../../src/domain/records.js';
import type { Seat, SeatPlayer } from '../../src/domain/types.js';
import type { GameFactory, GameHandle, NewGameSpec } from '../../src/game/types.js';
import type { Store } from '../../src/store/types.js';
import { MemoryStore } from '../../src/store/memory.js';

export const newStore = (): Store => new MemoryStore();

/** Records every NewGameSpec; the returned handle has only what the services may use. */
export class FakeGames implements GameFactory {
  readonly specs: NewGameSpec[] = [];
  readonly handles: GameHandle[] = [];
  /** When set, the next create() rejects with this error. */
  failNext: Error | null = null;
  private n = 0;

  async create(spec: NewGameSpec): Promise<GameHandle> {
    if (this.failNext) {
      const e = this.failNext;
      this.failNext = null;
      throw e;
    }
    this.specs.push(spec);
    const handle = fakeHandle(`game${++this.n}`, spec.white, spec.black);
    this.handles.push(handle);
    return handle;
  }
}

export function fakeHandle(id: string, white: SeatPlayer, black: SeatPlayer): GameHandle {
  const partial = {
    id,
    white,
    black,
    timeControl: { Unlimited: {} },
    rated: false,
    record: () => ({ id, white, black }),
    seatOf: (pid: string): Seat | null => (pid === white.id ? 'White' : pid === black.id ? 'Black' : null),
  };
  return partial as unknown as GameHandle;
}

/** An account-stream connection that remembers what it got, parsed. */
export class Sink {
  readonly lines: string[] = [];
  send(line: string): void {
    this.lines.push(line);
  }
  events(): unknown[] {
    return this.lines.map((l) => JSON.parse(l) as unknown);
  }
}

/** Delegates to a store, but each updateBot commits only after a macrotask, like a real disk write. */
export function laggingStore(base: Store): Store {
  return new Proxy(base, {
    get(target, prop, receiver) {
      if (prop === 'updateBot') {
        return (bot: BotRecord) =>
          new Promise<void>((resolve, reject) => {
            setImmediate(() => target.updateBot(bot).then(resolve, reject));
          });
      }
      const v = Reflect.get(target, prop, receiver) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

/**
 * Delegates to a store, but holds every updateBot until the test calls `release()`: the test decides
 * exactly what runs while a write is in flight.
 */
export function gatedStore(base: Store): { store: Store; held: () => number; release: () => void } {
  let waiting: (() => void)[] = [];
  const store = new Proxy(base, {
    get(target, prop, receiver) {
      if (prop === 'updateBot') {
        return (bot: BotRecord) =>
          new Promise<void>((resolve, reject) => {
            waiting.push(() => void target.updateBot(bot).then(resolve, reject));
          });
      }
      if (prop === 'modifyBot') {
        // Held only when the change would write (tried on the record as it is now); a change that
        // leaves the record alone goes straight through, as it writes nothing.
        return (id: string, change: (b: BotRecord) => BotRecord | null) => {
          const now = target.getBot(id);
          if (!now || change(now) === null) return target.modifyBot(id, change);
          return new Promise<BotRecord | undefined>((resolve, reject) => {
            waiting.push(() => void target.modifyBot(id, change).then(resolve, reject));
          });
        };
      }
      const v = Reflect.get(target, prop, receiver) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  return {
    store,
    held: () => waiting.length,
    release: () => {
      const now = waiting;
      waiting = [];
      for (const go of now) go();
    },
  };
}

/** Lets pending promise callbacks run (no timers, no sleeping). */
export const flush = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await new Promise<void>((r) => setImmediate(r));
};
