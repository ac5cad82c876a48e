// The events API: create, read, list, accept, decline, start and cancel (routes in
// src/edge/handlers/tournaments.ts). Running events is the scheduler's work (scheduler.ts); both change
// records only through the TournamentFollowers. Rules: docs/API.md "Events".
import { commitOf, newServerSeed, seedToHex } from '../../fair/index.js';
import type { Clock } from '../../domain/clock.js';
import { SCHEMA_VERSION, type GameRecord } from '../../domain/records.js';
import { DEFAULT_SPRT_MODEL, faceOfId, type DiceMode, type TournamentFormat, type TournamentHead, type TournamentPlayer, type TournamentRecord, type SprtSettings } from '../../domain/tournaments.js';
import { botExternalId, type AccountEvent, type Principal, type TimeControl } from '../../domain/types.js';
import { ok } from '../../domain/result.js';
import type { AccountHub } from '../account-hub.js';
import { fail, type ServiceResult } from '../errors.js';
import type { IdentityService } from '../identity.js';
import { entersAtOnce, setEventHosts, type EventHostsInput, type EventHostsView } from './consent.js';
import { TOURNAMENT_INDEX_DEPTH } from '../../store/tournament-index.js';
import type { TournamentFollowers, TournamentSink } from './followers.js';
import { TournamentPlaces, type InvitationBudget } from './places.js';
import { endedLine, seedRevealed } from './reveal.js';
import { cannotStart } from './pairing.js';
import { viewLine } from './view-line.js';
import { exportPieces, type EndedGames, type ExportPieces } from './export.js';
import { seededAtStart } from './seeding.js';
import { answerOf, tournamentSummary, tournamentView } from './view.js';
import { TournamentControl } from './control.js';
import { pgnPieces } from './pgn.js';
import { ownControls } from './odds.js';
import { unansweredInvitations } from './invitations.js';

export interface TournamentLimits {
  /** Events one host may have pending or running at once. */
  openPerHost: number;
  /** Pairs in flight at once over all of one host's events. */
  pairsInFlightPerHost: number;
  playersPerEvent: number;
  pairsPerEvent: number;
}

export interface CreateTournamentInput {
  name: string;
  format: TournamentFormat;
  /** `timeControl`: time odds, the player's own control (odds.ts). */
  players: { team: string; name: string; timeControl?: TimeControl }[];
  timeControl: TimeControl;
  pairsPerEncounter?: number;
  rounds?: number;
  sprt?: SprtSettings;
  maxPairs?: number;
  concurrency?: number;
  rated?: boolean;
  dice?: DiceMode;
  summaryEvery?: number;
}

export interface TournamentServiceDeps {
  followers: TournamentFollowers;
  identity: IdentityService;
  hub: AccountHub;
  clock: Clock;
  newId: () => string;
  /** Whether an id is a built-in house bot (it takes part at once). */
  isHouse: (id: string) => boolean;
  /** Asks the scheduler to look at its events now (an event became runnable). */
  kick: () => void;
  /** Invitations each bot may receive (a sliding hour per bot id); none: no bound. */
  invitations?: InvitationBudget;
  /**
   * Resolves once the scheduler has looked at its events (it alone starts pairs, so it alone can
   * say that a cancelled event has none running); at once where it does not run (another node).
   */
  settle?: () => Promise<void>;
}

/** Events listed at most by GET /events and GET /bot/events (newest first): as many as the store's index keeps. */
export const TOURNAMENT_LIST_LIMIT = TOURNAMENT_INDEX_DEPTH;

const isOpen = (ev: TournamentRecord): boolean => ev.state === 'pending' || ev.state === 'running' || ev.state === 'paused';
const faceOf = (p: { team: string; name: string }) => ({ team: p.team, name: p.name });

/** How many pairs an event of this shape plays at most. */
export function plannedPairs(format: TournamentFormat, players: number, ppe: number, rounds: number, maxPairs: number): number {
  if (format === 'match') return ppe;
  if (format === 'sprt') return maxPairs;
  if (format === 'gauntlet') return (players - 1) * ppe;
  if (format === 'roundRobin') return ((players * (players - 1)) / 2) * ppe;
  return rounds * Math.floor(players / 2) * ppe;
}

export class TournamentService {
  private readonly places: TournamentPlaces;
  /** Pause, resume and withdraw (control.ts). */
  readonly control: TournamentControl;

  constructor(private readonly deps: TournamentServiceDeps, private readonly limits: TournamentLimits) {
    this.places = new TournamentPlaces(deps.followers, limits.openPerHost, deps.invitations);
    this.control = new TournamentControl({ followers: deps.followers, kick: deps.kick, view: (ev) => this.view(ev) });
  }

