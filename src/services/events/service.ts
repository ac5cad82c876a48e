// The events API: create, read, list, accept, decline, start and cancel (routes in
// src/edge/handlers/events.ts). Running events is the scheduler's work (scheduler.ts); both change
// records only through the EventBook. Rules: docs/API.md "Events".
import { commitOf, newServerSeed, seedToHex } from '../../fair/index.js';
import type { Clock } from '../../domain/clock.js';
import { SCHEMA_VERSION, type GameRecord } from '../../domain/records.js';
import { DEFAULT_SPRT_MODEL, sprtModelOf, type EventFormat, type EventPlayer, type EventRecord, type SprtSettings } from '../../domain/events.js';
import { botExternalId, type Principal, type TimeControl } from '../../domain/types.js';
import { ok } from '../../domain/result.js';
import type { AccountHub } from '../account-hub.js';
import { fail, rateLimited, type ServiceResult } from '../errors.js';
import type { IdentityService } from '../identity.js';
import type { EventBook, EventSink } from './book.js';
import { eventTables, pairFinished } from './standings.js';

export interface EventLimits {
  /** Events one host may have pending or running at once. */
  openPerHost: number;
  /** Pairs in flight at once over all of one host's events. */
  pairsInFlightPerHost: number;
  playersPerEvent: number;
  pairsPerEvent: number;
}

export interface CreateEventInput {
  name: string;
  format: EventFormat;
  players: { team: string; name: string }[];
  timeControl: TimeControl;
  pairsPerEncounter?: number;
  rounds?: number;
  sprt?: SprtSettings;
  maxPairs?: number;
  concurrency?: number;
  rated?: boolean;
}

export interface EventServiceDeps {
  book: EventBook;
  identity: IdentityService;
  hub: AccountHub;
  clock: Clock;
  newId: () => string;
  /** Whether an id is a built-in house bot (it takes part at once). */
  isHouse: (id: string) => boolean;
  /** Asks the scheduler to look at its events now (an event became runnable). */
  kick: () => void;
}

/** Events listed at most by GET /events and GET /bot/events (newest first). */
export const EVENT_LIST_LIMIT = 100;
const OPEN_RETRY_MS = 60_000;

const isOpen = (ev: EventRecord): boolean => ev.state === 'pending' || ev.state === 'running';
const faceOf = (p: { team: string; name: string }) => ({ team: p.team, name: p.name });

/** How many pairs an event of this shape plays at most. */
export function plannedPairs(format: EventFormat, players: number, ppe: number, rounds: number, maxPairs: number): number {
  if (format === 'match') return ppe;
  if (format === 'sprt') return maxPairs;
  if (format === 'gauntlet') return (players - 1) * ppe;
  if (format === 'roundRobin') return ((players * (players - 1)) / 2) * ppe;
  return rounds * Math.floor(players / 2) * ppe;
}

export class EventService {
  constructor(private readonly deps: EventServiceDeps, private readonly limits: EventLimits) {}

