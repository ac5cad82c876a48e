// Runs events: keeps up to `concurrency` mirror pairs of each running event in flight (never more
// than a bot's capacity allows, never more than the host's limit), records each game's result as it
// ends, pairs Swiss rounds, stops an SPRT at its verdict, and finishes events. One object that owns
// all its timers (start()/stop()); after a restart start() picks every running event up where its
// record left it. See docs/API.md "Events" and docs/DECISIONS.md "Event pairing".
import type { Clock } from '../../domain/clock.js';
import type { Logger } from '../../domain/log.js';
import type { TournamentPairRecord, TournamentRecord, GameScore } from '../../domain/tournaments.js';
import type { GameRecord } from '../../domain/records.js';
import type { Seat } from '../../domain/types.js';
import { eventPairClientSeeds, eventPairSeed, hexToSeed, seedToHex } from '../../fair/index.js';
import type { GameDirectory, GameHandle, GameLifecycleListener, MirrorPairFactory } from '../../game/types.js';
import type { GameAdmission, Hold } from '../game-admission.js';
import { botSeat } from '../identity.js';
import { Periodic } from '../periodic.js';
import { expirePending } from './expiry.js';
import type { TournamentFollowers } from './followers.js';
import { fixedEncounters, meetingKey, swissRound } from './pairing.js';
import { RefusalCounts } from './refusals.js';
import { Tallies } from './tally.js';
import { tournamentTables, pairFinished } from './standings.js';

export interface TournamentSchedulerDeps {
  followers: TournamentFollowers;
  games: MirrorPairFactory & GameDirectory;
  admission?: GameAdmission;
  clock: Clock;
  log: Logger;
  /** Seats a bot offers events at once (a pair takes two); Infinity for the built-in house bots. */
  seatsOf: (botId: string) => number;
}

export interface TournamentSchedulerConfig {
  /** How often every running event is looked at even when nothing happened. */
  tickMs: number;
  /** Pairs in flight at once over all of one host's events. */
  pairsInFlightPerHost: number;
  /** A pending event not started this long after its creation is cancelled (expiry.ts). */
  pendingTtlMs: number;
}

/** A mirror pair takes two of each player's seats. */
const PAIR_SEATS = 2;

/** Results of a game from White's side. */
function whiteScore(rec: GameRecord): GameScore | null {
  if (!('Ended' in rec.status)) return null;
  const { result } = rec.status.Ended.over;
  // An aborted game (the server's failure) has a Draw result and counts as one.
  if ('Win' in result) return result.Win.side === 'White' ? 1 : 0;
  return 0.5;
}

export class TournamentScheduler implements GameLifecycleListener {
  private readonly ticks: Periodic;
  private stopped = true;
  /** Game id → the event and pair it belongs to (running pairs only). */
  private readonly byGame = new Map<string, { eventId: string; index: number }>();
  /** Serialises fill rounds: at most one runs, and one more is queued behind it. */
  private filling: Promise<void> | null = null;
  private again = false;
  private readonly refusals = new RefusalCounts();
  private readonly tallies = new Tallies();

  constructor(private readonly deps: TournamentSchedulerDeps, private readonly config: TournamentSchedulerConfig) {
    // Every look goes through round(), so two never run at once (a pair's index is the count of
    // pairs stored when it starts: two concurrent looks would give two pairs the same one).
    this.ticks = new Periodic(deps.clock, config.tickMs, () => this.round());
  }

  /** Picks up every running event (results of games that ended while it was away included). */
  async start(): Promise<void> {
    this.stopped = false;
    for (const ev of this.deps.followers.running()) await this.reconcile(ev);
    this.ticks.start();
    this.kick();
  }

  /** No further rounds; resolves once a round in progress has finished. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.ticks.stop();
    while (this.filling) await this.filling;
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
    return ev.pairs.filter((p) => !pairFinished(p)).length;
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
    // Not running (the store's index has no revision for events over): nothing is counted.
    if (!where || this.deps.followers.store.tournamentRevision(where.eventId) === undefined) return;
    const ev = this.deps.followers.get(where.eventId);
    const pair = ev?.state === 'running' ? ev.pairs[pairAt(ev, where.index)] : undefined;
    const k = pair?.games?.indexOf(game.id) ?? -1;
    if (!pair || k < 0) return;
    // Game 0: the first player (a) is White; game 1: a is Black.
    this.refusals.count(where.eventId, (seat === 'White') === (k === 0) ? pair.a : pair.b, this.deps.clock.now());
  }

  /** Writes the refusals that have waited a second for a write of their event. */
  private async flushRefusals(): Promise<void> {
    for (const id of this.refusals.due(this.deps.clock.now())) {
      await this.deps.followers.modify(id, (ev) => {
        const next = this.refusals.fold(ev);
        return { next: next === ev ? null : next, value: null };
      });
    }
  }

