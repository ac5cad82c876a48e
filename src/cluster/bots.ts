// Registered bots (identities, token hashes, accounts) shared by every node of a cluster, in one
// replicated key-value bucket: a key per bot, its value the msgpack-encoded record.
//
// Reads stay synchronous, as the Store seam wants: each node keeps a replica of the bucket in memory,
// loaded when it opens and then fed by a watch. Writes go to the bucket first and land in the local
// replica once the bucket has accepted them, so a node always reads its own writes; another node sees
// them as soon as its watch delivers (milliseconds on a healthy cluster). Creation is a create (only
// if absent: two nodes registering the same name get one winner), and every read-modify-write (token
// rotation, rating, ladder flag) is an update that names the revision it read, retried on conflict, so
// no concurrent change is lost.
//
// Tickets. nats-server before 2.9.21 (Debian ships 2.9.10) checks an update's expected revision in a
// replicated bucket only on the leader, against what is already stored: two updates in flight at once
// that name the same revision may both be stored, and one change silently lost. A create (expected
// revision 0) is checked as it is applied, in log order, and has exactly one winner. So a writer first
// creates a ticket key naming the bot and the revision it read, and only the ticket's winner sends
// the update; the others read again. Tickets live in their own bucket whose keys expire after a minute;
// a writer sends its update only while its ticket is younger than half of that.
import { Packr } from 'msgpackr';
import type { KV, KvEntry } from '@nats-io/kv';
import type { BotRecord } from '../domain/records.js';
import type { Store } from '../store/types.js';
import { assertReadable } from '../store/schema.js';
import type { Clock } from '../domain/clock.js';
import { systemClock } from '../domain/clock.js';
import { isRevisionConflict } from './lease.js';

/** The tickets bucket's key lifetime (ms); it must be opened with this TTL. */
export const TICKET_TTL_MS = 60_000;

export type BotStore = Pick<
  Store,
  'getBot' | 'getBotByTokenHash' | 'createBot' | 'updateBot' | 'listBots' | 'modifyBot' | 'botsRevision'
>;

const codec = new Packr({ useRecords: false });
const encode = (v: BotRecord): Uint8Array => new Uint8Array(codec.pack(v));
const decode = (bytes: Uint8Array): BotRecord => codec.unpack(bytes) as BotRecord;

/** Bot ids hold characters a key may not (`bot:team:…`): keys carry them base64url-encoded. */
export const botKey = (id: string): string => `bot.${Buffer.from(id, 'utf8').toString('base64url')}`;
const botIdOfKey = (key: string): string => Buffer.from(key.slice('bot.'.length), 'base64url').toString('utf8');

interface Held {
  bytes: Uint8Array;
  revision: number;
  tokenHash: string;
}

export class KvBotStore implements BotStore {
  private readonly bots = new Map<string, Held>();
  private readonly tokenIndex = new Map<string, string>();
  /** Highest bucket revision applied per deleted id, so a late watch entry cannot resurrect it. */
  private readonly gone = new Map<string, number>();
  private revision = 0;
  private stopWatch: (() => void) | undefined;

  private constructor(
    private readonly kv: KV,
    private readonly tickets: KV,
    private readonly clock: Clock,
    /** Attempts of one read-modify-write before giving up (each conflict means another node wrote). */
    private readonly maxAttempts: number,
  ) {}

  /**
   * Opens the replica: resolves once every bot the bucket held at that moment is loaded. `tickets` is
   * a bucket whose TTL is TICKET_TTL_MS.
   */
  static async open(kv: KV, tickets: KV, opts: { maxAttempts?: number; clock?: Clock } = {}): Promise<KvBotStore> {
    const s = new KvBotStore(kv, tickets, opts.clock ?? systemClock, opts.maxAttempts ?? 200);
    const status = await kv.status();
    const lastSeq = status.streamInfo.state.last_seq;
    const watch = await kv.watch({ key: 'bot.>' });
    s.stopWatch = () => watch.stop();
    let loaded!: () => void;
    const ready = new Promise<void>((r) => (loaded = r));
    if (lastSeq === 0) loaded();
    void (async () => {
      for await (const e of watch) {
        s.apply(e);
        if (e.revision >= lastSeq) loaded();
      }
    })();
    await ready;
    return s;
  }

