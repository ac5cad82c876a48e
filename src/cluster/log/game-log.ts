// The game log: every committed version of a game, appended to one JetStream stream with a subject per
// game (`dc.game.<id>`) before anything of it is shown; fenced by the expected last subject sequence,
// retries deduplicated by message id.
// Invariant (the chain rule, for nats-server 2.9's pre-check race): an entry counts only if its
// `Dc-After` header names the game's last counting entry. Every reader decides the same way, and a
// writer tells no one of an append unless it counts or its lease was certain when it was answered.
// (docs/CLUSTER.md, "The game log").
import { headers, type MsgHdrs } from '@nats-io/transport-node';
import { JetStreamApiError, jetstream, type JetStreamClient, type JetStreamManager, type StoredMsg } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { isRevisionConflict } from '../coordination/lease.js';
import { deleteStored, ensureStream, subjectToken, watchedRead } from '../transport/nats.js';

export interface GameLogOptions {
  /** Stream name (default DC_GAMES). */
  stream?: string;
  /** Subject prefix; a game's subject is `<prefix>.<id>` (default dc.game). */
  prefix?: string;
  /** Copies kept by the cluster (3 in a three-server cluster). */
  replicas: number;
  /** Timeout of each request (ms). */
  timeoutMs?: number;
  /** A consumer (replay, follow) that delivers nothing, not even a heartbeat, this long is replaced (default 3 s). */
  stallMs?: number;
  /** How a replay reads through a consumer (watchedRead); tests give one that skips or adds entries. */
  read?: typeof watchedRead;
}

/** One stored entry; `counts` is false for the loser of a race (see the chain rule above). */
export type LogEntry = { seq: number; after: number; counts: boolean; msgId: string } & (
  | { kind: 'version'; version: number; epoch: number; data: Uint8Array }
  | { kind: 'takeover'; node: string }
);

const KIND = 'Dc-Kind';
const VERSION = 'Dc-Version';
const EPOCH = 'Dc-Epoch';
const NODE = 'Dc-Node';
const AFTER = 'Dc-After';
const MSG_ID = 'Nats-Msg-Id';
const ROLLUP = 'Nats-Rollup';

/** Attempts at one append or takeover before giving up (each retry means another writer moved). */
const MAX_ATTEMPTS = 20;

function entryOf(seq: number, h: MsgHdrs | undefined, data: Uint8Array): LogEntry {
  const after = Number(h?.get(AFTER) ?? NaN);
  const msgId = h?.get(MSG_ID) ?? '';
  if (h?.get(KIND) === 'takeover') return { seq, after, counts: false, msgId, kind: 'takeover', node: h.get(NODE) };
  return { seq, after, counts: false, msgId, kind: 'version', version: Number(h?.get(VERSION)), epoch: Number(h?.get(EPOCH)), data };
}

/** Marks which entries count: each must follow the last counting one. Returns that last one's seq. */
function applyChain(entries: LogEntry[], from = 0): number {
  let last = from;
  for (const e of entries) {
    e.counts = e.after === last;
    if (e.counts) last = e.seq;
  }
  return last;
}

export class GameLog {
  private constructor(
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    readonly stream: string,
    private readonly prefix: string,
    /** A consumer silent this long is replaced (see watchedRead). */
    private readonly stallMs: number,
    private readonly read: typeof watchedRead,
  ) {}

  /** Opens the log, creating its stream on first use (every node calls this with the same options). */
  static async open(nc: NatsConnection, o: GameLogOptions): Promise<GameLog> {
    const stream = o.stream ?? 'DC_GAMES';
    const prefix = o.prefix ?? 'dc.game';
    const timeout = o.timeoutMs ?? 5000;
    // Roll-up headers allowed: trim() replaces a finished game's entries with one marker.
    const jsm = await ensureStream(nc, timeout, { name: stream, subjects: [`${prefix}.*`], num_replicas: o.replicas, duplicate_window: 120e9, allow_rollup_hdrs: true });
    return new GameLog(jetstream(nc, { timeout }), jsm, stream, prefix, o.stallMs ?? 3000, o.read ?? watchedRead);
  }

