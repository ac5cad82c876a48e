// The bridge itself: an identity, the account stream, the games, and the ways games are found
// (challenges received and filtered, challenges sent in a loop, public seeks, the ladder). Each
// game is a GameRunner; engines come from Engines.
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { Client, isTransient, type AccountEvent } from '../client/index.js';
import type { Participant, TimeControl } from '../domain/types.js';
import type { BridgeConfig, OpponentKind } from './config.js';
import { Engines } from './engines.js';
import { GameRunner } from './game.js';
import { Reporter } from './report.js';

const SEEK_POLL_MS = 60_000;
const RETRY_MS = 5_000;

interface TokenFile {
  url: string;
  team: string;
  name: string;
  token: string;
}

/** Kind of a challenger for the accept filter. */
export function opponentKind(p: Participant): OpponentKind {
  if ('Bot' in p) return p.Bot.team === 'anon' ? 'anonymous' : p.Bot.team === 'house' ? 'house' : 'registered';
  return 'guest';
}

const describeParty = (p: Participant): string => ('Bot' in p ? `${p.Bot.team}/${p.Bot.name}` : 'Guest' in p ? `guest ${p.Guest.id}` : `user ${p.User.id}`);

/** Why a challenge is declined, or null to accept it. */
export function challengeVerdict(config: BridgeConfig, challenger: Participant, tc: TimeControl, freeSlots: number): string | null {
  const a = config.accept;
  if (!a.enabled) return 'this bridge accepts no challenges';
  if (freeSlots <= 0) return 'no free game slot';
  if (!a.opponents.includes(opponentKind(challenger))) return `${opponentKind(challenger)} opponents are not accepted`;
  const kind = Object.keys(tc)[0] as keyof typeof tc & string;
  if (!a.timeControls.includes(kind as never)) return `${kind} is not accepted`;
  if ('SuddenDeath' in tc || 'Fischer' in tc) {
    const initial = 'SuddenDeath' in tc ? tc.SuddenDeath.initialSeconds : tc.Fischer.initialSeconds;
    if (initial < a.minInitialSeconds || initial > a.maxInitialSeconds) return `initial time ${initial} s is outside ${a.minInitialSeconds}..${a.maxInitialSeconds}`;
  }
  if ('Fischer' in tc && tc.Fischer.incrementSeconds > a.maxIncrementSeconds) return `increment above ${a.maxIncrementSeconds} s`;
  if ('PerMove' in tc && tc.PerMove.secondsPerMove < a.minSecondsPerMove) return `under ${a.minSecondsPerMove} s a move`;
  return null;
}

