// Counters whose value is a running total kept elsewhere (a thread's CPU time, seconds summed by the
// shards, updates applied): read when /metrics is scraped and exported as Prometheus counters, so that
// rate() and increase() work on them. A total that goes down means its source started again (a shard
// restarted and counts its CPU from zero): what it reports then is new work, added on top, so the
// exported counter never goes down.
import { Counter, type Registry } from 'prom-client';

export interface TotalsSpec<L extends string> {
  name: string;
  help: string;
  labelNames?: readonly L[];
  registers: Registry[];
  /** The current totals, one per label set (no labels: `{}`). */
  read: () => Iterable<{ labels: Partial<Record<L, string>>; value: number }>;
}

export function totalsCounter<L extends string>(spec: TotalsSpec<L>): Counter<L> {
  /** Per label set: the source's last total, as read. */
  const last = new Map<string, number>();
  return new Counter<L>({
    name: spec.name,
    help: spec.help,
    labelNames: spec.labelNames ?? [],
    registers: spec.registers,
    collect() {
      for (const { labels, value } of spec.read()) {
        if (!Number.isFinite(value) || value < 0) continue;
        const key = JSON.stringify(labels);
        const before = last.get(key) ?? 0;
        last.set(key, value);
        this.inc(labels, value >= before ? value - before : value);
      }
    },
  });
}