  subject(gameId: string): string {
    return `${this.prefix}.${subjectToken(gameId, 'log')}`;
  }

  /** Sequence of the game's last stored entry, counting or not (0 when the game has none). */
  async lastSeq(gameId: string): Promise<number> {
    const m = await this.jsm.streams.getMessage(this.stream, { last_by_subj: this.subject(gameId) });
    return m?.seq ?? 0;
  }

  /**
   * The game's stored entries with sequence in (after, upTo], read one by one from the stream leader
   * (which has stored every entry up to any sequence it has answered for). `counts` is not set.
   */
  async entriesBetween(gameId: string, after: number, upTo = Number.MAX_SAFE_INTEGER): Promise<LogEntry[]> {
    const subject = this.subject(gameId);
    const out: LogEntry[] = [];
    for (let seq = after + 1; seq <= upTo; ) {
      const m: StoredMsg | null = await this.jsm.streams
        .getMessage(this.stream, { seq, next_by_subj: subject } as unknown as { seq: number })
        .catch((e: unknown) => {
          if (e instanceof JetStreamApiError && e.code === 10037) return null; // 10037: no message found
          throw e;
        });
      if (!m || m.seq > upTo) break;
      out.push(entryOf(m.seq, m.header, m.data));
      seq = m.seq + 1;
    }
    return out;
  }

