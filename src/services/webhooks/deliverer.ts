// Turn deliveries to webhook bots: a lifecycle listener that POSTs a signed `yourTurn` for each roll of
// a registered bot's seat, and plays the answer through GameHandle.move as the move route does.
// Invariant: never two deliveries of one roll (keyed by game and ply; the store keeps the last finished
// one), and never inside the actor's publish call. Calls are bounded in flight, in total and per bot,
// and wait in a bounded queue per bot served round-robin; the time a roll queued is credited back.
// (docs/DECISIONS.md, "Webhooks" and "Webhook fairness (issue 18)"; the bounds in docs/OPERATIONS.md).
import type { Clock } from '../../domain/clock.js';
import type { Logger } from '../../domain/log.js';
import type { Seat } from '../../domain/types.js';
import type { EventFrame, GameHandle, GameLifecycleListener, GameSubscriber } from '../../game/types.js';
import type { Store } from '../../store/types.js';
import { diceRolledGlance, lineIs, yourTurnJson } from '../../wire/encode.js';
import type { PostResult, WebhookClient } from './client.js';
import { signatureHeaders } from './signing.js';
import type { DeliveryStats, Outcome } from './stats.js';

export interface DelivererDeps {
  store: Store;
  client: WebhookClient;
  clock: Clock;
  stats: DeliveryStats;
  /** The move endpoint's body validation: the moves (and version) of a valid answer, or null. */
  parseMoves(text: string): { moves: string[]; version?: number } | null;
  answerCapMs: number;
  /** Deliveries in flight across all bots. */
  maxInFlight: number;
  /** Deliveries in flight to one bot: a slow bot with many games cannot take every slot. */
  maxInFlightPerBot: number;
  /** Deliveries waiting for one bot (one per game at most); past it a roll is not delivered. */
  maxQueuedPerBot: number;
  /** Deliveries waiting across all bots; past it a roll is not delivered. */
  maxQueued: number;
  log: Pick<Logger, 'warn'>;
  /** Metrics hook: every finished delivery's outcome and round trip. */
  observe?(outcome: Outcome, ms: number): void;
  /**
   * Cluster mode: whether this node delivers the game's rolls now (it owns the game's shard). A node
   * keeps watching a game whose shard moved away; only the owner delivers.
   */
  delivers?(game: GameHandle): boolean;
  /** Wait before a roll whose move went unanswered (the owner busy, or gone) is delivered again. */
  retryBusyMs?: number;
}

const SEATS: readonly Seat[] = ['White', 'Black'];

interface Task {
  botId: string;
  gameId: string;
  ply: number;
  /** When the roll joined the queue (injected clock): the wait until it leaves is credited back. */
  queuedAt: number;
  run: (queuedMs: number) => Promise<void>;
}

/** One bot's side of the queue: its waiting deliveries (one per game, oldest first) and its calls in flight. */
interface BotQueue {
  waiting: Map<string, Task>;
  inFlight: number;
}

export class WebhookDeliverer implements GameLifecycleListener {
  private inFlight = 0;
  /** Calls in flight beyond each bot's first, summed over bots (the shared part of the slots). */
  private extraInFlight = 0;
  private queued = 0;
  private dropped = 0;
  /** Bots with deliveries waiting or in flight. */
  private readonly bots = new Map<string, BotQueue>();
  /** Bots with deliveries waiting, in round-robin order: a bot joins at the back, and goes back there once served. */
  private readonly ready = new Map<string, BotQueue>();
  private readonly watches = new Map<string, GameWatch>();
  /** The ply of each game whose delivery is in flight: the same roll seen again is not sent twice. */
  private readonly delivering = new Map<string, number>();
  private stopped = false;
  /** Deliveries wait (queued, within their bounds) until the server listens: see hold(). */
  private held = false;

  constructor(private readonly deps: DelivererDeps) {}

  /**
   * Until release(), rolls are queued but not sent. The server resumes its games before it listens,
   * and a bot that answers a resumed roll may call the server back (a tree not in the delivery); with
   * edge threads, listening takes a while, so such a delivery went out before the server could be
   * called, and before a test could say how to answer it.
   */
  hold(): void {
    this.held = true;
  }

