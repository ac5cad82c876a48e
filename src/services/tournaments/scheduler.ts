// Runs events: keeps up to `concurrency` mirror pairs of each running event in flight (never more
// than a bot's capacity allows, the host's limits or the events' share of the server), records each
// game's result as it ends, pairs Swiss rounds, stops an SPRT at its verdict, finishes events, and
// ends a cancelled one once its running pairs are over. One object that owns all its timers
// (start()/stop()); after a restart start() picks every event in play up where its record left it.
// See docs/API.md "Events" and docs/DECISIONS.md "Event pairing".
import { face, nextPairIndex, pairAt, pairFinishedLine, whiteScore, withGameResult } from './pair-records.js';
import { summaryLine } from './summary.js';
import { inPlay, pairFinished, pairRunning, type TournamentPairRecord, type TournamentRecord } from '../../domain/tournaments.js';
import type { GameRecord } from '../../domain/records.js';
import type { Seat } from '../../domain/types.js';
import { eventPairDice, hexToSeed, seedToHex } from '../../fair/index.js';
import type { GameHandle, GameLifecycleListener } from '../../game/types.js';
import type { Hold } from '../game-admission.js';
import { botSeat } from '../identity.js';
import { Periodic } from '../periodic.js';
import type { TournamentSchedulerConfig, TournamentSchedulerDeps } from './scheduler-deps.js';
import { expirePending } from './expiry.js';
import { TournamentLoad } from './load.js';
import { afterRestart, planNext } from './plan.js';
import { endedLine, pairsRunning, seedRevealed } from './reveal.js';
import { RefusalCounts } from './refusals.js';
import { Tallies } from './tally.js';
import { closeCancelled, dropReplays, startable, voidAttempt } from './replays.js';
import { pairControls } from './odds.js';

export type { TournamentSchedulerConfig, TournamentSchedulerDeps } from './scheduler-deps.js';

/** A mirror pair takes two of each player's seats, and two live games. */
const PAIR_SEATS = 2;
const PAIR_GAMES = 2;


export class TournamentScheduler implements GameLifecycleListener {
  private readonly ticks: Periodic;
  private stopped = true;
  /** Game id → the event and pair it belongs to (running pairs only). */
  private readonly byGame = new Map<string, { eventId: string; index: number }>();
  /** Serialises fill rounds: at most one runs, and one more is queued behind it. */
  private filling: Promise<void> | null = null;
  private again = false;
  private readonly load: TournamentLoad;
  private readonly refusals = new RefusalCounts();
  private readonly tallies = new Tallies();

  constructor(private readonly deps: TournamentSchedulerDeps, private readonly config: TournamentSchedulerConfig) {
    // Every look goes through round(), so two never run at once (a pair's index is the count of
    // pairs stored when it starts: two concurrent looks would give two pairs the same one).
    this.ticks = new Periodic(deps.clock, config.tickMs, () => this.round());
    this.load = new TournamentLoad(deps.isHouse ?? (() => false));
  }

  /**
   * Picks up every event with pairs still running, whatever its state (results of games that ended
   * while it was away included), then looks at them all.
   */
  async start(): Promise<void> {
    this.stopped = false;
    for (const ev of this.deps.followers.inPlay()) if (ev.pairs.some(pairRunning)) await this.resumeEvent(ev.id);
    this.load.reset(this.deps.followers.inPlay());
    this.ticks.start();
    this.kick();
  }

  /** Live games of the events this id hosts in which it does not sit itself (they count against its cap). */
  hostedBy(id: string): number {
    return this.load.hostedBy(id);
  }

  /** No further rounds; resolves once a round in progress has finished. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.ticks.stop();
    while (this.filling) await this.filling;
  }

  private house(botId: string): boolean {
    return this.deps.isHouse?.(botId) ?? false;
  }

  /** Look at every running event now (an event started, a pair ended). */
  kick(): void {
    if (this.stopped) return;
    if (this.filling) {
      this.again = true;
      return;
    }
    this.filling = this.fill().finally(() => {
      this.filling = null;
      if (this.again) {
        this.again = false;
        this.kick();
      }
    });
  }