  /** `address`: where the request came from (its rate-limit key), kept so the events of one address share a bound. */
  async create(host: Principal, input: CreateTournamentInput, address?: string): Promise<ServiceResult<unknown>> {
    if (host.tier !== 'registered') return fail('registered_only', 'only registered bots can host events');
    const n = input.players.length;
    const bad = (detail: string) => fail('invalid_event', detail);
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
    // Everything from here to the hold below is synchronous: concurrent creations cannot all pass.
    const full = this.places.checkOpen(host.id);
    if (full) return full;
    const rated = input.rated === true;
    const own = ownControls(input.timeControl, input.players, rated);
    if (!own.ok) return own;
    const store = this.deps.followers.store;
    // A handicap is not what a standing trust in a host covers: with odds, every bot answers itself.
    const odds = own.value.some((c) => c !== undefined);
    const players: TournamentPlayer[] = input.players.map((p, i) => ({
      id: ids[i],
      team: p.team,
      name: p.name,
      accepted: (odds ? this.deps.isHouse(ids[i]) || ids[i] === host.id : entersAtOnce(store, this.deps.isHouse, ids[i], host.id, rated)) ? true : null,
      ...(own.value[i] ? { timeControl: own.value[i] } : {}),
    }));
    const invited = players.filter((p) => p.accepted === null);
    const refused = this.places.takeInvitations(invited);
    if (refused) return refused;
    // Everyone takes part at once: the event is stored running, so no answer can come in between.
    const now = this.deps.clock.now();
    const all = players.every((p) => p.accepted === true);
    const seed = newServerSeed();
    const made: TournamentRecord = {
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
      rated,
      ...(input.dice === 'perRound' ? { dice: input.dice } : {}),
      state: all ? 'running' : 'pending',
      createdAt: now,
      startedAt: all ? now : null,
      finishedAt: null,
      commit: commitOf(seed),
      seed: seedToHex(seed),
      pairs: [],
      byes: [],
      queue: [],
      verdict: null,
      verdictAfter: null,
      note: null,
      ...(address !== undefined ? { hostAddress: address } : {}),
      ...(input.summaryEvery !== undefined ? { summaryEvery: input.summaryEvery } : {}),
    };
    const ev = all ? this.seeded(made) : made;
    const release = this.places.hold(host.id, ev.id);
    try {
      await this.deps.followers.store.putTournament(ev);
    } catch (e) {
      this.places.refundInvitations(invited);
      throw e;
    } finally {
      release(); // stored (it counts as open itself now) or failed
    }
    for (const p of players) {
      // A bot entered by its own setting hears of it as any invited bot does, already accepted.
      if (this.deps.isHouse(p.id) || p.id === host.id) continue;
      const invitation = p.accepted === true ? 'accepted' as const : 'invited' as const;
      this.deps.hub.publish(p.id, {
        EventInvitation: { eventId: ev.id, name: ev.name, format: ev.format, host: faceOf(host), rated, invitation, timeControl: p.timeControl ?? ev.timeControl, timeOdds: odds },
      });
    }
    if (all) this.deps.kick();
    return ok(this.view(this.deps.followers.get(ev.id)!));
  }

  /** PUT /bot/account/event-hosts (the rule lives in consent.ts). */
  setEventHosts(who: Principal, input: EventHostsInput): Promise<ServiceResult<EventHostsView>> {
    return setEventHosts(this.deps.identity, this.deps.followers.store, who, input);
  }

  exists(id: string): boolean {
    return this.deps.followers.exists(id);
  }

  /** The public view of an event, or 404. */
  get(id: string): ServiceResult<unknown> {
    const ev = this.deps.followers.get(id);
    return ev ? ok(this.view(ev)) : fail('unknown_event');
  }

  list(): unknown {
    return { events: this.heads(this.deps.followers.store.recentTournaments(TOURNAMENT_LIST_LIMIT)).map((e) => this.summary(e)) };
  }

  /** Events the caller hosts or is invited to, newest first, with its own answer. */
  mine(who: Principal): unknown {
    const evs = this.heads(this.deps.followers.store.recentTournaments(TOURNAMENT_LIST_LIMIT, who.id));
    return {
      events: evs.map((e) => ({
        ...this.summary(e),
        invitation: answerOf(e.players.find((p) => p.id === who.id)?.accepted),
        hosting: e.host === who.id,
      })),
    };
  }

  /** EventInvitation lines of the pending events the caller has not answered (its account stream's catch-up). */
  pendingInvitations(who: Principal): AccountEvent[] {
    return unansweredInvitations(this.heads(this.deps.followers.store.recentTournaments(TOURNAMENT_LIST_LIMIT, who.id)), who.id);
  }

  accept(who: Principal, id: string): Promise<ServiceResult<unknown>> {
    return this.answer(who, id, true);
  }

  decline(who: Principal, id: string): Promise<ServiceResult<unknown>> {
    return this.answer(who, id, false);
  }

  // The answer, the check that everyone has accepted and the start are one change of the record:
  // answers and a host's start are queued on the same record, so none can slip in between.
  private async answer(who: Principal, id: string, yes: boolean): Promise<ServiceResult<unknown>> {
    const r = await this.deps.followers.modify(id, (ev) => {
      const i = ev.players.findIndex((p) => p.id === who.id);
      if (i < 0) return { next: null, value: fail('not_invited') };
      if (ev.state !== 'pending') return { next: null, value: fail('event_started', `the event is ${ev.state}`) };
      const players = ev.players.map((p, j) => (j === i ? { ...p, accepted: yes } : p));
      const next = { ...ev, players };
      return { next: players.every((p) => p.accepted === true) ? this.started(next) : next, value: null };
    });
    if (!r.ev) return fail('unknown_event');
    if (r.value) return r.value;
    if (r.ev.state === 'running') this.deps.kick();
    return ok(this.view(r.ev));
  }