  private async recordGame(rec: GameRecord): Promise<void> {
    const where = this.byGame.get(rec.id);
    const white = whiteScore(rec);
    if (!where || white === null) return;
    const over = 'Ended' in rec.status ? rec.status.Ended.over : null;
    const r = await this.deps.followers.modify(where.eventId, (ev) => {
      const at = pairAt(ev, where.index);
      const pair = ev.pairs[at];
      if (!pair?.games) return { next: null, value: null };
      const k = pair.games.indexOf(rec.id);
      if (k < 0 || pair.scores[k] !== null) return { next: null, value: null };
      // Game 0: the first player (a) is White; game 1: a is Black.
      const scoreA: GameScore = k === 0 ? white : ((1 - white) as GameScore);
      const scores: TournamentPairRecord['scores'] = k === 0 ? [scoreA, pair.scores[1]] : [pair.scores[0], scoreA];
      const timeLosses = [...pair.timeLosses];
      if (over?.termination === 'Timeout') {
        const whiteLost = white === 0;
        const aWhite = k === 0;
        timeLosses.push(whiteLost === aWhite ? pair.a : pair.b);
      }
      // Refusals waiting to be written go with this write (refusals.ts).
      let next: TournamentRecord = this.refusals.fold({ ...ev, pairs: ev.pairs.map((p, i) => (i === at ? { ...p, scores, timeLosses } : p)) });
      const done = scores[0] !== null && scores[1] !== null;
      if (done) {
        const seq = ev.pairs.reduce((m, p) => Math.max(m, p.finishedSeq), 0) + 1;
        next.pairs[at] = { ...next.pairs[at], finishedSeq: seq };
        // The pair is added to the event's tally: no recount of every pair (tally.ts).
        const tally = this.tallies.of(ev, seq - 1);
        tally.add(next.pairs[at]);
        if (next.sprt && next.verdict === null && next.state === 'running') {
          const verdict = tally.sprt(next)?.verdict;
          if (verdict) next = { ...next, verdict, verdictAfter: seq, queue: [] };
        }
      }
      return { next, value: done };
    });
    if (r.value) {
      const ev = r.ev!;
      const pair = ev.pairs[pairAt(ev, where.index)];
      for (const g of pair.games ?? []) this.byGame.delete(g);
      const finished = ev.pairs.reduce((m, p) => Math.max(m, p.finishedSeq), 0);
      const tally = this.tallies.of(ev, finished);
      const tables = { standings: tally.standings(ev), llr: tally.sprt(ev)?.llr ?? 0 };
      this.deps.followers.publish(ev.id, {
        PairFinished: {
          eventId: ev.id,
          index: pair.index,
          round: pair.round,
          players: [face(ev, pair.a), face(ev, pair.b)],
          games: pair.games,
          scores: pair.scores,
          score: ((pair.scores[0] ?? 0) + (pair.scores[1] ?? 0)) / 2,
          standings: tables.standings.map((s) => ({ ...face(ev, s.player), points: s.points, games: s.games })),
          ...(ev.sprt ? { llr: tables.llr, verdict: ev.verdict } : {}),
        },
      });
      // A finished pair frees seats and may end the event or a Swiss round.
      this.kick();
    }
  }

  /** One look at every running event: finish the done ones, pair Swiss rounds, start pairs. */
  private async fill(): Promise<void> {
    if (this.stopped) return;
    try {
      await expirePending(this.deps.followers, this.deps.clock.now(), this.config.pendingTtlMs, (ev) => this.announceEnd(ev));
      await this.flushRefusals();
    } catch (e) {
      this.deps.log.error({ err: String(e) }, 'could not expire pending events or write refused moves');
    }
    const running = this.deps.followers.running();
    this.tallies.retain(new Set(running.map((e) => e.id)));
    const perHost = new Map<string, number>();
    for (const ev of running) perHost.set(ev.host, (perHost.get(ev.host) ?? 0) + this.inFlight(ev));
    for (const ev of running) {
      if (this.stopped) return;
      try {
        await this.reconcile(ev);
        await this.advance(ev.id, perHost);
      } catch (e) {
        this.deps.log.error({ event: ev.id, err: String(e) }, 'event round failed');
      }
    }
  }

