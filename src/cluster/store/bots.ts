// Registered bots (identities, token hashes, accounts) shared by every node of a cluster: a key per bot
// in one replicated bucket, read synchronously from an in-memory copy (BucketCopy, bucket-copy.ts).
// Invariant: creation is a create (one winner), and every read-modify-write first wins a ticket and
// sends its update only while the ticket is younger than half its life: on nats-server 2.9 two plain
// updates naming the same revision may both be stored. Open the bucket with `openBucket` (nats.ts),
// whose reads go to the stream's leader.
// (docs/CLUSTER.md, "Bots and tokens across nodes").
import type { KV } from '@nats-io/kv';
import { codec } from '../../domain/codec.js';
import type { BotRecord } from '../../domain/records.js';
import type { Store } from '../../store/types.js';
import { assertReadable } from '../../store/schema.js';
import type { Clock } from '../../domain/clock.js';
import { systemClock } from '../../domain/clock.js';
import { BucketCopy, type Change } from './bucket-copy.js';

export { TICKET_TTL_MS } from './bucket-copy.js';

export type BotStore = Pick<
  Store,
  'getBot' | 'getBotByTokenHash' | 'createBot' | 'updateBot' | 'listBots' | 'modifyBot' | 'botsRevision'
>;

const encode = (v: BotRecord): Uint8Array => codec.records.encode(v);
const decode = (bytes: Uint8Array): BotRecord => codec.records.decode<BotRecord>(bytes);

/** Bot ids hold characters a key may not (`bot:team:…`): keys carry them base64url-encoded. */
export const botKey = (id: string): string => `bot.${Buffer.from(id, 'utf8').toString('base64url')}`;
const botIdOfKey = (key: string): string => Buffer.from(key.slice('bot.'.length), 'base64url').toString('utf8');

export class KvBotStore implements BotStore {
  private readonly tokenIndex = new Map<string, string>();
  private revision = 0;
  private replica!: BucketCopy;

  private constructor(
    private readonly tickets: KV,
    private readonly clock: Clock,
    /** Attempts of one read-modify-write before giving up (each conflict means another node wrote). */
    private readonly maxAttempts: number,
  ) {}

  /**
   * Opens the copy (bucket-copy.ts): resolves once every bot the bucket held at that moment is
   * loaded. `tickets` is a bucket whose TTL is TICKET_TTL_MS.
   */
  static async open(kv: KV, tickets: KV, opts: { maxAttempts?: number; clock?: Clock } = {}): Promise<KvBotStore> {
    const clock = opts.clock ?? systemClock;
    const s = new KvBotStore(tickets, clock, opts.maxAttempts ?? 200);
    s.replica = await BucketCopy.open(kv, (c) => s.changed(c), ['bot'], { clock });
    return s;
  }

  /** Keeps the token index exact as the replica applies a change. */
  private changed(c: Change): void {
    if (!c.key.startsWith('bot.')) return;
    const id = botIdOfKey(c.key);
    if (c.before) {
      const old = decode(c.before).tokenHash;
      if (this.tokenIndex.get(old) === id) this.tokenIndex.delete(old);
    }
    if (c.after) this.tokenIndex.set(decode(c.after).tokenHash, id);
    this.revision++;
  }

  getBot(id: string): BotRecord | undefined {
    const bytes = id ? this.replica.get(botKey(id)) : undefined;
    return bytes && assertReadable('bot', id, decode(bytes));
  }

  getBotByTokenHash(tokenHash: string): BotRecord | undefined {
    const id = this.tokenIndex.get(tokenHash);
    const bot = id === undefined ? undefined : this.getBot(id);
    return bot && bot.tokenHash === tokenHash ? bot : undefined;
  }

  listBots(): BotRecord[] {
    return this.replica
      .keysOf('bot')
      .map(botIdOfKey)
      .sort()
      .map((id) => this.getBot(id)!);
  }

  botsRevision(): number {
    return this.revision;
  }

  /** A create: when two nodes register the same id, one wins. */
  createBot(bot: BotRecord): Promise<boolean> {
    return this.replica.create(botKey(bot.id), encode(bot));
  }

  /** Replaces the record (through the same ticketed update as modifyBot, so no change races it). */
  async updateBot(bot: BotRecord): Promise<void> {
    const done = await this.modifyBot(bot.id, () => bot);
    if (!done && !(await this.createBot(bot))) await this.updateBot(bot);
  }

  async modifyBot(id: string, change: (bot: BotRecord) => BotRecord | null): Promise<BotRecord | undefined> {
    const stored = await this.replica.ticketedModify(
      this.tickets,
      this.clock,
      botKey(id),
      (cur) => {
        if (!cur) return null;
        const next = change(assertReadable('bot', id, decode(cur)));
        return next === null ? null : encode(next);
      },
      this.maxAttempts,
    );
    return stored && decode(stored);
  }

  close(): void {
    this.replica.close();
  }
}
