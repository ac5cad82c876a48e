// The routes that steer a running event: pause, resume, withdraw. Transport only: the rules are in
// src/services/tournaments/control.ts.
import type { TournamentService } from '../../services/tournaments/service.js';
import type { Handlers } from '../deps.js';
import { json } from '../reply.js';
import { serviceProblem } from './errors.js';

type ControlOps = 'pauseEvent' | 'resumeEvent' | 'withdrawEventPlayer' | 'withdrawFromEvent';

export function eventControlHandlers(deps: { tournaments: TournamentService }): Handlers<ControlOps> {
  const control = deps.tournaments.control;
  const answer = (r: Awaited<ReturnType<typeof control.pause>>) => (r.ok ? json(200, r.value) : serviceProblem(r.error));
  return {
    pauseEvent: async (call) => answer(await control.pause(call.principal, call.params.id)),
    resumeEvent: async (call) => answer(await control.resume(call.principal, call.params.id)),
    withdrawEventPlayer: async (call) => answer(await control.withdrawPlayer(call.principal, call.params.id, call.params.team, call.params.name)),
    withdrawFromEvent: async (call) => answer(await control.withdrawSelf(call.principal, call.params.id)),
  };
}
