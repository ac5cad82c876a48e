// `channel`: how a batch of game commands should cross from the main thread to a shard worker and
// its events come back. Four channels (bench/shard-channel-links.ts) carry the same traffic to the
// same stand-in actors (bench/shard-channel-actor.ts): per command {gameId, seat, moves, at} one
// way, and back two ndjson lines, a record patch and a verdict. For batch sizes 1, 8 and 64:
// - saturated: a fixed number of commands in flight, as fast as the channel goes → commands/s and
//   the CPU per command of the main thread and of the worker thread;
// - paced: the same offered rate for every channel (equal load) → CPU per command of the main
//   thread (its /proc/thread-self/schedstat), of the worker thread (the same file, read by the
//   worker) and of the whole process (process.cpuUsage), and the round-trip latency per command.
// Ratios are against the Piscina channel at the same batch size, in the same run.
import { cpus, loadavg } from 'node:os';
import { threadCpuNs, type Command, type Entry } from './shard-channel-actor.js';
import { FloorLink, openLinks, type Link } from './shard-channel-links.js';
import type { BenchRow } from './types.js';

const BATCH_SIZES = [1, 8, 64];
const PHASE_MS = Number(process.env.BENCH_CHANNEL_MS ?? 2000);
const WARM_MS = 300;
/** Offered load of the paced phase, commands per second (the target for the server). */
const RATE = Number(process.env.BENCH_CHANNEL_RATE ?? 4000);
/** Commands in flight in the saturated phase. */
const IN_FLIGHT = 512;
const GAMES = 64;
const DRAIN_LIMIT_MS = 15_000;
const MOVES = [['e2e4', 'e7e5'], ['g1f3', 'b8c6', 'f1c4'], ['d2d4', 'd7d5'], ['c2c4', 'e7e6', 'g8f6']];

interface Measure {
  commands: number;
  ms: number;
  mainUs: number;
  workerUs: number;
  processUs: number;
  latencies: Float64Array;
}

class Driver {
  private seq = 0;
  private readonly ids = Array.from({ length: GAMES }, (_, i) => `g${i.toString(36).padStart(8, 'x')}`);
  // What the main thread keeps of the events, so that handling them is real work.
  private readonly records = new Map<string, Entry['patch']>();
  private bytes = 0;
  private acked = 0;
  private batchesOut = 0;
  private lat = new Float64Array(0);
  private latN = 0;
  private onIdle: (() => void) | undefined;
  /** The saturated phase's top-up, run after each answered batch. */
  private refill: (() => void) | undefined;

  constructor(private readonly link: Link) {
    link.deliver = (entries) => this.receive(entries);
  }

  private batch(size: number): Command[] {
    const out: Command[] = new Array(size);
    const at = performance.now();
    for (let i = 0; i < size; i++) {
      const n = this.seq++;
      out[i] = { gameId: this.ids[n % GAMES], seat: n & 1 ? 'black' : 'white', moves: MOVES[n % MOVES.length], at };
    }
    return out;
  }

  /** What the main thread does with events: hand the lines to the streams, keep the patch. */
  private receive(entries: Entry[]): void {
    const now = performance.now();
    for (const e of entries) {
      this.bytes += e.lines[0].length + e.lines[1].length;
      this.records.set(e.gameId, e.patch);
      if (this.latN < this.lat.length) this.lat[this.latN++] = (now - e.at) * 1000;
    }
    this.acked += entries.length;
    this.batchesOut--;
    this.refill?.();
    if (this.batchesOut === 0) this.onIdle?.();
  }

  private send(size: number): void {
    this.batchesOut++;
    this.link.send(this.batch(size));
  }

