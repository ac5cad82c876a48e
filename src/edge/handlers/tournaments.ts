// The events routes. Transport only: the event service owns the rules (src/services/tournaments/).
import type { TournamentService } from '../../services/tournaments/service.js';
import { rateLimitKey } from '../client-ip.js';
import type { EdgeDeps, Handlers } from '../deps.js';
import { json, problem, tooManyRequests } from '../reply.js';
import { serviceProblem } from './errors.js';
import { SPECTATOR_REFUSALS } from './streams.js';
import { CONTENT_TYPES } from '../../wire/route-spec.js';

export type TournamentRouteDeps = Pick<EdgeDeps, 'games' | 'spectators' | 'meter'> & {
  tournaments: TournamentService;
  limits: Pick<EdgeDeps['limits'], 'eventCreatesPerHost' | 'eventCreatesPerAddress'>;
};

type EventOps =
  | 'createEvent' | 'listEvents' | 'getEvent' | 'streamEvent' | 'getEventGames' | 'getEventPgn'
  | 'acceptEvent' | 'declineEvent' | 'startEvent' | 'cancelEvent' | 'myEvents' | 'setEventHosts';

const UNKNOWN = () => problem('unknown_event');

export function eventHandlers(deps: TournamentRouteDeps): Handlers<EventOps> {
  const ev = deps.tournaments;
  return {
    createEvent: async (call) => {
      // Every attempt counts per address (hammering is itself what is limited); per host only the
      // events made count: taken before the attempt, so racing attempts cannot all slip through, and
      // given back when it is refused. Others than registered bots are refused by the service anyway.
      const { eventCreatesPerAddress: perAddress, eventCreatesPerHost: perHost } = deps.limits;
      const byAddress = perAddress.take(rateLimitKey(call.ctx.ip));
      if (!byAddress.ok) return tooManyRequests('too_many_event_requests', byAddress.retryAfterSeconds, `at most ${perAddress.limit} event creations per hour per address`);
      const hosted = call.principal.tier === 'registered';
      if (hosted) {
        const byHost = perHost.take(call.principal.id);
        if (!byHost.ok) return tooManyRequests('too_many_events_created', byHost.retryAfterSeconds, `at most ${perHost.limit} events created per hour per host`);
      }
      const r = await ev.create(call.principal, call.body, rateLimitKey(call.ctx.ip));
      if (r.ok) return json(201, r.value);
      if (hosted) perHost.refund(call.principal.id);
      return serviceProblem(r.error);
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
      const stop = ev.follow(call.params.id, { send: (line) => void stream.write(line), pump: (pieces) => stream.pump(pieces), close: () => stream.end() });
      if (stop) stream.onClose(stop);
    },

    // Game by game as the client takes them, through the send budget (ndjson-pump.ts).
    getEventGames: (call) => {
      const pieces = ev.exportLines(call.params.id, (id) => deps.games.finalRecord(id));
      if (!pieces) return UNKNOWN();
      // No blank line first: a line-by-line JSON reader must find the event's record on line 1.
      const stream = call.ctx.ndjson({ blankFirst: false });
      stream.pump(pieces, () => stream.end());
    },

    // The same, as PGN text: paced and bounded like the export; no keep-alive lines (a blank line
    // inside a game's movetext would end it for a PGN reader).
    getEventPgn: (call) => {
      const pieces = ev.pgnLines(call.params.id, (id) => deps.games.finalRecord(id));
      if (!pieces) return UNKNOWN();
      const stream = call.ctx.ndjson({ contentType: CONTENT_TYPES.pgn, keepAliveMs: 0, blankFirst: false });
      stream.pump(pieces, () => stream.end());
    },
  };
}