  /** The server listens: what was held is sent. */
  release(): void {
    this.held = false;
    this.dispatch();
  }

  gameStarted(game: GameHandle): void {
    this.watch(game);
  }

  gameResumed(game: GameHandle): void {
    // Resumed (here, or taken over from another node): watched afresh, so its pending roll is seen again.
    this.watches.get(game.id)?.stop();
    this.watch(game);
  }

  gameEnded(game: GameHandle): void {
    this.watches.get(game.id)?.stop();
  }

  /** Deliveries running or waiting (tests and metrics). */
  pending(): number {
    return this.inFlight + this.queued;
  }

  /** Rolls never queued because a queue bound was reached (metrics). */
  droppedCount(): number {
    return this.dropped;
  }

  /** Server stopping: nothing new starts; calls in flight are cut off and not marked finished. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const q of this.bots.values()) q.waiting.clear();
    this.ready.clear();
    this.queued = 0;
    for (const w of [...this.watches.values()]) w.stop();
    await this.deps.client.close();
  }

  private watch(game: GameHandle): void {
    if (this.stopped || this.watches.has(game.id)) return;
    // Only registered bots can hold a webhook; games without one are never watched.
    const seats = SEATS.filter((s) => this.deps.store.getBot(s === 'White' ? game.white.id : game.black.id) !== undefined);
    if (seats.length === 0) return;
    const w = new GameWatch(game, seats, this);
    this.watches.set(game.id, w);
    w.attach();
  }

  /** @internal GameWatch calls back here. */
  forget(id: string, w: GameWatch): void {
    if (this.watches.get(id) === w) this.watches.delete(id);
  }

  /**
   * @internal Whether a watch whose subscription was cut off while its game goes on subscribes again:
   * while this node delivers the game's rolls (a node that took the game over is told so by gameResumed).
   */
  keepsWatching(game: GameHandle, w: GameWatch): boolean {
    return !this.stopped && this.watches.get(game.id) === w && (this.deps.delivers?.(game) ?? true);
  }

  /** @internal A roll for `seat` at `ply` was published: deliver it once, if the bot has a webhook. */
  rolled(game: GameHandle, seat: Seat, ply: number): void {
    if (this.stopped) return;
    const botId = seat === 'White' ? game.white.id : game.black.id;
    if (!this.deps.store.getBot(botId)?.webhook) return;
    if (this.deps.delivers && !this.deps.delivers(game)) return; // another node owns the game: it delivers
    const done = this.deps.store.webhookDelivered(game.id);
    if (done !== undefined && done >= ply) return; // delivered before a restart
    if (this.delivering.get(game.id) === ply) return; // on its way (the game watched afresh meanwhile)
    let q = this.bots.get(botId);
    if (!q) {
      q = { waiting: new Map(), inFlight: 0 };
      this.bots.set(botId, q);
    }
    const task: Task = { botId, gameId: game.id, ply, queuedAt: this.deps.clock.now(), run: (queuedMs) => this.deliver(game, seat, botId, ply, queuedMs) };
    if (q.waiting.has(game.id)) {
      // A newer roll of a game still waiting replaces the older one (which could only be refused): its place in line is kept.
      q.waiting.set(game.id, task);
    } else if (q.waiting.size >= this.deps.maxQueuedPerBot || this.queued >= this.deps.maxQueued) {
      // Past a bound the roll is not delivered; the bot still sees it on its game stream and its clock runs.
      this.dropped++;
      if (q.inFlight === 0 && q.waiting.size === 0) this.bots.delete(botId);
      this.deps.log.warn({ gameId: game.id, botId, queued: this.queued }, 'webhook queue full: roll not delivered');
      return;
    } else {
      q.waiting.set(game.id, task);
      this.queued++;
      if (!this.ready.has(botId)) this.ready.set(botId, q);
    }
    this.dispatch();
  }