  private drained(): Promise<void> {
    if (this.batchesOut === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${this.link.name}: batches not answered`)), DRAIN_LIMIT_MS);
      this.onIdle = () => {
        clearTimeout(timer);
        this.onIdle = undefined;
        resolve();
      };
    });
  }

  /** Runs `drive` for `ms`, waits for every answer, and returns the costs of the whole phase. */
  private async measure(ms: number, drive: (stop: Promise<void>) => void, keepLatency: boolean): Promise<Measure> {
    this.lat = new Float64Array(keepLatency ? Math.ceil(RATE * (ms / 1000) * 1.2) + 1024 : 0);
    this.latN = 0;
    const w0 = await this.link.workerCpuNs();
    const m0 = threadCpuNs();
    const p0 = process.cpuUsage();
    const a0 = this.acked;
    const t0 = performance.now();
    drive(new Promise((r) => setTimeout(r, ms)));
    await new Promise((r) => setTimeout(r, ms));
    await this.drained();
    const elapsed = performance.now() - t0;
    const p = process.cpuUsage(p0);
    const m1 = threadCpuNs();
    const w1 = await this.link.workerCpuNs();
    return {
      commands: this.acked - a0, ms: elapsed,
      mainUs: (m1 - m0) / 1000, workerUs: (w1 - w0) / 1000, processUs: p.user + p.system,
      latencies: this.lat.subarray(0, this.latN).sort(),
    };
  }

  saturated(ms: number, size: number): Promise<Measure> {
    const window = Math.max(2, Math.ceil(IN_FLIGHT / size));
    return this.measure(ms, (stop) => {
      this.refill = () => {
        while (this.batchesOut < window) this.send(size);
      };
      void stop.then(() => { this.refill = undefined; });
      this.refill();
    }, false);
  }

  paced(ms: number, size: number): Promise<Measure> {
    return this.measure(ms, (stop) => {
      const t0 = performance.now();
      let sent = 0;
      const timer = setInterval(() => {
        const due = Math.floor(((performance.now() - t0) * RATE) / 1000 / size);
        for (; sent < due; sent++) this.send(size);
      }, tickMs(size));
      void stop.then(() => clearInterval(timer));
    }, true);
  }
}

/** The paced phase's timer period: one batch per tick where the rate allows, else 1 ms. */
const tickMs = (size: number): number => Math.max(1, Math.floor((size * 1000) / RATE));

/** The pacing timer on its own (no channel): the main-thread CPU every paced row includes. */
async function pacingOnly(ms: number, size: number): Promise<number> {
  const m0 = threadCpuNs();
  const timer = setInterval(() => {}, tickMs(size));
  await new Promise((r) => setTimeout(r, ms));
  clearInterval(timer);
  return (threadCpuNs() - m0) / 1000 / (RATE * (ms / 1000));
}

const pct = (sorted: Float64Array, p: number): number =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] : NaN;

interface Result {
  link: Link;
  size: number;
  sat: Measure;
  paced: Measure;
}

function rowsOf(r: Result, base: Result | undefined): BenchRow[] {
  const bench = `channel B=${r.size} ${r.link.name}`;
  const per = (m: Measure, us: number) => us / m.commands;
  const vs = (value: number, baseline: number | undefined): Pick<BenchRow, 'value' | 'baseline' | 'baselineName'> =>
    base && base !== r ? { value, baseline, baselineName: base.link.name } : { value };
  const s = r.sat;
  const p = r.paced;
  const b = base;
  return [
    {
      bench, metric: 'commands/s saturated', ...vs(s.commands / (s.ms / 1000), b && b.sat.commands / (b.sat.ms / 1000)),
      note: `${r.link.note}; ${IN_FLIGHT} commands in flight`,
    },
    { bench, metric: 'main µs/cmd saturated', ...vs(per(s, s.mainUs), b && per(b.sat, b.sat.mainUs)), note: 'schedstat of the main thread' },
    { bench, metric: 'worker µs/cmd saturated', ...vs(per(s, s.workerUs), b && per(b.sat, b.sat.workerUs)), note: 'schedstat read by the worker' },
    {
      bench, metric: 'main µs/cmd paced', ...vs(per(p, p.mainUs), b && per(b.paced, b.paced.mainUs)),
      note: `${RATE}/s offered, ${Math.round(p.commands / (p.ms / 1000))}/s done, a tick every ${tickMs(r.size)} ms ` +
        `(the tick's own cost is the "pacing timer" row)`,
    },
    { bench, metric: 'worker µs/cmd paced', ...vs(per(p, p.workerUs), b && per(b.paced, b.paced.workerUs)) },
    { bench, metric: 'process µs/cmd paced', ...vs(per(p, p.processUs), b && per(b.paced, b.paced.processUs)), note: 'process.cpuUsage, all threads' },
    { bench, metric: 'round trip p50 µs paced', ...vs(pct(p.latencies, 0.5), b && pct(b.paced.latencies, 0.5)), note: 'command made → its entry handled on main' },
    { bench, metric: 'round trip p99 µs paced', ...vs(pct(p.latencies, 0.99), b && pct(b.paced.latencies, 0.99)), note: `max ${pct(p.latencies, 1).toFixed(0)} µs` },
  ];
}

export async function run(): Promise<BenchRow[]> {
  const load = loadavg()[0];
  const links = await openLinks();
  const out: BenchRow[] = [];
  try {
    const drivers = links.map((l) => new Driver(l));
    const floor = new Driver(new FloorLink());
    for (const size of BATCH_SIZES) {
      // Every channel at one batch size before the next size, so a burst of load on the shared
      // machine hits neighbours in the table rather than one channel's whole column.
      const results: Result[] = [];
      for (const d of drivers) {
        const link = links[drivers.indexOf(d)];
        console.error(`channel: B=${size} ${link.name}`);
        await d.saturated(WARM_MS, size);
        const sat = await d.saturated(PHASE_MS, size);
        const paced = await d.paced(PHASE_MS, size);
        results.push({ link, size, sat, paced });
      }
      for (const r of results) out.push(...rowsOf(r, results[0]));
      await floor.saturated(WARM_MS, size);
      const f = await floor.saturated(PHASE_MS, size);
      out.push({
        bench: `channel B=${size} floor`, metric: 'main µs/cmd saturated', value: f.mainUs / f.commands,
        note: 'the driver alone (commands made, entries handled; no thread, no channel): subtract it from the main rows',
      });
      out.push({
        bench: `channel B=${size} pacing timer`, metric: 'main µs/cmd paced', value: await pacingOnly(PHASE_MS, size),
        note: `the paced phase's ${tickMs(size)} ms interval alone, per command at ${RATE}/s (inside every paced main row)` +
          (size === BATCH_SIZES[BATCH_SIZES.length - 1]
            ? `; ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), Node ${process.version}, 1-min load ${load.toFixed(1)} at the start`
            : ''),
      });
    }
  } finally {
    await Promise.all(links.map((l) => l.close()));
  }
  return out;
}
