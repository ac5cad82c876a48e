// Who may enter a bot into an event: the bot itself. A team is only part of a name anyone can
// register, so belonging to the host's team proves nothing; what stands in for a bot's answer is its
// own event-hosts setting (PUT /bot/account/event-hosts), kept on its record and set with its token.
// Rules: docs/API.md "Events".
import { acceptsEventFrom, eventHostsView, EVENT_HOSTS_MAX, type EventHostsSetting } from '../../domain/tournaments.js';
import type { BotRecord } from '../../domain/records.js';
import { botExternalId, type Principal } from '../../domain/types.js';
import type { Store } from '../../store/types.js';
import { fail, type ServiceResult } from '../errors.js';
import type { IdentityService } from '../identity.js';

export interface EventHostsInput {
  hosts: { team: string; name: string }[];
  rated?: boolean;
}

export type EventHostsView = ReturnType<typeof eventHostsView>;

/**
 * Whether a player takes part without being asked: a house bot (it plays whoever asks), the host
 * itself (its request is its answer), or a bot whose setting names the host for this kind of event.
 */
export function entersAtOnce(store: Pick<Store, 'getBot'>, isHouse: (id: string) => boolean, playerId: string, hostId: string, rated: boolean): boolean {
  if (isHouse(playerId) || playerId === hostId) return true;
  return acceptsEventFrom(store.getBot(playerId)?.eventHosts, hostId, rated);
}

/** PUT /bot/account/event-hosts: replaces the caller's setting; the list's length is checked at the edge too. */
export async function setEventHosts(
  identity: IdentityService,
  store: Pick<Store, 'getBot'>,
  who: Principal,
  input: EventHostsInput,
): Promise<ServiceResult<EventHostsView>> {
  if (who.tier !== 'registered') return fail('registered_only', 'only registered bots are invited to events');
  const bad = (detail: string) => fail('invalid_event_hosts', detail);
  if (input.hosts.length > EVENT_HOSTS_MAX) return bad(`at most ${EVENT_HOSTS_MAX} hosts`);
  const ids = input.hosts.map((h) => botExternalId(h.team, h.name));
  if (new Set(ids).size !== ids.length) return bad('a host is named twice');
  // Only registered bots host events. Naming one that does not exist yet would hand the name to
  // whoever registers it first: exactly the stranger this setting is meant to keep out.
  const unknown = input.hosts.find((h, i) => !store.getBot(ids[i]));
  if (unknown) return bad(`no registered bot ${unknown.team}/${unknown.name}`);
  const setting: EventHostsSetting = { hosts: ids, rated: input.rated === true };
  return identity.updateBot(who.id, (bot) => ({ next: withSetting(bot, setting), answer: eventHostsView(setting) }));
}

/** The record with the setting; an empty one is dropped, so the record reads as if never set. */
function withSetting(bot: BotRecord, setting: EventHostsSetting): BotRecord {
  const { eventHosts: _old, ...rest } = bot;
  return setting.hosts.length === 0 && !setting.rated ? rest : { ...rest, eventHosts: setting };
}