  /** The host starts a pending event with the players who have accepted. */
  async start(who: Principal, id: string): Promise<ServiceResult<unknown>> {
    const r = await this.deps.followers.modify(id, (ev) => {
      if (ev.host !== who.id) return { next: null, value: fail('not_host', 'only the host can start this event') };
      if (ev.state !== 'pending') return { next: null, value: fail('event_started', `the event is ${ev.state}`) };
      const why = cannotStart(ev);
      if (why) return { next: null, value: fail('too_few_players', why) };
      return { next: this.started(ev), value: null };
    });
    if (!r.ev) return fail('unknown_event');
    if (r.value) return r.value;
    this.deps.kick();
    return ok(this.view(r.ev));
  }

  /**
   * Nothing new starts. A pending event (no game yet) is cancelled at once. A running one becomes
   * `cancelling`: its running pairs play to the end and count, and the scheduler makes it `cancelled`
   * and publishes the seed once none runs (docs/API.md "Events", why not abort them).
   */
  async cancel(who: Principal, id: string): Promise<ServiceResult<unknown>> {
    const r = await this.deps.followers.modify(id, (ev) => {
      if (ev.host !== who.id) return { next: null, value: fail('not_host', 'only the host can cancel this event') };
      if (!isOpen(ev)) return { next: null, value: fail('event_over', `the event is ${ev.state}`) };
      const next: TournamentRecord = ev.state === 'pending'
        ? { ...ev, state: 'cancelled', finishedAt: this.deps.clock.now(), queue: [] }
        : { ...ev, state: 'cancelling', queue: [] };
      return { next, value: null };
    });
    if (!r.ev) return fail('unknown_event');
    if (r.value) return r.value;
    if (seedRevealed(r.ev)) {
      this.deps.followers.publish(id, endedLine(r.ev), true);
      return ok(this.view(r.ev));
    }
    this.deps.followers.publish(id, { EventState: this.view(r.ev) });
    await this.deps.settle?.();
    return ok(this.view(this.deps.followers.get(id) ?? r.ev));
  }

  /** Follows an event's stream; null for an unknown event. An ended event sends its end line at once. */
  follow(id: string, sink: TournamentSink): (() => void) | null {
    const ev = this.deps.followers.get(id);
    if (!ev) return null;
    sink.pump(viewLine('EventState', this.view(ev)));
    if (seedRevealed(ev)) {
      sink.send(`${JSON.stringify(endedLine(ev))}\n`);
      sink.close();
      return () => {};
    }
    return this.deps.followers.follow(id, sink);
  }

  /**
   * The export of GET /events/{id}/games: the event's view, then one line per finished game (by
   * pair, then game), as ndjson, made piece by piece as the edge asks for it (a large event's export
   * is hundreds of MB). Null for an unknown event.
   */
  exportLines(id: string, ended: (gameId: string) => GameRecord | undefined): ExportPieces | null {
    const ev = this.deps.followers.get(id);
    return ev ? exportPieces(ev, this.view(ev), this.endedGames(ended)) : null;
  }

  /** The same games as exportLines, as PGN text, a game at a time. Null for an unknown event. */
  pgnLines(id: string, ended: (gameId: string) => GameRecord | undefined): ExportPieces | null {
    const ev = this.deps.followers.get(id);
    return ev ? pgnPieces(ev, this.endedGames(ended)) : null;
  }

  /** Games the server holds at once, else loaded from the store (a cluster node's are not all held). */
  private endedGames(now: (gameId: string) => GameRecord | undefined): EndedGames {
    const store = this.deps.followers.store;
    return { now, load: store.loadGame ? (id) => store.loadGame!(id) : undefined };
  }

  private started(ev: TournamentRecord): TournamentRecord {
    return this.seeded({ ...ev, state: 'running', startedAt: this.deps.clock.now() });
  }

  /** A Swiss starting is seeded by its players' ratings now (seeding.ts). */
  private seeded(ev: TournamentRecord): TournamentRecord {
    return seededAtStart(ev, (id) => this.deps.followers.store.getBot(id)?.rating.rating);
  }

  /** The heads of these events (a page of a list: their pairs are not read). */
  private heads(ids: string[]): TournamentHead[] {
    return ids.flatMap((id) => this.deps.followers.store.getTournamentHead(id) ?? []);
  }

  summary(ev: TournamentHead) {
    return tournamentSummary(ev);
  }

  view(ev: TournamentRecord) {
    return tournamentView(ev);
  }
}

/** bot:team:<team>:<name> to {team, name} (kept here too for callers that import it from the service). */
export { faceOfId };
