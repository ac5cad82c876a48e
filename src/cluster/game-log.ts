// The game log: every committed version of a game, appended to one JetStream stream with a subject
// per game (`dc.game.<id>`), before anything of it is shown to anyone.
//
// Fencing is done by the store, not by a timer: each append names the sequence of the last entry the
// writer knows on the game's subject (JetStream's expected-last-subject-sequence check), so once a new
// owner has appended its takeover marker, every append of the previous owner is refused, however
// late it arrives. Each append also carries a message id made of the game, the writer's epoch (the
// sequence its takeover marker got) and the version, so two owners can never be mistaken for each
// other's retries. A retry of an append whose answer was lost is refused by the sequence check (the
// server checks it before the message id); the writer then looks at the game's last entry, and if it
// is that very append, takes it as stored: a version is stored once however often it is sent.
import { headers, type MsgHdrs } from '@nats-io/transport-node';
import {
  DeliverPolicy,
  JetStreamApiError,
  jetstream,
  jetstreamManager,
  type JetStreamClient,
  type JetStreamManager,
} from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { isRevisionConflict } from './lease.js';

export interface GameLogOptions {
  /** Stream name (default DC_GAMES). */
  stream?: string;
  /** Subject prefix; a game's subject is `<prefix>.<id>` (default dc.game). */
  prefix?: string;
  /** Copies kept by the cluster (3 in a three-server cluster). */
  replicas: number;
  /** Timeout of each request (ms). */
  timeoutMs?: number;
}

export type LogEntry =
  | { seq: number; kind: 'version'; version: number; epoch: number; data: Uint8Array }
  | { seq: number; kind: 'takeover'; node: string };

const KIND = 'Dc-Kind';
const VERSION = 'Dc-Version';
const EPOCH = 'Dc-Epoch';
const NODE = 'Dc-Node';

/** Game ids become one subject token: letters, digits, - and _ only. */
const ID_RE = /^[A-Za-z0-9_-]{1,128}$/;

export class GameLog {
  private constructor(
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    readonly stream: string,
    private readonly prefix: string,
  ) {}

  /** Opens the log, creating its stream on first use (every node calls this with the same options). */
  static async open(nc: NatsConnection, o: GameLogOptions): Promise<GameLog> {
    const stream = o.stream ?? 'DC_GAMES';
    const prefix = o.prefix ?? 'dc.game';
    const timeout = o.timeoutMs ?? 5000;
    const jsm = await jetstreamManager(nc, { timeout });
    try {
      await jsm.streams.info(stream);
    } catch (e) {
      if (!(e instanceof JetStreamApiError) || e.code !== 10059) throw e; // 10059: stream not found
      try {
        await jsm.streams.add({ name: stream, subjects: [`${prefix}.*`], num_replicas: o.replicas, duplicate_window: 120e9 });
      } catch (err) {
        // Another node created it at the same moment with the same config: fine.
        if (!(err instanceof JetStreamApiError) || err.code !== 10058) throw err; // 10058: name in use
      }
    }
    return new GameLog(jetstream(nc, { timeout }), jsm, stream, prefix);
  }

  subject(gameId: string): string {
    if (!ID_RE.test(gameId)) throw new Error(`game id ${JSON.stringify(gameId)} cannot be a log subject`);
    return `${this.prefix}.${gameId}`;
  }

  /** Sequence of the game's last entry (0 when the game has none). */
  async lastSeq(gameId: string): Promise<number> {
    const m = await this.jsm.streams.getMessage(this.stream, { last_by_subj: this.subject(gameId) });
    return m?.seq ?? 0;
  }

  /** The game's last entry with its message id (undefined when the game has none). */
  async lastEntry(gameId: string): Promise<{ seq: number; msgId: string } | undefined> {
    const m = await this.jsm.streams.getMessage(this.stream, { last_by_subj: this.subject(gameId) });
    return m ? { seq: m.seq, msgId: m.header?.get('Nats-Msg-Id') ?? '' } : undefined;
  }