  /** Looks at every running event now and resolves once that (and any look it asked for) is done. */
  async round(): Promise<void> {
    this.kick();
    while (this.filling) await this.filling;
  }

  /** Pairs in flight now, per event. */
  inFlight(ev: TournamentRecord): number {
    return pairsRunning(ev);
  }

  gameEnded(_game: GameHandle, rec: GameRecord): void {
    if (!this.byGame.has(rec.id)) return;
    this.recordGame(rec).catch(
      (e: unknown) => this.deps.log.error({ game: rec.id, err: String(e) }, 'could not record an event game'),
    );
  }

  /** Counted in memory, written with the event's next write or within a second (refusals.ts). */
  moveRefused(game: GameHandle, seat: Seat): void {
    const where = this.byGame.get(game.id);
    // Not in play (the store's index has no revision for events over): nothing is counted.
    if (!where || this.deps.followers.store.tournamentRevision(where.eventId) === undefined) return;
    const ev = this.deps.followers.get(where.eventId);
    const pair = ev && inPlay(ev.state) ? ev.pairs[pairAt(ev, where.index)] : undefined;
    const k = pair?.games?.indexOf(game.id) ?? -1;
    if (!pair || k < 0) return;
    // Game 0: the first player (a) is White; game 1: a is Black.
    this.refusals.count(where.eventId, (seat === 'White') === (k === 0) ? pair.a : pair.b, this.deps.clock.now());
  }

  private async recordGame(rec: GameRecord): Promise<void> {
    const where = this.byGame.get(rec.id);
    const white = whiteScore(rec);
    if (!where || white === null) return;
    const over = 'Ended' in rec.status ? rec.status.Ended.over : null;
    const r = await this.deps.followers.modify<boolean | null | { line: unknown; games: string[] }>(where.eventId, (ev) => {
      const at = pairAt(ev, where.index);
      const pair = ev.pairs[at];
      if (!pair?.games) return { next: null, value: null };
      const k = pair.games.indexOf(rec.id);
      if (k < 0 || pair.scores[k] !== null) return { next: null, value: null };
      const updated = withGameResult(pair, k, white, over?.termination);
      // Refusals waiting to be written go with this write (refusals.ts).
      let next: TournamentRecord = this.refusals.fold({ ...ev, pairs: ev.pairs.map((p, i) => (i === at ? updated : p)) });
      const done = pairFinished(updated);
      if (done && next.pairs[at].aborted) return voidAttempt(next, at);
      if (done) {
        const seq = ev.pairs.reduce((m, p) => Math.max(m, p.finishedSeq), 0) + 1;
        next.pairs[at] = { ...next.pairs[at], finishedSeq: seq };
        // The pair is added to the event's tally: no recount of every pair (tally.ts).
        const tally = this.tallies.of(ev, seq - 1);
        tally.add(next.pairs[at]);
        if (next.sprt && next.verdict === null && (next.state === 'running' || next.state === 'paused')) {
          const verdict = tally.sprt(next)?.verdict;
          if (verdict) next = { ...next, verdict, verdictAfter: seq, queue: [] };
        }
      }
      return { next, value: done };
    });
    if (r.ev) this.load.update(r.ev);
    if (r.value && typeof r.value === 'object') {
      for (const g of r.value.games) this.byGame.delete(g);
      this.deps.followers.publish(where.eventId, r.value.line);
      this.kick(); // the replay starts, or the event may end
    } else if (r.value) {
      const ev = r.ev!;
      const pair = ev.pairs[pairAt(ev, where.index)];
      for (const g of pair.games ?? []) this.byGame.delete(g);
      const finished = ev.pairs.reduce((m, p) => Math.max(m, p.finishedSeq), 0);
      const tally = this.tallies.of(ev, finished);
      this.deps.followers.publish(ev.id, pairFinishedLine(ev, pair, tally.standings(ev), tally.sprt(ev)?.llr ?? 0));
      const summary = summaryLine(ev, finished, tally);
      if (summary) this.deps.followers.publish(ev.id, summary);
      // Only an event stored over with a pair still running (before a cancel waited for its pairs)
      // ends here; the others end in a pass (finished, or cancelled once nothing runs).
      if ((ev.state === 'finished' || ev.state === 'cancelled') && seedRevealed(ev)) this.announceEnd(ev);
      // A finished pair frees seats and may end the event or a Swiss round.
      this.kick();
    }
  }

