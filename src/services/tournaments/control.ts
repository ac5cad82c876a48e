// What a host (or a player) may do to an event once it runs: pause it, resume it, withdraw a player.
// Each is one change of the record, queued with every other change of that event (followers.ts), so
// a pause cannot cross a pass of the scheduler that starts pairs: a pass reads the state inside its
// own change, and a pair it started before the pause plays on like any running pair.
// Rules: docs/API.md "Events" (Pause, Withdraw).
import { botExternalId, type Principal } from '../../domain/types.js';
import { ok } from '../../domain/result.js';
import type { TournamentRecord } from '../../domain/tournaments.js';
import { fail, type ServiceResult } from '../errors.js';
import type { TournamentFollowers } from './followers.js';

export interface TournamentControlDeps {
  followers: TournamentFollowers;
  /** Asks the scheduler to look at its events now. */
  kick: () => void;
  /** The public view of an event (the service's). */
  view: (ev: TournamentRecord) => unknown;
}

/** Why a change is refused. */
type Refusal = ReturnType<typeof fail>;

const over = (ev: TournamentRecord): boolean => ev.state === 'cancelling' || ev.state === 'finished' || ev.state === 'cancelled';

export class TournamentControl {
  constructor(private readonly deps: TournamentControlDeps) {}

  /** No new pair starts; running pairs play on and count. Only a running event pauses. */
  pause(who: Principal, id: string): Promise<ServiceResult<unknown>> {
    return this.host(who, id, 'pause', (ev) => {
      if (over(ev)) return fail('event_over', `the event is ${ev.state}`);
      if (ev.state !== 'running') return fail('event_not_running', `the event is ${ev.state}`);
      return { ...ev, state: 'paused' };
    });
  }

  /** Pairs start again (the queue was kept while paused). */
  resume(who: Principal, id: string): Promise<ServiceResult<unknown>> {
    return this.host(who, id, 'resume', (ev) => {
      if (over(ev)) return fail('event_over', `the event is ${ev.state}`);
      if (ev.state !== 'paused') return fail('event_not_paused', `the event is ${ev.state}`);
      return { ...ev, state: 'running' };
    });
  }

  /** The host withdraws one of its players. */
  withdrawPlayer(who: Principal, id: string, team: string, name: string): Promise<ServiceResult<unknown>> {
    const player = botExternalId(team, name);
    return this.host(who, id, 'withdraw a player from', (ev) => this.withdrawn(ev, player));
  }

  /** A player withdraws itself. */
  async withdrawSelf(who: Principal, id: string): Promise<ServiceResult<unknown>> {
    const r = await this.deps.followers.modify(id, (ev) => {
      const next = this.withdrawn(ev, who.id);
      return 'ok' in next ? { next: null, value: next } : { next, value: null };
    });
    return this.answer(id, r);
  }

  /**
   * The event without the player's pairs still to start, the player marked withdrawn; or why not.
   * Pairs of its already running play to the end and count. The scheduler's next plan sees the
   * player gone: a Swiss pairs the others only, and an event left with fewer than two players
   * finishes (plan.ts).
   */
  private withdrawn(ev: TournamentRecord, playerId: string): TournamentRecord | Refusal {
    const i = ev.players.findIndex((p) => p.id === playerId);
    if (i < 0) return fail('not_invited');
    if (over(ev)) return fail('event_over', `the event is ${ev.state}`);
    if (ev.state === 'pending') return fail('event_not_running', 'the event is pending: a player who will not play declines');
    const p = ev.players[i];
    if (p.accepted !== true || p.withdrawn === true) return fail('not_playing', `${p.team}/${p.name} does not play in this event`);
    return {
      ...ev,
      players: ev.players.map((q, j) => (j === i ? { ...q, withdrawn: true } : q)),
      queue: ev.queue.filter(([a, b]) => a !== i && b !== i),
    };
  }

  /** A change only the host may make; `change` gives the next record or why not. */
  private async host(
    who: Principal,
    id: string,
    what: string,
    change: (ev: TournamentRecord) => TournamentRecord | Refusal,
  ): Promise<ServiceResult<unknown>> {
    const r = await this.deps.followers.modify(id, (ev) => {
      if (ev.host !== who.id) return { next: null, value: fail('not_host', `only the host can ${what} this event`) };
      const next = change(ev);
      return 'ok' in next ? { next: null, value: next } : { next, value: null };
    });
    return this.answer(id, r);
  }

  /** The answer of a change: its refusal, or the event as it stands (also sent to its stream), the scheduler woken. */
  private answer(id: string, r: { ev: TournamentRecord | undefined; value: Refusal | null | undefined }): ServiceResult<unknown> {
    if (!r.ev) return fail('unknown_event');
    if (r.value) return r.value;
    const view = this.deps.view(r.ev);
    this.deps.followers.publish(id, { EventState: view });
    this.deps.kick();
    return ok(view);
  }
}
