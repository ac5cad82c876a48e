// The events routes. Transport only: the event service owns the rules (src/services/tournaments/).
import type { TournamentService } from '../../services/tournaments/service.js';
import type { EdgeDeps, Handlers } from '../deps.js';
import { json, problem, tooManyRequests } from '../reply.js';
import { serviceProblem } from './errors.js';
import { SPECTATOR_REFUSALS } from './streams.js';

export type TournamentRouteDeps = Pick<EdgeDeps, 'games' | 'spectators' | 'meter'> & { tournaments: TournamentService };

type EventOps =
  | 'createEvent' | 'listEvents' | 'getEvent' | 'streamEvent' | 'getEventGames'
  | 'acceptEvent' | 'declineEvent' | 'startEvent' | 'cancelEvent' | 'myEvents' | 'setEventHosts';

const UNKNOWN = () => problem('unknown_event');

export function eventHandlers(deps: TournamentRouteDeps): Handlers<EventOps> {
  const ev = deps.tournaments;
  return {
    createEvent: async (call) => {
      const r = await ev.create(call.principal, call.body);
      return r.ok ? json(201, r.value) : serviceProblem(r.error);
    },
    listEvents: () => json(200, ev.list()),
    getEvent: ({ params }) => {
      const r = ev.get(params.id);
      return r.ok ? json(200, r.value) : serviceProblem(r.error);
    },
    myEvents: (call) => json(200, ev.mine(call.principal)),
    setEventHosts: async (call) => {
      const r = await ev.setEventHosts(call.principal, call.body);
      return r.ok ? json(200, r.value) : serviceProblem(r.error);
    },
    acceptEvent: async (call) => {
      const r = await ev.accept(call.principal, call.params.id);
      return r.ok ? json(200, r.value) : serviceProblem(r.error);
    },
    declineEvent: async (call) => {
      const r = await ev.decline(call.principal, call.params.id);
      return r.ok ? json(200, r.value) : serviceProblem(r.error);
    },
    startEvent: async (call) => {
      const r = await ev.start(call.principal, call.params.id);
      return r.ok ? json(200, r.value) : serviceProblem(r.error);
    },
    cancelEvent: async (call) => {
      const r = await ev.cancel(call.principal, call.params.id);
      return r.ok ? json(200, r.value) : serviceProblem(r.error);
    },

    // Public like a game's spectator stream, and counted the same way (per event and in all).
    streamEvent: (call) => {
      if (!ev.exists(call.params.id)) return UNKNOWN();
      const release = deps.spectators.take(`event:${call.params.id}`, call.ctx.addressKey);
      if (typeof release !== 'function') return tooManyRequests('too_many_spectators', 5, SPECTATOR_REFUSALS[release]);
      const stream = call.ctx.ndjson();
      stream.onClose(release);
      stream.onClose(deps.meter.streamOpened('spectator'));
      const stop = ev.follow(call.params.id, { send: (line) => void stream.write(line), close: () => stream.end() });
      if (stop) stream.onClose(stop);
    },

    getEventGames: (call) => {
      const lines = ev.exportLines(call.params.id, (id) => deps.games.ended(id));
      if (!lines) return UNKNOWN();
      const stream = call.ctx.ndjson();
      stream.write(lines.join(''));
      stream.end();
    },
  };
}