  /** Applies one bucket entry (from the watch or from a write of ours) unless the replica has newer. */
  private apply(e: Pick<KvEntry, 'key' | 'revision' | 'operation' | 'value'>): void {
    if (!e.key.startsWith('bot.')) return;
    const id = botIdOfKey(e.key);
    const cur = this.bots.get(id);
    if ((cur && cur.revision >= e.revision) || (this.gone.get(id) ?? 0) >= e.revision) return; // older news
    if (cur) this.tokenIndex.delete(cur.tokenHash);
    if (e.operation === 'PUT') {
      const bot = decode(e.value);
      this.bots.set(id, { bytes: e.value, revision: e.revision, tokenHash: bot.tokenHash });
      this.tokenIndex.set(bot.tokenHash, id);
      this.gone.delete(id);
    } else {
      this.bots.delete(id);
      this.gone.set(id, e.revision);
    }
    this.revision++;
  }

  getBot(id: string): BotRecord | undefined {
    const h = this.bots.get(id);
    return h && assertReadable('bot', id, decode(h.bytes));
  }

  getBotByTokenHash(tokenHash: string): BotRecord | undefined {
    const id = this.tokenIndex.get(tokenHash);
    const bot = id === undefined ? undefined : this.getBot(id);
    return bot && bot.tokenHash === tokenHash ? bot : undefined;
  }

  listBots(): BotRecord[] {
    return [...this.bots.keys()].sort().map((id) => this.getBot(id)!);
  }

  botsRevision(): number {
    return this.revision;
  }

  async createBot(bot: BotRecord): Promise<boolean> {
    const bytes = encode(bot);
    try {
      const key = botKey(bot.id);
      const revision = await this.kv.create(key, bytes);
      this.apply({ key, revision, operation: 'PUT', value: bytes });
      return true;
    } catch (e) {
      if (isRevisionConflict(e)) return false;
      throw e;
    }
  }

  /** Replaces the record (through the same ticketed update as modifyBot, so no change races it). */
  async updateBot(bot: BotRecord): Promise<void> {
    const done = await this.modifyBot(bot.id, () => bot);
    if (!done && !(await this.createBot(bot))) await this.updateBot(bot);
  }

  async modifyBot(id: string, change: (bot: BotRecord) => BotRecord | null): Promise<BotRecord | undefined> {
    const key = botKey(id);
    for (let attempt = 0; attempt < this.maxAttempts; attempt++) {
      if (attempt > 0) await this.pause(Math.min(50, attempt * 2));
      const e = await this.kv.get(key);
      if (!e || e.operation !== 'PUT') return undefined;
      this.apply(e);
      const next = change(assertReadable('bot', id, decode(e.value)));
      if (next === null) return this.getBot(id);
      const bytes = encode(next);
      const ticketAt = this.clock.now();
      try {
        await this.tickets.create(`${key}.${e.revision}`, new Uint8Array());
      } catch (err) {
        if (isRevisionConflict(err)) continue; // another writer is changing this revision: read again
        throw err;
      }
      if (this.clock.now() - ticketAt > TICKET_TTL_MS / 2) continue; // too slow: the ticket may expire
      try {
        const revision = await this.kv.update(key, bytes, e.revision);
        this.apply({ key, revision, operation: 'PUT', value: bytes });
        return decode(bytes);
      } catch (err) {
        if (!isRevisionConflict(err)) throw err; // the revision read was already stale: read again
      }
    }
    throw new Error(`modifyBot(${id}): still conflicting after ${this.maxAttempts} attempts`);
  }

  private pause(ms: number): Promise<void> {
    return new Promise((r) => this.clock.schedule(ms, () => r()));
  }

  close(): void {
    this.stopWatch?.();
  }
}