  async create(host: Principal, input: CreateEventInput): Promise<ServiceResult<unknown>> {
    if (host.tier !== 'registered') return fail('forbidden', 'registered_only', 'only registered bots can host events');
    const n = input.players.length;
    const bad = (detail: string) => fail('bad_request', 'invalid_event', detail);
    if (n > this.limits.playersPerEvent) return bad(`at most ${this.limits.playersPerEvent} players per event`);
    if ((input.format === 'match' || input.format === 'sprt') && n !== 2) return bad(`a ${input.format} takes exactly two players`);
    if (n < 2) return bad('an event takes at least two players');
    const ids = input.players.map((p) => botExternalId(p.team, p.name));
    if (new Set(ids).size !== n) return bad('a player is listed twice');
    for (const p of input.players) {
      if (p.team === 'anon') return bad(`anonymous bots cannot take part (${p.team}/${p.name})`);
      if (!this.deps.identity.findBot(p.team, p.name)) return bad(`no bot ${p.team}/${p.name}`);
    }
    const ppe = input.pairsPerEncounter ?? 1;
    let rounds = 0;
    if (input.format === 'swiss') {
      if (input.rounds === undefined) return bad('a swiss needs `rounds`');
      const most = n % 2 === 1 ? n : n - 1;
      if (input.rounds > most) return bad(`${n} players can play at most ${most} swiss rounds without meeting twice`);
      rounds = input.rounds;
    } else if (input.rounds !== undefined) return bad('`rounds` is for a swiss only');
    if ((input.format === 'sprt') !== (input.sprt !== undefined)) return bad('`sprt` is required for an sprt and only there');
    if (input.sprt && input.sprt.elo0 >= input.sprt.elo1) return bad('sprt.elo0 must be below sprt.elo1');
    const maxPairs = input.maxPairs ?? this.limits.pairsPerEvent;
    if (maxPairs > this.limits.pairsPerEvent) return bad(`maxPairs is at most ${this.limits.pairsPerEvent}`);
    const planned = plannedPairs(input.format, n, ppe, rounds, maxPairs);
    if (planned > this.limits.pairsPerEvent) return bad(`this event would play ${planned} pairs; at most ${this.limits.pairsPerEvent}`);
    const concurrency = input.concurrency ?? 1;
    if (concurrency > this.limits.pairsInFlightPerHost) return bad(`concurrency is at most ${this.limits.pairsInFlightPerHost}`);
    const open = this.deps.book.store.listEvents().filter((e) => e.host === host.id && isOpen(e)).length;
    if (open >= this.limits.openPerHost) {
      return rateLimited('too_many_events', `at most ${this.limits.openPerHost} events pending or running per host`, OPEN_RETRY_MS);
    }
    const players: EventPlayer[] = input.players.map((p, i) => ({
      id: ids[i],
      team: p.team,
      name: p.name,
      accepted: this.deps.isHouse(ids[i]) || p.team === host.team ? true : null,
    }));
    const seed = newServerSeed();
    const ev: EventRecord = {
      schema: SCHEMA_VERSION,
      id: this.deps.newId(),
      name: input.name,
      format: input.format,
      host: host.id,
      players,
      timeControl: input.timeControl,
      pairsPerEncounter: ppe,
      rounds,
      sprt: input.sprt ? { ...input.sprt, model: input.sprt.model ?? DEFAULT_SPRT_MODEL } : null,
      maxPairs: planned,
      concurrency,
      rated: input.rated === true,
      state: 'pending',
      createdAt: this.deps.clock.now(),
      startedAt: null,
      finishedAt: null,
      commit: commitOf(seed),
      seed: seedToHex(seed),
      pairs: [],
      byes: [],
      queue: [],
      verdict: null,
      verdictAfter: null,
      note: null,
    };
    await this.deps.book.store.putEvent(ev);
    for (const p of players) {
      if (p.accepted === null) {
        this.deps.hub.publish(p.id, { EventInvitation: { eventId: ev.id, name: ev.name, format: ev.format, host: faceOf(host) } });
      }
    }
    if (players.every((p) => p.accepted === true)) await this.begin(ev.id);
    return ok(this.view(this.deps.book.get(ev.id)!));
  }

  exists(id: string): boolean {
    return this.deps.book.get(id) !== undefined;
  }

  /** The public view of an event, or 404. */
  get(id: string): ServiceResult<unknown> {
    const ev = this.deps.book.get(id);
    return ev ? ok(this.view(ev)) : fail('not_found', 'unknown_event', 'no event with this id');
  }

  list(): unknown {
    return { events: this.deps.book.store.listEvents().reverse().slice(0, EVENT_LIST_LIMIT).map((e) => this.summary(e)) };
  }

  /** Events the caller hosts or is invited to, newest first, with its own answer. */
  mine(who: Principal): unknown {
    const evs = this.deps.book.store
      .listEvents()
      .reverse()
      .filter((e) => e.host === who.id || e.players.some((p) => p.id === who.id))
      .slice(0, EVENT_LIST_LIMIT);
    return {
      events: evs.map((e) => ({
        ...this.summary(e),
        invitation: answerOf(e.players.find((p) => p.id === who.id)?.accepted),
        hosting: e.host === who.id,
      })),
    };
  }

  accept(who: Principal, id: string): Promise<ServiceResult<unknown>> {
    return this.answer(who, id, true);
  }