  /**
   * Becomes the game's only writer: appends a takeover marker after the game's last counting entry,
   * makes sure the marker itself counts (an old owner's late append may slip in first: then it reads
   * again and appends another), and returns the writer with every entry up to its marker. From then
   * on, appends of any earlier writer are refused or do not count. `guard`, when given, tells the
   * writer whether its lease is still certain (see append()). `beforeMarker` runs right before each
   * marker is sent (tests use it to send an old owner's append at the same moment).
   */
  async takeOver(
    gameId: string,
    node: string,
    opts: { guard?: () => boolean; beforeMarker?: () => void } = {},
  ): Promise<{ writer: GameWriter; entries: LogEntry[] }> {
    const subject = this.subject(gameId);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const entries = await this.replay(gameId);
      const lastStored = entries.length ? entries[entries.length - 1].seq : 0;
      const lastCounting = applyChain(entries);
      const h = headers();
      h.set(KIND, 'takeover');
      h.set(NODE, node);
      h.set(AFTER, String(lastCounting));
      opts.beforeMarker?.();
      let seq: number;
      try {
        const ack = await this.js.publish(subject, new Uint8Array(), {
          headers: h,
          msgID: `${gameId}/takeover/${node}/${lastStored}`,
          expect: { lastSubjectSequence: lastStored },
        });
        seq = ack.seq;
      } catch (e) {
        if (isRevisionConflict(e)) continue;
        throw e;
      }
      // The marker counts unless a twin that follows the same entry was stored before it.
      const between = await this.entriesBetween(gameId, lastStored, seq);
      if (between.some((e) => e.seq < seq && e.after === lastCounting)) continue;
      const marker = between.find((e) => e.seq === seq);
      if (marker) entries.push(...between.filter((e) => e.seq <= seq));
      applyChain(entries);
      return { writer: new GameWriter(this, this.js, gameId, subject, seq, opts.guard), entries };
    }
    throw new Error(`takeover of ${gameId}: the log kept moving for ${MAX_ATTEMPTS} attempts`);
  }

  /**
   * The writer of a new game, whose log is still empty: its first append expects no entry before it
   * (epoch 0, no marker). An id that already has entries fences it at once. Unlike takeOver, nothing
   * here stops a node that lost its shard from starting a game nobody else knows of: the caller
   * checks its lease after the first append (see LogGameStore).
   */
  begin(gameId: string, guard?: () => boolean): GameWriter {
    return new GameWriter(this, this.js, gameId, this.subject(gameId), 0, guard);
  }

  /**
   * Every stored entry of the game, in order, each marked whether it counts. Read through a consumer
   * (watchedRead: one that falls silent is replaced); after two such replacements (a server died, a
   * consumer was placed on a dead one), or once it delivered nothing for twice stallMs, the rest is read
   * entry by entry from the stream's leader.
   */
  async replay(gameId: string): Promise<LogEntry[]> {
    const subject = this.subject(gameId);
    const last = await this.lastSeq(gameId);
    if (last === 0) return [];
    const out: LogEntry[] = [];
    let restarts = 0;
    let heard = performance.now();
    const read = this.read(
      this.js,
      this.stream,
      subject,
      1,
      (m) => {
        heard = performance.now();
        out.push(entryOf(m.seq, m.headers, m.data));
        return m.seq >= last;
      },
      { stallMs: this.stallMs, onRestart: () => ++restarts >= 2 && read.stop() },
    );
    // A consumer served from a copy behind the leader (a server still catching up after a partition)
    // goes on heartbeating without ever delivering the last entry: the replay waited for ever. Once no
    // entry came for twice stallMs (the consumer's creation alone may take stallMs), the rest is read
    // from the leader below.
    const quiet = setInterval(() => performance.now() - heard > 2 * this.stallMs && read.stop(), Math.max(100, Math.floor(this.stallMs / 3)));
    await read.done.finally(() => clearInterval(quiet));
    const have = out.length ? out[out.length - 1].seq : 0;
    if (have < last) out.push(...(await this.entriesBetween(gameId, have, last)));
    // A consumer may be served from a server's copy that, just after a partition heals, lacks an entry
    // the leader holds or holds one the leader does not: a takeover replaying it would resume the game
    // from a wrong state. The leader's count of the game's entries is the check; on a mismatch (or
    // entries appended meanwhile) the whole log is read again from the leader, entry by entry.
    if ((await this.storedCount(subject)) !== out.length) {
      const whole = await this.entriesBetween(gameId, 0);
      applyChain(whole);
      return whole;
    }
    applyChain(out);
    return out;
  }

  /** How many entries the stream holds on `subject`, as its leader counts them. */
  private async storedCount(subject: string): Promise<number> {
    const info = await this.jsm.streams.info(this.stream, { subjects_filter: subject });
    return info.state.subjects?.[subject] ?? 0;
  }

  /**
   * Follows the game live: calls `onEntry` with every counting entry stored after `afterSeq` (a
   * counting entry's sequence the caller already has, 0 for the whole game), in order, as the cluster
   * stores them; entries that do not count are skipped. Each follower holds one consumer on the server
   * until stop() (the caller bounds how many it opens); a consumer that falls silent (its server died)
   * is replaced within a few seconds by one that starts after the last entry handed over.
   */
  async follow(gameId: string, afterSeq: number, onEntry: (e: LogEntry) => void): Promise<{ stop(): void }> {
    let lastCounting = afterSeq;
    const read = watchedRead(
      this.js,
      this.stream,
      this.subject(gameId),
      afterSeq + 1,
      (m) => {
        const e = entryOf(m.seq, m.headers, m.data);
        e.counts = e.after === lastCounting;
        if (!e.counts) return;
        lastCounting = e.seq;
        onEntry(e);
      },
      { stallMs: this.stallMs },
    );
    return { stop: () => read.stop() };
  }

  /**
   * Removes every entry of the game from the stream: done once the game's ending is archived and
   * nothing reads its log any more. One marker with a roll-up header replaces the subject's entries,
   * then the marker itself is deleted by its sequence, so the subject holds nothing. Not the stream
   * purge API: on nats-server 2.9 a purge by subject, replayed after every server died at once,
   * removes other subjects' messages as well (test/cluster/transport/trim-restart.test.ts). Idempotent.
   */
  async trim(gameId: string): Promise<void> {
    const h = headers();
    h.set(ROLLUP, 'sub');
    h.set(KIND, 'trim'); // never counts: it follows no entry (no Dc-After)
    const ack = await this.js.publish(this.subject(gameId), new Uint8Array(), { headers: h });
    await deleteStored(this.jsm, this.stream, ack.seq);
  }

  /** The game's counting versions, folded in order (markers and entries that do not count are skipped). */
  async fold<T>(gameId: string, init: T, step: (acc: T, version: number, data: Uint8Array) => T): Promise<T> {
    let acc = init;
    for (const e of await this.replay(gameId)) if (e.counts && e.kind === 'version') acc = step(acc, e.version, e.data);
    return acc;
  }
}