  private async advance(id: string, perHost: Map<string, number>): Promise<void> {
    // Plan: fill the queue (first start, a new Swiss round, SPRT pairs) or finish the event.
    const planned = await this.deps.followers.modify(id, (ev) => {
      if (ev.state !== 'running') return { next: null, value: false };
      const next = this.plan(ev);
      return { next, value: next?.state === 'finished' };
    });
    const ev = planned.ev;
    if (planned.value && ev) this.announceEnd(ev);
    if (!ev || ev.state !== 'running') return;
    // Choose every queued pair that fits now (the event's concurrency, the host's limit, each bot's
    // free seats, places on the server), give each its index, then start them all at once. Indexes
    // are handed out here, synchronously, inside a pass, and passes never overlap (round()), so no
    // two pairs can get the same index.
    const seatsTaken = new Map<string, number>();
    const free = (bot: string) => this.deps.seatsOf(bot) - this.deps.games.liveFor(bot).length - (seatsTaken.get(bot) ?? 0);
    const chosen: { at: number; index: number; a: number; b: number; round: number; holds: Hold[] }[] = [];
    let index = nextPairIndex(ev);
    let inFlight = this.inFlight(ev);
    for (const [at, [a, b, round]] of ev.queue.entries()) {
      if (inFlight >= ev.concurrency) break;
      if ((perHost.get(ev.host) ?? 0) >= this.config.pairsInFlightPerHost) break;
      const ids = [ev.players[a].id, ev.players[b].id];
      if (!ids.every((bot) => free(bot) >= PAIR_SEATS)) continue; // these two wait for seats; a later encounter may go now
      const holds = this.admit(ids);
      if (!holds) break; // the server is full: try again at the next tick
      for (const bot of ids) seatsTaken.set(bot, (seatsTaken.get(bot) ?? 0) + PAIR_SEATS);
      perHost.set(ev.host, (perHost.get(ev.host) ?? 0) + 1);
      inFlight++;
      chosen.push({ at, index: index++, a, b, round, holds });
    }
    if (chosen.length === 0) return;
    const seed = hexToSeed(ev.seed)!;
    const started = await Promise.all(chosen.map(async (c) => {
      try {
        const games = await this.deps.games.createMirrorPair({
          white: botSeat(ev.players[c.a].team, ev.players[c.a].name),
          black: botSeat(ev.players[c.b].team, ev.players[c.b].name),
          timeControl: ev.timeControl,
          rated: ev.rated,
          fair: { serverSeed: seedToHex(eventPairSeed(seed, c.index)), clientSeeds: eventPairClientSeeds(id, c.index) },
        });
        return { ...c, games };
      } catch (e) {
        // Its queue entry stays for a later pass. Its index is left unused when a later pair of this
        // pass started (the next pass counts on from the last one stored).
        this.deps.log.warn({ event: id, err: String(e) }, 'could not start an event pair');
        perHost.set(ev.host, (perHost.get(ev.host) ?? 0) - 1);
        return null;
      } finally {
        for (const h of c.holds) h.release();
      }
    }));
    const pairs: TournamentPairRecord[] = [];
    const taken = new Set<number>();
    for (const c of started) {
      if (!c) continue;
      const pair: TournamentPairRecord = {
        index: c.index, round: c.round, a: c.a, b: c.b, games: [c.games[0].id, c.games[1].id], scores: [null, null], timeLosses: [], finishedSeq: 0,
      };
      for (const g of pair.games!) this.byGame.set(g, { eventId: id, index: c.index });
      pairs.push(pair);
      taken.add(c.at);
    }
    if (pairs.length === 0) return;
    const stored = await this.deps.followers.modify(id, (cur) => ({
      // Only this pass changes the queue while it runs, except for emptying it (a cancel, an SPRT verdict).
      next: { ...cur, pairs: [...cur.pairs, ...pairs], queue: cur.queue.filter((_, j) => !taken.has(j)) },
      value: null,
    }));
    const now = stored.ev!;
    for (const p of pairs) {
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
      if (!p.games || pairFinished(p)) continue;
      for (const [k, g] of p.games.entries()) {
        if (p.scores[k] !== null) continue;
        this.byGame.set(g, { eventId: ev.id, index: p.index });
        const rec = this.deps.games.ended(g) ?? this.deps.followers.store.getGame(g);
        if (rec && whiteScore(rec) !== null) await this.recordGame(rec);
      }
    }
  }