  /**
   * Becomes the game's only writer: appends a takeover marker after whatever is the game's last entry
   * (retrying if a previous owner's late append slips in first) and returns a writer whose epoch is
   * the marker's sequence. From then on, appends of any earlier writer are refused.
   */
  async takeOver(gameId: string, node: string): Promise<GameWriter> {
    const subject = this.subject(gameId);
    for (let attempt = 0; ; attempt++) {
      const after = await this.lastSeq(gameId);
      const h = headers();
      h.set(KIND, 'takeover');
      h.set(NODE, node);
      try {
        const ack = await this.js.publish(subject, new Uint8Array(), {
          headers: h,
          msgID: `${gameId}/takeover/${node}/${after}`,
          expect: { lastSubjectSequence: after },
        });
        return new GameWriter(this.js, (id) => this.lastEntry(id), gameId, subject, ack.seq, ack.seq);
      } catch (e) {
        if (!isRevisionConflict(e) || attempt >= 20) throw e;
      }
    }
  }

  /** Every entry of the game, in order (versions and takeover markers). */
  async replay(gameId: string): Promise<LogEntry[]> {
    const subject = this.subject(gameId);
    const last = await this.lastSeq(gameId);
    if (last === 0) return [];
    const consumer = await this.js.consumers.get(this.stream, { filter_subjects: subject, deliver_policy: DeliverPolicy.All });
    const out: LogEntry[] = [];
    const messages = await consumer.consume();
    try {
      for await (const m of messages) {
        out.push(entryOf(m.seq, m.headers, m.data));
        if (m.seq >= last && m.info.pending === 0) break;
      }
    } finally {
      messages.stop();
    }
    return out;
  }

  /** The game's versions as the log holds them, folded in order (markers are skipped). */
  async fold<T>(gameId: string, init: T, step: (acc: T, version: number, data: Uint8Array) => T): Promise<T> {
    let acc = init;
    for (const e of await this.replay(gameId)) if (e.kind === 'version') acc = step(acc, e.version, e.data);
    return acc;
  }
}

function entryOf(seq: number, h: MsgHdrs | undefined, data: Uint8Array): LogEntry {
  if (h?.get(KIND) === 'takeover') return { seq, kind: 'takeover', node: h.get(NODE) };
  return { seq, kind: 'version', version: Number(h?.get(VERSION)), epoch: Number(h?.get(EPOCH)), data };
}

export type AppendResult = { ok: true; seq: number; duplicate: boolean } | { ok: false; fenced: true };

/** The one writer of a game's log for as long as no other node takes the game over. */
export class GameWriter {
  private fencedOff = false;

  constructor(
    private readonly js: JetStreamClient,
    private readonly lastEntry: (gameId: string) => Promise<{ seq: number; msgId: string } | undefined>,
    readonly gameId: string,
    private readonly subject: string,
    /** The sequence of this writer's takeover marker: its identity in message ids. */
    readonly epoch: number,
    private last: number,
  ) {}

  /** Sequence of the last entry this writer knows on the game's subject. */
  lastSeq(): number {
    return this.last;
  }

  fenced(): boolean {
    return this.fencedOff;
  }

  /**
   * Appends one version (one append in flight per game: each names the sequence the previous one
   * got). Resolves { ok: true } once the entry is stored by the cluster (a retry of a version already
   * stored is answered with the stored entry's sequence and duplicate: true), or { fenced: true } when
   * another writer has appended since: this writer must then stop acting for the game. Other failures
   * (no answer) reject; the caller retries the same version with the same data.
   */
  async append(version: number, data: Uint8Array): Promise<AppendResult> {
    if (this.fencedOff) return { ok: false, fenced: true };
    const h = headers();
    h.set(KIND, 'version');
    h.set(VERSION, String(version));
    h.set(EPOCH, String(this.epoch));
    const msgID = `${this.gameId}/${this.epoch}/${version}`;
    try {
      const ack = await this.js.publish(this.subject, data, { headers: h, msgID, expect: { lastSubjectSequence: this.last } });
      if (ack.seq > this.last) this.last = ack.seq;
      return { ok: true, seq: ack.seq, duplicate: ack.duplicate };
    } catch (e) {
      if (!isRevisionConflict(e)) throw e;
      // Either another writer appended (fenced), or this very append already landed earlier.
      const last = await this.lastEntry(this.gameId);
      if (last && last.msgId === msgID) {
        this.last = last.seq;
        return { ok: true, seq: last.seq, duplicate: true };
      }
      this.fencedOff = true;
      return { ok: false, fenced: true };
    }
  }
}
