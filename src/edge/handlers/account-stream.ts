// GET /bot/stream/event: the catch-up first (what is pending for the bot), then the live lines
// (src/services/account-catchup.ts says how nothing is lost or sent twice between the two). The
// catch-up reads what GET /bot/challenges and GET /bot/games read, so in a cluster the node holding the
// challenges answers for them and this node's replicas of the bot's games are brought up to date.
import type { AccountEvent, Principal } from '../../domain/types.js';
import { gameStartEvent } from '../../services/account-events.js';
import { CatchUpSink, MAX_CATCH_UP_CHALLENGES } from '../../services/account-catchup.js';
import { isUnavailable } from '../../services/remote-service.js';
import type { EdgeDeps } from '../deps.js';
import type { NdjsonStream } from '../ndjson.js';

export type AccountStreamDeps = Pick<EdgeDeps, 'hub' | 'challenges' | 'games' | 'gameGate' | 'tournaments' | 'log' | 'catchUpHold'>;

/** Subscribes first, then reads and sends the catch-up, then lets the held live lines through. */
export function openAccountStream(deps: AccountStreamDeps, principal: Principal, stream: NdjsonStream): void {
  const sink = new CatchUpSink({ send: (line) => void stream.write(line), close: () => stream.end() });
  stream.onClose(deps.hub.subscribe(principal.id, sink));
  catchUp(deps, principal).then(
    (events) => sink.release(events),
    (err: unknown) => {
      // The live lines still matter more than what could not be read: the bot can poll for the rest.
      deps.log.warn({ err: String(err), id: principal.id }, 'account stream catch-up failed');
      sink.release([]);
    },
  );
}

async function catchUp(deps: AccountStreamDeps, p: Principal): Promise<AccountEvent[]> {
  await deps.catchUpHold?.(p.id);
  const events: AccountEvent[] = [];
  const list = await deps.challenges.list(p);
  if (isUnavailable(list)) deps.log.warn({ id: p.id }, 'account stream catch-up: challenges unavailable');
  else {
    for (const c of list.in.slice(0, MAX_CATCH_UP_CHALLENGES)) {
      events.push({ ChallengeReceived: { id: c.id, challenger: c.challenger, timeControl: c.timeControl, color: c.color ?? 'white' } });
    }
  }
  await deps.gameGate?.player(p.id);
  for (const g of deps.games.liveFor(p.id)) {
    const seat = g.seatOf(p.id);
    if (seat !== null) events.push(gameStartEvent(g, seat));
  }
  events.push(...deps.tournaments.pendingInvitations(p));
  return events;
}