  /** The event's next state before pairs start: a filled queue, or finished. Null: unchanged. */
  private plan(ev: TournamentRecord): TournamentRecord | null {
    const playing = ev.players.flatMap((p, i) => (p.accepted === true ? [i] : []));
    const busy = this.inFlight(ev) > 0;
    if (ev.format === 'sprt') {
      const room = ev.maxPairs - ev.pairs.length - ev.queue.length;
      if (ev.verdict === null && room > 0 && ev.queue.length < ev.concurrency) {
        const add = Math.min(room, ev.concurrency - ev.queue.length);
        return { ...ev, queue: [...ev.queue, ...Array.from({ length: add }, () => [playing[0], playing[1], 0] as [number, number, number])] };
      }
      return ev.queue.length === 0 && !busy ? this.finish(ev, null) : null;
    }
    if (ev.format === 'swiss') {
      if (ev.queue.length > 0 || busy) return null;
      const round = Math.max(0, ...ev.pairs.map((p) => p.round), ...ev.byes.map(([r]) => r));
      if (round >= ev.rounds) return this.finish(ev, null);
      const tables = tournamentTables(ev);
      const points = new Map(tables.standings.map((s) => [s.player, s.points]));
      const met = new Set(ev.pairs.map((p) => meetingKey(p.a, p.b)));
      const r = swissRound({
        standings: playing.map((p) => ({ player: p, points: points.get(p) ?? 0 })),
        met,
        hadBye: new Set(ev.byes.map(([, p]) => p)),
      });
      if (!r) return this.finish(ev, `no pairing without a repeat exists for round ${round + 1}`);
      const queue: [number, number, number][] = [];
      for (let k = 0; k < ev.pairsPerEncounter; k++) for (const [a, b] of r.pairs) queue.push([a, b, round + 1]);
      return { ...ev, queue, byes: r.bye === null ? ev.byes : [...ev.byes, [round + 1, r.bye]] };
    }
    if (ev.pairs.length === 0 && ev.queue.length === 0) {
      const encounters = fixedEncounters(ev.format, playing);
      const queue: [number, number, number][] = [];
      for (let k = 0; k < ev.pairsPerEncounter; k++) for (const [a, b] of encounters) queue.push([a, b, 0]);
      return { ...ev, queue };
    }
    return ev.queue.length === 0 && !busy ? this.finish(ev, null) : null;
  }

  private finish(ev: TournamentRecord, note: string | null): TournamentRecord {
    return { ...ev, state: 'finished', finishedAt: this.deps.clock.now(), note };
  }

  private announceEnd(ev: TournamentRecord): void {
    this.tallies.forget(ev.id);
    this.refusals.forget(ev.id);
    this.deps.followers.publish(ev.id, { EventEnded: { eventId: ev.id, state: ev.state, verdict: ev.verdict, seed: ev.seed } }, true);
  }

  /** Places for both games of a pair under the live-games caps, or null (nothing held) when refused. */
  private admit(ids: string[]): Hold[] | null {
    return this.deps.admission ? this.deps.admission.reservePair(ids) : [];
  }
}

/** The index the next pair started takes: one past the last stored (an index whose start failed stays unused). */
const nextPairIndex = (ev: TournamentRecord): number => (ev.pairs.length === 0 ? 0 : ev.pairs[ev.pairs.length - 1].index + 1);

/** Where a pair of this index sits in the event's list (pairs are stored in index order, maybe with gaps). */
const pairAt = (ev: TournamentRecord, index: number): number => ev.pairs.findIndex((p) => p.index === index);

const face = (ev: TournamentRecord, i: number) => ({ team: ev.players[i].team, name: ev.players[i].name });