  /** One look at every event in play: finish the done ones, pair Swiss rounds, start pairs, end cancelled ones. */
  private async fill(): Promise<void> {
    if (this.stopped) return;
    try {
      await expirePending(this.deps.followers, this.deps.clock.now(), this.config.pendingTtlMs, (ev) => this.announceEnd(ev));
      await this.refusals.flush(this.deps.followers, this.deps.clock.now());
    } catch (e) {
      this.deps.log.error({ err: String(e) }, 'could not expire pending events or write refused moves');
    }
    const active = this.deps.followers.inPlay();
    this.load.reset(active);
    this.tallies.retain(new Set(active.map((e) => e.id)));
    // A cancelled event's running pairs still count against its host's limit.
    const perHost = new Map<string, number>();
    for (const ev of active) perHost.set(ev.host, (perHost.get(ev.host) ?? 0) + this.inFlight(ev));
    for (const ev of active) {
      if (this.stopped) return;
      try {
        await this.reconcile(ev);
        if (ev.state === 'running') await this.advance(ev.id, perHost);
        else await this.close(ev.id);
      } catch (e) {
        this.deps.log.error({ event: ev.id, err: String(e) }, 'event round failed');
      }
    }
  }

  private async advance(id: string, perHost: Map<string, number>): Promise<void> {
    // Plan: fill the queue (first start, a new Swiss round, SPRT pairs) or finish the event.
    const planned = await this.deps.followers.modify(id, (ev) => {
      if (ev.state !== 'running') return { next: null, value: { ended: false, lines: [] as unknown[] } };
      // After an SPRT's verdict no pair starts, nor a replay (replays.ts).
      const dropped = ev.verdict !== null ? dropReplays(ev, 'the SPRT reached its verdict') : null;
      const next = planNext(dropped?.next ?? ev, this.deps.clock.now()) ?? dropped?.next ?? null;
      return { next, value: { ended: next !== null && next.state !== 'running', lines: dropped?.lines ?? [] } };
    });
    const ev = planned.ev;
    for (const line of planned.value?.lines ?? []) this.deps.followers.publish(id, line);
    if (planned.value?.ended && ev) this.announceEnd(ev);
    if (!ev || ev.state !== 'running') return;
    // Choose every queued pair that fits now (the event's concurrency, the host's limits, the events'
    // share of the server, each bot's free seats, the live-game caps), give each its index, then start
    // them all at once. Indexes are handed out here, synchronously, inside a pass, and passes never
    // overlap (round()), so no two pairs can get the same index; the counts read here are as sure.
    const seatsTaken = new Map<string, number>();
    const free = (bot: string) => this.deps.seatsOf(bot) - this.deps.games.liveFor(bot).length - (seatsTaken.get(bot) ?? 0);
    const chosen: { at: number; index: number; a: number; b: number; round: number; holds: Hold[]; replay?: number }[] = [];
    let index = nextPairIndex(ev);
    let inFlight = this.inFlight(ev);
    let eventGames = this.load.total();
    let housePairs = this.load.housePairsOf(ev.host);
    let fromAddress = ev.hostAddress === undefined ? 0 : this.load.fromAddress(ev.hostAddress);
    // A pair waiting for its replay already holds its place in flight (it counts as running).
    for (const { at, a, b, round, replay } of startable(ev)) {
      if (replay === undefined && (inFlight >= ev.concurrency || (perHost.get(ev.host) ?? 0) >= this.config.pairsInFlightPerHost)) break;
      if (eventGames + PAIR_GAMES > (this.config.maxEventGames ?? Infinity)) break; // the rest of the server is the players'
      if (ev.hostAddress !== undefined && fromAddress + PAIR_GAMES > (this.config.gamesPerAddress ?? Infinity)) break; // hosts made from one address share a bound
      const house = this.load.housePair(ev, a, b);
      if (house && housePairs >= (this.config.houseOnlyPairsPerHost ?? Infinity)) continue; // an encounter with a bot of its own may still go
      const ids = [ev.players[a].id, ev.players[b].id];
      if (!ids.every((bot) => free(bot) >= PAIR_SEATS)) continue; // these two wait for seats; a later encounter may go now
      const holds = this.admit(ids, ev.host);
      if (!holds) break; // a live-game cap (the host's, a player's, the server's): try again at the next tick
      for (const bot of ids) seatsTaken.set(bot, (seatsTaken.get(bot) ?? 0) + PAIR_SEATS);
      if (replay === undefined) {
        perHost.set(ev.host, (perHost.get(ev.host) ?? 0) + 1);
        inFlight++;
      }
      eventGames += PAIR_GAMES;
      fromAddress += PAIR_GAMES;
      if (house) housePairs++;
      chosen.push({ at, index: replay ?? index++, a, b, round, holds, replay });
    }
    if (chosen.length === 0) return;
    const seed = hexToSeed(ev.seed)!;
    const started = await Promise.all(chosen.map(async (c) => {
      try {
        const dice = eventPairDice(seed, id, ev.dice === 'perRound', c);
        const games = await this.deps.games.createMirrorPair({
          white: botSeat(ev.players[c.a].team, ev.players[c.a].name),
          black: botSeat(ev.players[c.b].team, ev.players[c.b].name),
          ...pairControls(ev, c.a, c.b), // each player's own control with time odds
          // A house bot has no rating of its own to risk (the ladder never seats one), so a game
          // against it would move only the other side's: such games stay unrated.
          rated: ev.rated && !this.house(ev.players[c.a].id) && !this.house(ev.players[c.b].id),
          tournament: id,
          fair: { serverSeed: seedToHex(dice.serverSeed), clientSeeds: dice.clientSeeds },
        });
        return { ...c, games };
      } catch (e) {
        // Its queue entry stays for a later pass. Its index is left unused when a later pair of this
        // pass started (the next pass counts on from the last one stored).
        this.deps.log.warn({ event: id, err: String(e) }, 'could not start an event pair');
        if (c.replay === undefined) perHost.set(ev.host, (perHost.get(ev.host) ?? 0) - 1);
        for (const h of c.holds) h.release();
        return null;
      }
    }));
    // A started pair's places stay held until its games are counted from the stored record.
    try {
      await this.store(id, started);
    } finally {
      for (const c of started) for (const h of c?.holds ?? []) h.release();
    }
  }

