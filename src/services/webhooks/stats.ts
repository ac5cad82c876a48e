// Delivery outcomes per bot, and latency percentiles over each bot's most recent deliveries. Bounded
// twice: a fixed ring of latencies per bot, and a fixed number of bots (least recently active dropped).
// Counts live in memory: they start at zero on registration and on a server restart.

export const OUTCOMES = [
  'applied', 'declined', 'refused', 'malformed', 'httpError', 'timeout', 'unreachable', 'policyBlocked',
] as const;
export type Outcome = (typeof OUTCOMES)[number];

export type StatsView = Record<Outcome, number> & {
  deliveries: number;
  latencyMsP50: number;
  latencyMsP90: number;
  latencyMsP99: number;
  latencyMsMax: number;
};

class BotStats {
  readonly counts = Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>;
  private readonly ring: number[] = [];
  private next = 0;

  constructor(private readonly window: number) {}

  add(outcome: Outcome, ms: number): void {
    this.counts[outcome]++;
    if (this.ring.length < this.window) this.ring.push(ms);
    else this.ring[this.next] = ms;
    this.next = (this.next + 1) % this.window;
  }

  view(): StatsView {
    const sorted = [...this.ring].sort((a, b) => a - b);
    // Nearest-rank percentile over the window; 0 before the first delivery.
    const pct = (p: number): number => (sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]);
    const deliveries = OUTCOMES.reduce((s, o) => s + this.counts[o], 0);
    return {
      ...this.counts,
      deliveries,
      latencyMsP50: pct(50),
      latencyMsP90: pct(90),
      latencyMsP99: pct(99),
      latencyMsMax: sorted.length === 0 ? 0 : sorted[sorted.length - 1],
    };
  }
}

export class DeliveryStats {
  private readonly bots = new Map<string, BotStats>();

  /** `window` latencies kept per bot; at most `maxBots` bots tracked. */
  constructor(private readonly opts: { window: number; maxBots: number } = { window: 512, maxBots: 10_000 }) {}

  record(botId: string, outcome: Outcome, ms: number): void {
    let s = this.bots.get(botId);
    if (s) this.bots.delete(botId); // re-inserted below: most recently active last
    else s = new BotStats(this.opts.window);
    this.bots.set(botId, s);
    s.add(outcome, ms);
    while (this.bots.size > this.opts.maxBots) this.bots.delete(this.bots.keys().next().value as string);
  }

  view(botId: string): StatsView {
    return (this.bots.get(botId) ?? new BotStats(1)).view();
  }

  /** Starts a bot's counts over (a new registration). */
  reset(botId: string): void {
    this.bots.delete(botId);
  }

  /** Bots currently tracked (tests show the bound holding). */
  size(): number {
    return this.bots.size;
  }
}