  decline(who: Principal, id: string): Promise<ServiceResult<unknown>> {
    return this.answer(who, id, false);
  }

  private async answer(who: Principal, id: string, yes: boolean): Promise<ServiceResult<unknown>> {
    const r = await this.deps.book.modify(id, (ev) => {
      const i = ev.players.findIndex((p) => p.id === who.id);
      if (i < 0) return { next: null, value: fail('not_found', 'not_invited', 'the caller is not a player of this event') };
      if (ev.state !== 'pending') return { next: null, value: fail('conflict', 'event_started', `the event is ${ev.state}`) };
      const players = ev.players.map((p, j) => (j === i ? { ...p, accepted: yes } : p));
      return { next: { ...ev, players }, value: null };
    });
    if (!r.ev) return fail('not_found', 'unknown_event', 'no event with this id');
    if (r.value) return r.value;
    if (r.ev.players.every((p) => p.accepted === true)) await this.begin(id);
    return ok(this.view(this.deps.book.get(id)!));
  }

  /** The host starts a pending event with the players who have accepted. */
  async start(who: Principal, id: string): Promise<ServiceResult<unknown>> {
    const ev = this.deps.book.get(id);
    if (!ev) return fail('not_found', 'unknown_event', 'no event with this id');
    if (ev.host !== who.id) return fail('forbidden', 'not_host', 'only the host can start this event');
    if (ev.state !== 'pending') return fail('conflict', 'event_started', `the event is ${ev.state}`);
    const playing = ev.players.filter((p) => p.accepted === true).length;
    if (playing < 2 || ((ev.format === 'match' || ev.format === 'sprt') && playing !== 2)) {
      return fail('conflict', 'too_few_players', `${playing} players have accepted; this ${ev.format} cannot start with them`);
    }
    if (ev.format === 'swiss' && ev.rounds > (playing % 2 === 1 ? playing : playing - 1)) {
      return fail('conflict', 'too_few_players', `${playing} players cannot play ${ev.rounds} swiss rounds without meeting twice`);
    }
    await this.begin(id);
    return ok(this.view(this.deps.book.get(id)!));
  }

  async cancel(who: Principal, id: string): Promise<ServiceResult<unknown>> {
    const r = await this.deps.book.modify(id, (ev) => {
      if (ev.host !== who.id) return { next: null, value: fail('forbidden', 'not_host', 'only the host can cancel this event') };
      if (!isOpen(ev)) return { next: null, value: fail('conflict', 'event_over', `the event is ${ev.state}`) };
      return { next: { ...ev, state: 'cancelled' as const, finishedAt: this.deps.clock.now(), queue: [] }, value: null };
    });
    if (!r.ev) return fail('not_found', 'unknown_event', 'no event with this id');
    if (r.value) return r.value;
    this.deps.book.publish(id, { EventEnded: { eventId: id, state: 'cancelled', verdict: null, seed: r.ev.seed } }, true);
    return ok(this.view(r.ev));
  }

  /** Follows an event's stream; null for an unknown event. An ended event sends its end line at once. */
  follow(id: string, sink: EventSink): (() => void) | null {
    const ev = this.deps.book.get(id);
    if (!ev) return null;
    sink.send(`${JSON.stringify({ EventState: this.view(ev) })}\n`);
    if (!isOpen(ev)) {
      sink.send(`${JSON.stringify({ EventEnded: { eventId: id, state: ev.state, verdict: ev.verdict, seed: ev.seed } })}\n`);
      sink.close();
      return () => {};
    }
    return this.deps.book.follow(id, sink);
  }