  /** Stores the pairs just started in their event, counts their games and announces them. */
  private async store(id: string, started: ({ at: number; index: number; a: number; b: number; round: number; games: [GameHandle, GameHandle]; replay?: number } | null)[]): Promise<void> {
    const pairs: TournamentPairRecord[] = [];
    const taken = new Set<number>();
    const replayed = new Map<number, [string, string]>();
    for (const c of started) {
      if (!c) continue;
      const pair: TournamentPairRecord = {
        index: c.index, round: c.round, a: c.a, b: c.b, games: [c.games[0].id, c.games[1].id], scores: [null, null], timeLosses: [], finishedSeq: 0,
      };
      for (const g of pair.games!) this.byGame.set(g, { eventId: id, index: c.index });
      if (c.replay !== undefined) replayed.set(c.index, pair.games!);
      else pairs.push(pair);
      taken.add(c.at);
    }
    if (pairs.length === 0 && replayed.size === 0) return;
    const stored = await this.deps.followers.modify(id, (cur) => ({
      // Only this pass changes the queue while it runs, except for emptying it (a cancel, an SPRT
      // verdict). Pairs started meanwhile are stored whatever the state: a cancel waits for them.
      // A replay takes its own pair's place again (same index, same dice), with its new games.
      next: { ...cur, pairs: [...cur.pairs.map((p) => (p.games === null && replayed.has(p.index) ? { ...p, games: replayed.get(p.index)! } : p)), ...pairs], queue: cur.queue.filter((_, j) => !taken.has(j)) },
      value: null,
    }));
    const now = stored.ev!;
    this.load.update(now);
    for (const p of [...now.pairs.filter((q) => replayed.has(q.index)), ...pairs]) {
      this.deps.followers.publish(id, { PairStarted: { eventId: id, index: p.index, round: p.round, players: [face(now, p.a), face(now, p.b)], games: p.games } });
    }
    // A game may have ended before its pair was stored (a very fast house pair).
    await this.reconcile(now);
  }

