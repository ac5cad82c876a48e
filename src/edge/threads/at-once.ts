// Answers at once on an edge thread what main answers at once (docs/ARCHITECTURE.md, "Edge threads").
//
// uWS (HttpContext.h, 20.30) takes a connection's requests one at a time and keeps none for later:
// when its parser meets the next request of a connection whose answer is still pending, it closes the
// connection (async pipelining is refused; pipelining works only when each answer is written inside
// its handler), and when the client half-closes (FIN) it closes the connection whatever is pending. On
// one thread a handler that answers at once therefore serves pipelining and half-closing clients; on
// an edge thread every answer comes from main, so it would be pending for a moment and those clients
// would lose their connection. So the edge thread, once a request is complete (its handler, or the
// last piece of its body), sends it to main at once and blocks, bounded, until main has handled it:
// main answers SYNCED after the turn in which it took the request, and bumps a shared word after each
// batch it posts, which wakes the waiting thread; the thread takes main's batches synchronously from
// its port meanwhile. If main answered in that turn the answer is written before uWS reads on, as on
// one thread; if not (a move waiting for its verdict, a stream), the request stays pending, as on one
// thread, and its route is not waited on for the next ROUTE_PROBE requests on this thread, so routes
// that never answer at once cost the thread one wait now and then. A wait that reaches its bound
// counts the same way, so a main thread that is stuck does not hold its edge threads for long.
import { receiveMessageOnPort, type MessagePort } from 'node:worker_threads';

/**
 * The longest an edge thread blocks for one request before leaving it pending (and not waiting on
 * its route for the next ROUTE_PROBE requests). Main's turn is normally well under a millisecond, but
 * one turn can be long: in the tests the first answer of a server runs the OpenAPI checker's schema
 * compilation on main (some 70 ms, several times that on a loaded machine), and 250 ms was too short.
 */
export const AT_ONCE_WAIT_MS = 1000;
/** A route whose answer was not ready after main's turn is tried again after this many requests. */
export const ROUTE_PROBE = 64;

export class AtOnce {
  /** Per route: requests still to pass without waiting. */
  private readonly skips: Uint16Array;

  constructor(
    private readonly wakes: Int32Array,
    private readonly slot: number,
    private readonly port: MessagePort,
    /** Handles a message taken from the port while waiting, as the port's listener would. */
    private readonly take: (msg: unknown) => void,
    routes: number,
    private readonly waitMs = AT_ONCE_WAIT_MS,
  ) {
    this.skips = new Uint16Array(routes);
  }

  /** Whether a request of this route should be waited on. */
  tries(route: number): boolean {
    if (this.skips[route] === 0) return true;
    this.skips[route]--;
    return false;
  }

  /** What the wait found: the answer was complete after main's turn, or not. */
  learn(route: number, atOnce: boolean): void {
    this.skips[route] = atOnce ? 0 : ROUTE_PROBE;
  }

  /** Takes main's batches as they come until `done()` or the bound; true when done. */
  wait(done: () => boolean): boolean {
    const deadline = performance.now() + this.waitMs;
    for (;;) {
      // Read the word before taking messages: a batch posted after this read changes it, so the
      // wait below returns at once instead of sleeping past it.
      const seen = Atomics.load(this.wakes, this.slot);
      for (let m = receiveMessageOnPort(this.port); m !== undefined; m = receiveMessageOnPort(this.port)) this.take(m.message);
      if (done()) return true;
      const left = deadline - performance.now();
      if (left <= 0) return false;
      Atomics.wait(this.wakes, this.slot, seen, left);
    }
  }
}

/** Main's side: after each batch posted to thread `slot`, wake it if it is waiting. */
export function wake(wakes: Int32Array, slot: number): void {
  Atomics.add(wakes, slot, 1);
  Atomics.notify(wakes, slot);
}
