// The bridge itself: an identity, the account stream, the games, and the ways games are found
// (challenges received and filtered, challenges sent in a loop, public seeks, the ladder). Each
// game is a GameRunner; engines come from Engines.
//
// The limits hold for every game, however it comes: a game the server announces (GameStart, or the
// list of live games after a reconnect) over `maxGames`, past `--games` or while stopping is not
// given an engine but resigned, and so is one that neither the bridge asked for nor its `accept`
// filter allows (admit.ts). Each such game is a `gameRefused` line of the output. When the bridge is
// on the ladder, `ladder.capacity` slots are kept for ladder games: challenges, seeks and challenges
// accepted use only the others, so a ladder game is not refused for want of a slot.
import { Client, isTransient, type AccountEvent } from '../client/index.js';
import type { Participant, Seat } from '../domain/types.js';
import { announcedVerdict, challengeVerdict, type AnnouncedGame } from './admit.js';
import type { BridgeConfig } from './config.js';
import { Engines } from './engines.js';
import { GameRunner } from './game.js';
import { findEvent, gameStartedMessage } from './game-info.js';
import { answerInvitation, joinLadderAtStart } from './invitations.js';
import { Journal } from './journal.js';
import { Reporter } from './report.js';
import { identify } from './identity.js';

export { challengeVerdict, opponentKind } from './admit.js';

const SEEK_POLL_MS = 60_000;
const RETRY_MS = 5_000;
/** Games over (or refused) remembered so that a repeated announcement is ignored; the oldest are forgotten. */
const DONE_KEPT = 10_000;

/** Test seams. */
export interface BridgeHooks {
  /** Waits between tries while the server does not answer at start (a real timer by default). */
  sleep?: (ms: number) => Promise<void>;
}

const describeParty = (p: Participant): string => ('Bot' in p ? `${p.Bot.team}/${p.Bot.name}` : 'Guest' in p ? `guest ${p.Guest.id}` : `user ${p.User.id}`);

export class Bridge {
  readonly report: Reporter;
  readonly client: Client;
  private readonly engines: Engines;
  private readonly journal: Journal;
  /** On the ladder now: joined at start and not taken off since. */
  private ladderOn = false;
  private readonly running = new Map<string, GameRunner>();
  private readonly done = new Set<string>();
  /** Games announced and given a runner whose first Snapshot has not yet been judged. */
  private readonly awaiting = new Set<string>();
  /** Games this bridge asked for itself: a challenge it accepted, a seek it saw matched. */
  private readonly askedFor = new Set<string>();
  /** Running ladder games (their share of the ladder's slots is in use). */
  private readonly ladderGames = new Set<string>();
  /** Games admitted (counted against --games). */
  private started = 0;
  private finished = 0;
  private stopping = false;
  private readonly halt = new AbortController();
  private face = '';
  private account: { close(): void } | undefined;
  private readonly seeks = new Map<string, string>(); // seekId → secret
  private nextChallenge = 0;
  private topping: Promise<void> | undefined;
  private timers = new Set<NodeJS.Timeout>();
  private finishedAll!: () => void;
  /** Resolves when the bridge has stopped (after --games, or stop()) and every game is over. */
  readonly stopped = new Promise<void>((r) => (this.finishedAll = r));

  constructor(
    readonly config: BridgeConfig,
    report?: Reporter,
    fetchImpl?: typeof globalThis.fetch,
    private readonly hooks: BridgeHooks = {},
  ) {
    this.report = report ?? new Reporter(config.output);
    // One try per call: the bridge has a retry policy of its own for each thing it does (waiting for
    // the server at start, a turn sent until the game moves on, streams, the challenge loop).
    this.client = new Client({ url: config.url, fetch: fetchImpl, retry: { attempts: 1 }, userAgent: 'dicechess-bridge' });
    this.journal = new Journal(config.transcripts, config.logFile, (message) => this.report.emit({ event: 'error', message }));
    if (config.logFile !== null) this.report.tee((line) => this.journal.bridge(line));
    const e = config.engine;
    this.engines = new Engines(
      { command: e.command, cwd: e.cwd, helloTimeoutMs: e.helloTimeoutSeconds * 1000, options: e.options },
      e.restartDelaySeconds * 1000,
      this.report,
      this.journal,
    );
  }