  /**
   * The export of GET /events/{id}/games: the event's view, then one line per finished game (by
   * pair, then game), as ndjson lines. Null for an unknown event.
   */
  exportLines(id: string, ended: (gameId: string) => GameRecord | undefined): string[] | null {
    const ev = this.deps.book.get(id);
    if (!ev) return null;
    const lines = [`${JSON.stringify({ Event: this.view(ev) })}\n`];
    // Only pairs with both games over: a game's server seed is its partner's too, so one game of a
    // running pair must not be exported (its partner's coming rolls would be known).
    for (const p of ev.pairs.filter(pairFinished)) {
      (p.games ?? []).forEach((gameId, game) => {
        const rec = ended(gameId);
        if (!rec || !('Ended' in rec.status)) return;
        const { result, termination } = rec.status.Ended.over;
        const [w, b] = game === 0 ? [p.a, p.b] : [p.b, p.a];
        lines.push(`${JSON.stringify({
          Game: {
            pair: p.index,
            game,
            round: p.round,
            gameId,
            white: faceOf(ev.players[w]),
            black: faceOf(ev.players[b]),
            timeControl: rec.timeControl,
            commit: rec.commit,
            serverSeed: rec.serverSeed,
            clientSeeds: { white: rec.clientSeeds.white ?? '', black: rec.clientSeeds.black ?? '' },
            history: rec.history,
            result: 'Win' in result ? result.Win.side : 'Draw',
            termination,
          },
        })}\n`);
      });
    }
    return lines;
  }

  private async begin(id: string): Promise<void> {
    await this.deps.book.modify(id, (ev) =>
      ev.state === 'pending'
        ? { next: { ...ev, state: 'running' as const, startedAt: this.deps.clock.now() }, value: null }
        : { next: null, value: null },
    );
    this.deps.kick();
  }

  summary(ev: EventRecord) {
    return {
      ...headOf(ev),
      players: ev.players.length,
      pairsFinished: ev.pairs.filter((p) => p.finishedSeq > 0).length,
      createdAt: ev.createdAt,
      verdict: ev.verdict,
    };
  }

  view(ev: EventRecord) {
    const tables = eventTables(ev);
    const over = !isOpen(ev);
    const face = (i: number) => faceOf(ev.players[i]);
    return {
      ...headOf(ev),
      players: ev.players.map((p) => ({ ...faceOf(p), invitation: answerOf(p.accepted) })),
      timeControl: ev.timeControl,
      pairsPerEncounter: ev.pairsPerEncounter,
      rounds: ev.rounds,
      // An SPRT stored before models existed shows the model it was run under.
      sprt: ev.sprt ? { ...ev.sprt, model: sprtModelOf(ev.sprt) } : null,
      maxPairs: ev.maxPairs,
      concurrency: ev.concurrency,
      rated: ev.rated,
      commit: ev.commit,
      seed: over ? ev.seed : null,
      createdAt: ev.createdAt,
      startedAt: ev.startedAt,
      finishedAt: ev.finishedAt,
      verdict: ev.verdict,
      verdictAfter: ev.verdictAfter,
      note: ev.note,
      standings: tables.standings.map((r) => ({ ...face(r.player), ...withoutPlayer(r) })),
      encounters: tables.encounters.map((e) => ({
        players: [face(e.players[0]), face(e.players[1])],
        pairs: e.pairs,
        pentanomial: e.pentanomial,
        score: e.score,
        elo: e.elo,
        eloInterval: e.eloInterval,
        los: e.los,
        drawRatio: e.drawRatio,
        luck: e.luck,
        ...(e.sprt ? { llr: e.sprt.llr, bounds: e.sprt.bounds, verdict: ev.verdict, eloBiased: ev.verdict !== null } : {}),
      })),
      llrHistory: tables.llrHistory,
      pairs: ev.pairs.map((p) => ({
        index: p.index,
        round: p.round,
        players: [face(p.a), face(p.b)],
        games: p.games,
        scores: p.scores,
      })),
      byes: ev.byes.map(([round, player]) => ({ round, ...face(player) })),
    };
  }
}

/** What the list and the full view of an event both open with. */
const headOf = (ev: EventRecord) => ({ eventId: ev.id, name: ev.name, format: ev.format, state: ev.state, host: faceOfId(ev.host) });

const answerOf = (a: boolean | null | undefined): 'accepted' | 'declined' | 'invited' =>
  a === true ? 'accepted' : a === false ? 'declined' : 'invited';

function withoutPlayer<T extends { player: number }>(r: T): Omit<T, 'player'> {
  const { player: _player, ...rest } = r;
  return rest;
}

/** bot:team:<team>:<name> to {team, name}. */
export function faceOfId(id: string): { team: string; name: string } {
  const [, , team = '', ...name] = id.split(':');
  return { team, name: name.join(':') };
}
