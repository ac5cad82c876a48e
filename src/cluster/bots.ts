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
import { Packr } from 'msgpackr';
import type { KV, KvEntry } from '@nats-io/kv';
import type { BotRecord } from '../domain/records.js';
import type { Store } from '../store/types.js';
import { assertReadable } from '../store/schema.js';
import { isRevisionConflict } from './lease.js';

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
    /** Attempts of one read-modify-write before giving up (each conflict means another node wrote). */
    private readonly maxAttempts: number,
  ) {}

  /** Opens the replica: resolves once every bot the bucket held at that moment is loaded. */
  static async open(kv: KV, opts: { maxAttempts?: number } = {}): Promise<KvBotStore> {
    const s = new KvBotStore(kv, opts.maxAttempts ?? 50);
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

  async updateBot(bot: BotRecord): Promise<void> {
    const bytes = encode(bot);
    const key = botKey(bot.id);
    const revision = await this.kv.put(key, bytes);
    this.apply({ key, revision, operation: 'PUT', value: bytes });
  }

  async modifyBot(id: string, change: (bot: BotRecord) => BotRecord | null): Promise<BotRecord | undefined> {
    const key = botKey(id);
    for (let attempt = 0; attempt < this.maxAttempts; attempt++) {
      // Read the committed record from the bucket, not the replica, which may be a moment behind.
      const e = await this.kv.get(key);
      if (!e || e.operation !== 'PUT') return undefined;
      this.apply(e);
      const next = change(assertReadable('bot', id, decode(e.value)));
      if (next === null) return this.getBot(id);
      const bytes = encode(next);
      try {
        const revision = await this.kv.update(key, bytes, e.revision);
        this.apply({ key, revision, operation: 'PUT', value: bytes });
        return decode(bytes);
      } catch (err) {
        if (!isRevisionConflict(err)) throw err; // another node wrote in between: read again
      }
    }
    throw new Error(`modifyBot(${id}): still conflicting after ${this.maxAttempts} attempts`);
  }

  close(): void {
    this.stopWatch?.();
  }
}