  /** Identity, engine check, ladder; then the account stream and the first games. Throws on a fatal problem. */
  async start(): Promise<void> {
    const who = await identify({
      client: this.client,
      config: this.config,
      report: this.report,
      sleep: this.hooks.sleep ?? ((ms) => this.pause(ms)),
      stopping: () => this.stopping,
    });
    this.face = `${who.team} ${who.name}`;
    const hello = await this.engines.probe();
    this.report.emit({ event: 'ready', id: who.id, engine: hello.name, concurrent: hello.concurrent });
    if (this.config.ladder.join) this.ladderOn = await joinLadderAtStart(this.client, this.config, this.report, who.team, who.name);
    if (this.config.acceptEventsFrom) {
      const hosts = this.config.acceptEventsFrom.map((h) => ({ team: h.slice(0, h.indexOf('/')), name: h.slice(h.indexOf('/') + 1) }));
      const set = await this.client.setEventHosts({ hosts, rated: this.config.acceptRatedEvents });
      if (!set.ok) throw new Error(`event hosts: ${set.problem.detail}`);
    }
    void this.holdAccountStream();
    void this.topUp();
  }

  /** A wait that stop() cuts short (Ctrl-C while waiting for the server ends the wait at once). */
  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => (clearTimeout(timer), this.halt.signal.removeEventListener('abort', done), resolve());
      const timer = setTimeout(done, ms);
      this.halt.signal.addEventListener('abort', done);
    });
  }

  /** Stops taking new games; resolves `stopped` when the running ones are over. */
  async stop(now = false): Promise<void> {
    if (!this.stopping) {
      this.stopping = true;
      this.halt.abort();
      this.account?.close();
      for (const t of this.timers) clearTimeout(t);
      await Promise.all([...this.seeks].map(([id, secret]) => this.client.cancelSeek(id, { secret })));
      this.seeks.clear();
      if (this.ladderOn) await this.client.leaveLadder();
      this.ladderOn = false;
    }
    if (now) for (const g of this.running.values()) g.stop();
    this.maybeDone();
  }

  private async holdAccountStream(): Promise<void> {
    const stream = this.client.streamAccountEvents({
      onConnect: () => void this.recover(),
      onRetry: (f, waitMs) => this.report.emit({ event: 'reconnecting', stream: 'account', status: f.status, detail: f.problem.detail, waitMs }),
    });
    this.account = stream;
    if (this.stopping) stream.close();
    try {
      for await (const event of stream) await this.onAccount(event);
    } catch (e) {
      this.report.emit({ event: 'error', message: `account stream: ${(e as Error).message}` });
      void this.stop();
    }
  }

  /** After every (re)connect: the live games, in case a GameStart was missed. */
  private async recover(): Promise<void> {
    const r = await this.client.listMyGames();
    if (r.ok) for (const g of r.value.games) await this.announce(g.gameId);
  }

  private async onAccount(event: AccountEvent): Promise<void> {
    if ('ChallengeReceived' in event) {
      const { id, challenger, timeControl } = event.ChallengeReceived;
      const opponent = describeParty(challenger);
      const why = this.wantsMore() ? challengeVerdict(this.config, challenger, timeControl, this.ownSlots() - this.seeks.size) : 'stopping';
      if (why === null) {
        const r = await this.client.acceptChallenge(id);
        if (r.ok) {
          this.report.emit({ event: 'challengeAccepted', challengeId: id, opponent });
          await this.announce(r.value.gameId, true);
        } else this.report.emit({ event: 'error', message: `accepting ${id}: ${r.problem.detail}` });
      } else {
        await this.client.declineChallenge(id);
        this.report.emit({ event: 'challengeDeclined', challengeId: id, opponent, why });
      }
    } else if ('GameStart' in event) {
      await this.announce(event.GameStart.gameId);
    } else if ('ChallengeDeclined' in event) {
      // Declined or expired: wait before asking again, so a bot that declines at once is not flooded.
      this.later(() => void this.topUp(), RETRY_MS);
    } else if ('LadderRemoved' in event) {
      // The server's safeguard is the operator's to overrule, not the bridge's: it stays off.
      this.ladderOn = false;
      this.report.emit({ event: 'ladderRemoved', reason: event.LadderRemoved.reason, rejoin: 'restart the bridge with --rejoin-ladder to join again' });
    } else if ('EventInvitation' in event) {
      await answerInvitation(this.client, this.config, this.report, event.EventInvitation, this.face.replace(' ', '/'), this.stopping);
    }
  }

  /**
   * Slots for the games the bridge finds itself (challenges sent and accepted, seeks): the free ones
   * less those kept for the ladder. Open seeks are the caller's to count.
   */
  private ownSlots(): number {
    const ladder = this.ladderOn && !this.stopping ? Math.max(0, this.config.ladder.capacity - this.ladderGames.size) : 0;
    return this.config.maxGames - this.running.size - ladder;
  }

  /** Games --games still allows (those announced and not yet judged count as taken). */
  private gamesLeft(): number {
    return this.config.games === null ? Infinity : this.config.games - this.started - this.awaiting.size;
  }

  /** Whether more games should be started (--games not yet reached, not stopping). */
  private wantsMore(): boolean {
    return !this.stopping && this.gamesLeft() > 0;
  }

  /**
   * A game the server says this bridge plays (`askedFor`: the bridge accepted its challenge or saw
   * its seek matched). Within the limits it gets a runner, which shows its first Snapshot to admit();
   * over them it is resigned at once.
   */
  private async announce(gameId: string, askedFor = false): Promise<void> {
    if (this.running.has(gameId)) {
      if (askedFor) this.askedFor.add(gameId); // seen first in the list of live games
      return;
    }
    if (this.done.has(gameId)) return;
    const c = this.config;
    const over = this.stopping
      ? 'the bridge is stopping'
      : !this.wantsMore()
        ? `its ${c.games} games (--games) are played or under way`
        : this.running.size >= c.maxGames
          ? `no free game slot (${this.running.size} running, maxGames ${c.maxGames})`
          : null;
    if (over !== null) return this.refuse(gameId, over, true);
    if (askedFor) this.askedFor.add(gameId);
    let admitted = false;
    const runner = new GameRunner(gameId, this.client, this.engines, this.report, {
      turnTimeoutMs: c.engine.turnTimeoutSeconds * 1000,
      resignMarginMs: c.engine.resignMarginSeconds * 1000,
      moveOverheadMs: c.engine.moveOverheadMs,
      face: this.face,
      admit: (seat, game) => {
        const why = this.admit(gameId, seat, game);
        admitted = why === null;
        return why;
      },
      onStart: async (seat, opponent, state) => {
        this.report.emit({ event: 'gameStarted', gameId, seat, opponent });
        if ('Ended' in state.status) return; // over before it was seen: no engine is asked anything
        // A game the bridge found itself or a ladder pairing is no event's; any other may be.
        const event = this.askedFor.has(gameId) || state.ladder ? null : await findEvent(this.client, gameId, (ms) => this.pause(ms));
        this.engines.begin(gameId, gameStartedMessage(gameId, seat, state, event));
      },
      record: (entry) => this.journal.game(gameId, entry),
    });
    this.running.set(gameId, runner);
    this.awaiting.add(gameId);
    this.report.tally.running = this.running.size;
    void runner.run().then(
      async (outcome) => {
        if (runner.refused !== undefined) await this.refuse(gameId, runner.refused, runner.seat !== null);
        this.gameOver(gameId, outcome, admitted);
      },
      (e) => {
        this.report.emit({ event: 'error', message: `game ${gameId}: ${(e as Error).message}` });
        this.gameOver(gameId, null, admitted);
      },
    );
  }

  /** At the first Snapshot of an announced game: why it is not played, or null (it now counts as started). */
  private admit(gameId: string, seat: Seat | null, game: AnnouncedGame): string | null {
    this.awaiting.delete(gameId);
    const why = seat === null ? 'this bridge is not seated in it' : announcedVerdict(this.config, game, seat, this.askedFor.has(gameId));
    if (why !== null) return why;
    this.started++;
    if (game.ladder) this.ladderGames.add(gameId);
    if (this.config.games !== null && this.started >= this.config.games) void this.stop();
    return null;
  }

  /** A game not played: resigned (unless the bridge is not seated in it), and said so. */
  private async refuse(gameId: string, why: string, resign: boolean): Promise<void> {
    this.remember(gameId);
    this.askedFor.delete(gameId);
    let resigned = false;
    let detail: string | undefined;
    if (resign) {
      const r = await this.client.resign(gameId);
      resigned = r.ok;
      if (!r.ok) detail = `resigning failed: ${r.status || 'no answer'} ${r.problem.detail}`;
    }
    this.report.emit({ event: 'gameRefused', gameId, why, resigned, ...(detail === undefined ? {} : { detail }) });
  }

  private remember(gameId: string): void {
    this.done.add(gameId);
    if (this.done.size > DONE_KEPT) this.done.delete(this.done.values().next().value!);
  }

  /** A runner is done; `admitted`: its game was played (an engine may have been told of it). */
  private gameOver(gameId: string, outcome: Awaited<ReturnType<GameRunner['run']>>, admitted: boolean): void {
    this.running.delete(gameId);
    this.awaiting.delete(gameId);
    this.askedFor.delete(gameId);
    this.ladderGames.delete(gameId);
    this.remember(gameId);
    this.report.tally.running = this.running.size;
    if (admitted) {
      const ended = outcome
        ? { type: 'gameEnded', gameId, result: outcome.result, termination: outcome.termination }
        : { type: 'gameEnded', gameId, result: null, termination: null };
      this.engines.release(gameId, ended);
    }
    this.journal.close(gameId);
    if (outcome) {
      this.finished++;
      this.report.emit({ event: 'gameEnded', gameId, seat: outcome.seat, result: outcome.result, termination: outcome.termination });
    } else if (admitted) this.finished++;
    this.maybeDone();
    void this.topUp();
  }

  private maybeDone(): void {
    if (this.stopping && this.running.size === 0) {
      this.engines.closeAll();
      this.report.emit({ event: 'stopped', played: this.finished });
      void this.journal.closeAll().then(() => this.finishedAll());
    }
  }

  private later(fn: () => void, ms: number): void {
    const t = setTimeout(() => {
      this.timers.delete(t);
      fn();
    }, ms);
    this.timers.add(t);
  }

  /** Fills free slots with challenges and seeks, one pass at a time. */
  private topUp(): Promise<void> {
    this.topping ??= this.fill().finally(() => (this.topping = undefined));
    return this.topping;
  }

  private async fill(): Promise<void> {
    const opponents = this.config.challenge.opponents;
    if (!this.wantsMore()) return;
    // Every open seek and pending challenge may become a game: together they stay within the room.
    const budget = () => Math.min(this.ownSlots(), this.gamesLeft()) - this.seeks.size;
    let pending = 0;
    if (opponents.length) {
      const out = await this.client.listChallenges();
      if (!out.ok) return this.later(() => void this.topUp(), RETRY_MS);
      pending = out.value.out.length;
      while (this.wantsMore() && pending < budget()) {
        const target = opponents[this.nextChallenge++ % opponents.length]!;
        const [team, name] = target.split('/') as [string, string];
        const r = await this.client.createChallenge({ team, name, timeControl: this.config.challenge.timeControl });
        if (!r.ok) {
          this.report.emit({ event: 'error', message: `challenging ${target}: ${r.problem.detail}` });
          if (isTransient(r) || r.status === 404) this.later(() => void this.topUp(), Math.max(RETRY_MS, (r.retryAfter ?? 0) * 1000));
          return;
        }
        pending++;
        this.report.emit({ event: 'challengeSent', challengeId: r.value.id, opponent: target });
      }
    }
    while (this.wantsMore() && this.seeks.size < this.config.seeks.count && pending < budget()) {
      const r = await this.client.createSeek({ timeControl: this.config.seeks.timeControl });
      if (!r.ok) {
        this.report.emit({ event: 'error', message: `seek: ${r.problem.detail}` });
        this.later(() => void this.topUp(), RETRY_MS);
        return;
      }
      this.seeks.set(r.value.seekId, r.value.secret);
      this.report.emit({ event: 'seekOpened', seekId: r.value.seekId });
      this.keepSeek(r.value.seekId, r.value.secret);
    }
  }

  /** Polls an open seek so it stays open; a match starts the game (GameStart comes too). */
  private keepSeek(id: string, secret: string): void {
    this.later(async () => {
      if (!this.seeks.has(id)) return;
      const r = await this.client.pollSeek(id, { secret });
      if (r.ok && !r.value.matched) return this.keepSeek(id, secret);
      this.seeks.delete(id);
      if (r.ok && r.value.gameId) await this.announce(r.value.gameId, true);
      void this.topUp();
    }, SEEK_POLL_MS);
  }
}