  /**
   * Starts waiting deliveries while slots are free, one per bot per round, bots in round-robin order.
   * A bot's first call in flight needs only a free slot; its second and later ones (up to its own
   * limit) come from the shared half of the slots, so bots with slow receivers and many games can
   * hold at most half the slots beyond one each, and a bot with nothing in flight starts at once.
   */
  private dispatch(): void {
    const extraCap = Math.floor(this.deps.maxInFlight / 2);
    let progress = true;
    while (progress && this.inFlight < this.deps.maxInFlight && !this.stopped && !this.held) {
      progress = false;
      for (const [botId, q] of [...this.ready]) {
        if (this.inFlight >= this.deps.maxInFlight) break;
        if (q.inFlight >= this.deps.maxInFlightPerBot) continue;
        if (q.inFlight > 0 && this.extraInFlight >= extraCap) continue;
        const [gameId, task] = q.waiting.entries().next().value as [string, Task];
        q.waiting.delete(gameId);
        this.queued--;
        // Served: to the back of the round, if it has more waiting.
        this.ready.delete(botId);
        if (q.waiting.size > 0) this.ready.set(botId, q);
        this.start(q, task);
        progress = true;
      }
    }
  }

  private start(q: BotQueue, task: Task): void {
    this.inFlight++;
    if (q.inFlight > 0) this.extraInFlight++;
    q.inFlight++;
    this.delivering.set(task.gameId, task.ply);
    const queuedMs = Math.max(0, this.deps.clock.now() - task.queuedAt);
    // Never inside the caller's stack (the actor's publish): start on a later microtask.
    void Promise.resolve()
      .then(() => task.run(queuedMs))
      .catch((e: unknown) => this.deps.log.warn({ err: String(e) }, 'webhook delivery failed'))
      .finally(() => {
        if (this.delivering.get(task.gameId) === task.ply) this.delivering.delete(task.gameId);
        this.inFlight--;
        if (q.inFlight > 1) this.extraInFlight--;
        q.inFlight--;
        if (q.inFlight === 0 && q.waiting.size === 0 && this.bots.get(task.botId) === q) this.bots.delete(task.botId);
        this.dispatch();
      });
  }

  private async deliver(game: GameHandle, seat: Seat, botId: string, ply: number, queuedMs: number): Promise<void> {
    const rec = game.record();
    if (this.stopped || !game.isActive() || rec.ply !== ply || rec.dice === null || rec.activeSeat !== seat) return;
    const hook = this.deps.store.getBot(botId)?.webhook;
    if (!hook) return; // removed while waiting: deliveries stop from this turn
    const now = this.deps.clock.now();
    const bank = rec.clocks ? (seat === 'White' ? rec.clocks.white : rec.clocks.black) : Infinity;
    const left = bank - (rec.clockStartedAt === null ? 0 : now - rec.clockStartedAt);
    const waitMs = Math.min(this.deps.answerCapMs, left);
    if (waitMs <= 0) return;
    const body = yourTurnJson(game.id, seat, game.stateJson());
    const res = await this.deps.client.post(hook.url, body, signatureHeaders(hook.secret, now, body), waitMs, botId);
    if (res.kind === 'closed') return; // cut off by shutdown: delivered again after the restart
    const verdict = await this.settle(game, seat, res, queuedMs);
    const outcome = verdict === 'busy' ? 'refused' : verdict;
    if (verdict === 'busy') {
      // The move got no verdict (the game's owner busy, or gone with its node): the roll is not
      // marked, and is delivered again unless the game has moved on (by whichever node owns it then).
      this.deps.clock.schedule(this.deps.retryBusyMs ?? 1000, () => this.rolled(game, seat, ply));
    } else if (outcome !== 'applied') {
      // An applied turn leaves no roll to re-deliver; anything else is remembered across a restart
      // (persisted before the outcome is counted where the bot can read it).
      await this.deps.store.markWebhookDelivered(game.id, ply);
    }
    this.deps.stats.record(botId, outcome, res.ms);
    this.deps.observe?.(outcome, res.ms);
  }