  /**
   * Takes the result of every running pair's game that has ended without its end reaching this
   * scheduler (it ended while its pair was being stored, or while the scheduler was away).
   */
  private async reconcile(ev: TournamentRecord): Promise<void> {
    for (const p of ev.pairs) {
      if (!p.games || !pairRunning(p)) continue;
      for (const [k, g] of p.games.entries()) {
        if (p.scores[k] !== null) continue;
        this.byGame.set(g, { eventId: ev.id, index: p.index });
        const rec = this.recordOf(g) ?? (await this.deps.followers.store.loadGame?.(g));
        if (rec && whiteScore(rec) !== null) await this.recordGame(rec);
      }
    }
  }

  /** After a restart, an event with pairs still running: see afterRestart; then the results of games that ended meanwhile. */
  private async resumeEvent(id: string): Promise<void> {
    const voids = (ev: TournamentRecord) => ev.pairs.filter((p) => p.void === true).length;
    const found = await this.loadRunning(id);
    const r = await this.deps.followers.modify(id, (ev) => {
      const next = afterRestart(ev, (g) => this.recordOf(g) !== undefined || found.has(g));
      return { next, value: next !== null && voids(next) > voids(ev) };
    });
    if (r.value) this.deps.log.warn({ event: id }, 'event pairs whose games are gone from the store were made void');
    if (r.ev) await this.reconcile(r.ev);
  }

  /**
   * A cancelled event is over once none of its pairs runs: it becomes `cancelled` and its seed is
   * published (a pair started by a pass that crossed the cancel is waited for like the others).
   */
  private async close(id: string): Promise<void> {
    const r = await this.deps.followers.modify(id, (ev) => {
      const c = closeCancelled(ev, this.deps.clock.now());
      return { next: c.next, value: c };
    });
    for (const line of r.value?.lines ?? []) this.deps.followers.publish(id, line);
    if (r.value?.closed && r.ev) this.announceEnd(r.ev);
  }

  /**
   * The games of the event's running pairs that a store reading finished games on demand (a cluster
   * node's) holds although getGame cannot answer them now. Empty for the other stores.
   */
  private async loadRunning(id: string): Promise<Set<string>> {
    const found = new Set<string>();
    const load = this.deps.followers.store.loadGame?.bind(this.deps.followers.store);
    const ev = load ? this.deps.followers.get(id) : undefined;
    for (const p of ev?.pairs ?? []) {
      if (!p.games || !pairRunning(p)) continue;
      for (const g of p.games) if (this.recordOf(g) === undefined && (await load!(g)) !== undefined) found.add(g);
    }
    return found;
  }

  /** A game's record wherever it is (ended: the registry's archive; else the store). */
  private recordOf(gameId: string): GameRecord | undefined {
    return this.deps.games.finalRecord(gameId) ?? this.deps.followers.store.getGame(gameId);
  }

  /** The last line of the event's stream: only ever for an event whose seed may be seen. */
  private announceEnd(ev: TournamentRecord): void {
    this.tallies.forget(ev.id);
    this.refusals.forget(ev.id);
    if (seedRevealed(ev)) this.deps.followers.publish(ev.id, endedLine(ev), true);
  }

  /** Places for both games of a pair under the live-games caps (the host's too), or null (nothing held) when refused. */
  private admit(ids: string[], host: string): Hold[] | null {
    if (!this.deps.admission) return [];
    const held = this.deps.admission.reserveGames(ids, PAIR_SEATS, host);
    return held.ok ? held.value : null;
  }
}