export class Bridge {
  readonly report: Reporter;
  readonly client: Client;
  private readonly engines: Engines;
  private readonly running = new Map<string, GameRunner>();
  private readonly done = new Set<string>();
  /** Games started (counted against --games). */
  private started = 0;
  private finished = 0;
  private stopping = false;
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
  ) {
    this.report = report ?? new Reporter(config.output);
    this.client = new Client({ url: config.url, fetch: fetchImpl });
    this.engines = new Engines(
      { command: config.engine.command, cwd: config.engine.cwd, helloTimeoutMs: config.engine.helloTimeoutSeconds * 1000 },
      config.engine.restartDelaySeconds * 1000,
      this.report,
    );
  }

  /** Identity, engine check, ladder; then the account stream and the first games. Throws on a fatal problem. */
  async start(): Promise<void> {
    const who = await this.identify();
    this.face = `${who.team} ${who.name}`;
    const hello = await this.engines.probe();
    this.report.emit({ event: 'ready', id: who.id, engine: hello.name, concurrent: hello.concurrent });
    if (this.config.ladder.join) {
      const cap = await this.client.setCapacity({ capacity: this.config.ladder.capacity });
      if (!cap.ok) throw new Error(`ladder capacity: ${cap.problem.detail}`);
      const joined = await this.client.joinLadder();
      if (!joined.ok) throw new Error(`ladder: ${joined.problem.detail}`);
    }
    if (this.config.acceptEventsFrom) {
      const hosts = this.config.acceptEventsFrom.map((h) => ({ team: h.slice(0, h.indexOf('/')), name: h.slice(h.indexOf('/') + 1) }));
      const set = await this.client.setEventHosts({ hosts, rated: this.config.acceptRatedEvents });
      if (!set.ok) throw new Error(`event hosts: ${set.problem.detail}`);
    }
    void this.holdAccountStream();
    void this.topUp();
  }

  /** Stops taking new games; resolves `stopped` when the running ones are over. */
  async stop(now = false): Promise<void> {
    if (!this.stopping) {
      this.stopping = true;
      this.account?.close();
      for (const t of this.timers) clearTimeout(t);
      await Promise.all([...this.seeks].map(([id, secret]) => this.client.cancelSeek(id, { secret })));
      this.seeks.clear();
      if (this.config.ladder.join) await this.client.leaveLadder();
    }
    if (now) for (const g of this.running.values()) g.stop();
    this.maybeDone();
  }

  // Identity: a token given, the token file, a registration, or an anonymous mint.
  private async identify(): Promise<{ id: string; team: string; name: string }> {
    const c = this.config;
    const saved = this.readTokenFile();
    const candidates = [c.token, saved && (!c.register || `${saved.team}/${saved.name}` === c.register) ? saved.token : null];
    for (const token of candidates) {
      if (!token) continue;
      this.client.token = token;
      const me = await this.client.getAccount();
      if (me.ok) return me.value;
      if (token === c.token) throw new Error(`the token was refused: ${me.problem.detail}`);
    }
    if (c.register) {
      const [team, name] = c.register.split('/') as [string, string];
      const r = await this.client.register({ team, name });
      if (!r.ok) throw new Error(`register ${c.register}: ${r.problem.detail}${r.status === 409 ? ` (its token is not in ${c.tokenFile})` : ''}`);
      this.saveToken(r.value);
      this.client.token = r.value.token;
      return r.value;
    }
    const r = await this.client.mintAnonymous({ name: c.anonName });
    if (!r.ok) throw new Error(`anonymous token: ${r.problem.detail}`);
    this.saveToken(r.value);
    this.client.token = r.value.token;
    return r.value;
  }

  private readTokenFile(): TokenFile | undefined {
    if (!existsSync(this.config.tokenFile)) return undefined;
    try {
      const t = JSON.parse(readFileSync(this.config.tokenFile, 'utf8')) as TokenFile;
      return t.url === this.config.url && typeof t.token === 'string' ? t : undefined;
    } catch {
      return undefined;
    }
  }

  private saveToken(t: { token: string; team: string; name: string }): void {
    const body: TokenFile = { url: this.config.url, team: t.team, name: t.name, token: t.token };
    writeFileSync(this.config.tokenFile, `${JSON.stringify(body, null, 2)}\n`, { mode: 0o600 });
    chmodSync(this.config.tokenFile, 0o600); // also when the file was already there
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
    if (r.ok) for (const g of r.value.games) this.startGame(g.gameId);
  }

  private async onAccount(event: AccountEvent): Promise<void> {
    if ('ChallengeReceived' in event) {
      const { id, challenger, timeControl } = event.ChallengeReceived;
      const opponent = describeParty(challenger);
      const why = this.wantsMore() ? challengeVerdict(this.config, challenger, timeControl, this.freeSlots()) : 'stopping';
      if (why === null) {
        const r = await this.client.acceptChallenge(id);
        if (r.ok) {
          this.report.emit({ event: 'challengeAccepted', challengeId: id, opponent });
          this.startGame(r.value.gameId);
        } else this.report.emit({ event: 'error', message: `accepting ${id}: ${r.problem.detail}` });
      } else {
        await this.client.declineChallenge(id);
        this.report.emit({ event: 'challengeDeclined', challengeId: id, opponent, why });
      }
    } else if ('GameStart' in event) {
      this.startGame(event.GameStart.gameId);
    } else if ('ChallengeDeclined' in event) {
      // Declined or expired: wait before asking again, so a bot that declines at once is not flooded.
      this.later(() => void this.topUp(), RETRY_MS);
    } else if ('LadderRemoved' in event) {
      this.report.emit({ event: 'error', message: `taken off the ladder: ${event.LadderRemoved.reason}` });
      if (this.config.ladder.join && !this.stopping) await this.client.joinLadder();
    }
  }

  private freeSlots(): number {
    return this.config.maxGames - this.running.size;
  }

  /** Whether more games should be started (--games not yet reached, not stopping). */
  private wantsMore(): boolean {
    return !this.stopping && (this.config.games === null || this.started < this.config.games);
  }

  private startGame(gameId: string): void {
    if (this.running.has(gameId) || this.done.has(gameId)) return;
    const runner = new GameRunner(gameId, this.client, this.engines, this.report, {
      turnTimeoutMs: this.config.engine.turnTimeoutSeconds * 1000,
      resignMarginMs: this.config.engine.resignMarginSeconds * 1000,
      face: this.face,
      onStart: (seat, opponent) => this.report.emit({ event: 'gameStarted', gameId, seat, opponent }),
    });
    this.running.set(gameId, runner);
    this.started++;
    this.report.tally.running = this.running.size;
    this.engines.tell(gameId, { type: 'gameStarted', gameId });
    void runner.run().then(
      (outcome) => this.gameOver(gameId, outcome),
      (e) => {
        this.report.emit({ event: 'error', message: `game ${gameId}: ${(e as Error).message}` });
        this.gameOver(gameId, null);
      },
    );
    if (this.config.games !== null && this.started >= this.config.games) void this.stop();
  }

  private gameOver(gameId: string, outcome: Awaited<ReturnType<GameRunner['run']>>): void {
    this.running.delete(gameId);
    this.done.add(gameId);
    this.finished++;
    this.report.tally.running = this.running.size;
    const ended = outcome
      ? { type: 'gameEnded', gameId, result: outcome.result, termination: outcome.termination }
      : { type: 'gameEnded', gameId, result: null, termination: null };
    this.engines.release(gameId, ended);
    if (outcome) {
      this.report.emit({ event: 'gameEnded', gameId, seat: outcome.seat, result: outcome.result, termination: outcome.termination });
    }
    this.maybeDone();
    void this.topUp();
  }

  private maybeDone(): void {
    if (this.stopping && this.running.size === 0) {
      this.engines.closeAll();
      this.report.emit({ event: 'stopped', played: this.finished });
      this.finishedAll();
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
    const budget = () =>
      Math.min(this.freeSlots(), this.config.games === null ? Infinity : this.config.games - this.started);
    if (opponents.length) {
      const out = await this.client.listChallenges();
      if (!out.ok) return this.later(() => void this.topUp(), RETRY_MS);
      let pending = out.value.out.length;
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
    const wantSeeks = Math.min(this.config.seeks.count, budget());
    while (this.wantsMore() && this.seeks.size < wantSeeks) {
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
      if (r.ok && r.value.gameId) this.startGame(r.value.gameId);
      void this.topUp();
    }, SEEK_POLL_MS);
  }
}