  private async settle(game: GameHandle, seat: Seat, res: Exclude<PostResult, { kind: 'closed' }>, queuedMs: number): Promise<Outcome | 'busy'> {
    switch (res.kind) {
      case 'timeout':
      case 'unreachable':
        return res.kind;
      case 'blocked':
        return 'policyBlocked';
      case 'tooLarge':
        return 'malformed';
      case 'answer': {
        if (res.status !== 200) return 'httpError';
        const answer = this.deps.parseMoves(res.body);
        if (answer === null) return 'malformed';
        if (answer.moves.length === 0) return 'declined';
        // The time the roll waited in this server's queue is not the bot's: the owner credits it back.
        const verdict = await game.move(seat, answer.moves, answer.version, queuedMs);
        if (verdict === 'busy') return 'busy';
        return verdict.applied ? 'applied' : 'refused';
      }
    }
  }
}

/**
 * The deliverer's subscription to one game. The game's side may end the subscription while the game
 * goes on: a cluster node's replica does so whenever it may have missed events (a gap in the owner's
 * updates, a resync, a takeover at a version it never showed), for its streams to start over from a
 * fresh Snapshot. A stream reconnects by itself; so does this watch (`close`), or else the game's
 * later rolls would never be delivered from this node, and the bot would lose on time (or, without a
 * clock, the game would wait forever) although it is the owner here.
 */
class GameWatch implements GameSubscriber {
  private lastPly = -1;
  private unsubscribe: (() => void) | null = null;
  /** Stopped for good (the game ended, or the deliverer let it go). */
  private stopped = false;

  constructor(
    private readonly game: GameHandle,
    private readonly seats: readonly Seat[],
    private readonly owner: WebhookDeliverer,
  ) {}

  attach(): void {
    if (this.stopped) return;
    const { snapshot, ended, unsubscribe } = this.game.subscribe(this);
    this.unsubscribe = unsubscribe;
    if (ended) return this.stop();
    // A roll already taken (before a re-attach) is not taken again: `lastPly` stays.
    this.deliver(snapshot);
  }

  deliver(frame: EventFrame): void {
    if (this.stopped) return;
    // Turns and rolls, nearly every line, are told from their text: on the main thread a frame's
    // event is parsed from its line on first use, and a roll's line carries its whole tree.
    if (lineIs(frame.line, 'TurnPlayed')) return;
    const roll = diceRolledGlance(frame.line);
    if (roll) {
      // An empty tree is a forced pass, which the actor plays itself.
      if (!roll.forcedPass) this.roll(roll.seat);
      return;
    }
    const ev = frame.event;
    if ('DiceRolled' in ev) {
      const r = ev.DiceRolled;
      if (r.legalMoves === null || Object.keys(r.legalMoves).length > 0) this.roll(r.seat);
    } else if ('Snapshot' in ev) {
      const s = ev.Snapshot.state;
      if ('Active' in s.status && s.dicePending && (s.legalMoves === null || Object.keys(s.legalMoves).length > 0)) {
        this.roll(s.activeSeat);
      }
    } else if ('GameEnded' in ev) {
      this.stop();
    }
  }

  /**
   * The game's side ended the subscription. When the game goes on (see the class comment) the watch
   * subscribes again, after the caller is done (a replica takes its new state right after cutting its
   * subscribers off), and takes the pending roll from the fresh Snapshot; else it stops.
   */
  close(): void {
    if (this.stopped) return;
    this.unsubscribe = null;
    queueMicrotask(() => {
      if (this.stopped) return;
      if (this.game.isActive() && this.owner.keepsWatching(this.game, this)) this.attach();
      else this.stop();
    });
  }

  /** Lets the game go: unsubscribed, and forgotten by the deliverer. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.owner.forget(this.game.id, this);
  }

  private roll(seat: Seat): void {
    if (!this.seats.includes(seat)) return;
    const ply = this.game.record().ply;
    if (ply <= this.lastPly) return;
    this.lastPly = ply;
    this.owner.rolled(this.game, seat, ply);
  }
}