export type AppendResult = { ok: true; seq: number; duplicate: boolean } | { ok: false; fenced: true };

/** The one writer of a game's log for as long as no other node takes the game over. */
export class GameWriter {
  private fencedOff = false;
  /** The game's last counting entry (this writer's own last one). */
  private lastCounting: number;
  /** The game's last stored entry as far as this writer knows (later than lastCounting only after a lost race). */
  private lastStored: number;

  constructor(
    private readonly log: GameLog,
    private readonly js: JetStreamClient,
    readonly gameId: string,
    private readonly subject: string,
    /** The sequence of this writer's takeover marker: its identity in message ids. */
    readonly epoch: number,
    private readonly guard: (() => boolean) | undefined,
  ) {
    this.lastCounting = this.lastStored = epoch;
  }

  /** Sequence of this writer's last counting entry. */
  lastSeq(): number {
    return this.lastCounting;
  }

  fenced(): boolean {
    return this.fencedOff;
  }

  /**
   * Appends one version (one append in flight per game: each follows the one before). Resolves
   * { ok: true } once the entry is stored by the cluster and counts (a retry of a version already
   * stored is answered with the stored entry's sequence and duplicate: true), or { fenced: true } when
   * another writer has appended since: this writer must then stop acting for the game. Other failures
   * (no answer) reject; the caller retries the same version with the same data. When the answer comes
   * while `guard()` is false (or without a guard), the writer first checks that the entry counts.
   */
  async append(version: number, data: Uint8Array): Promise<AppendResult> {
    if (this.fencedOff) return { ok: false, fenced: true };
    const msgID = `${this.gameId}/${this.epoch}/${version}`;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const h = headers();
      h.set(KIND, 'version');
      h.set(VERSION, String(version));
      h.set(EPOCH, String(this.epoch));
      h.set(AFTER, String(this.lastCounting));
      let seq: number;
      let duplicate: boolean;
      try {
        const ack = await this.js.publish(this.subject, data, { headers: h, msgID, expect: { lastSubjectSequence: this.lastStored } });
        seq = ack.seq;
        duplicate = ack.duplicate;
      } catch (e) {
        if (!isRevisionConflict(e)) throw e;
        // Something was stored after our last entry: our own earlier try, another writer, or a loser.
        const later = await this.log.entriesBetween(this.gameId, this.lastStored);
        const first = later.find((x) => x.after === this.lastCounting);
        if (first && first.msgId === msgID) return this.counted(first.seq, true);
        if (first) return this.fence();
        this.lastStored = later.length ? later[later.length - 1].seq : this.lastStored;
        continue; // only entries that do not count: append after them
      }
      if (this.guard?.() === true && !duplicate) return this.counted(seq, duplicate);
      const between = await this.log.entriesBetween(this.gameId, this.lastCounting, seq);
      const first = between.find((x) => x.after === this.lastCounting);
      return first?.seq === seq ? this.counted(seq, duplicate) : this.fence();
    }
    throw new Error(`append to ${this.gameId}: the log kept moving for ${MAX_ATTEMPTS} attempts`);
  }

  private counted(seq: number, duplicate: boolean): AppendResult {
    this.lastCounting = this.lastStored = seq;
    return { ok: true, seq, duplicate };
  }

  private fence(): AppendResult {
    this.fencedOff = true;
    return { ok: false, fenced: true };
  }
}
