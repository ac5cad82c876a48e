// Cluster mode: a game created while its logical shard moves to another node. The old owner may stop
// its host before answering ("moved to another node"), or nobody may answer in time while the next
// owner takes the shard over. The create is then sent again, to whoever owns the shard now: a host
// makes a game once per id, and a game the old owner did store is taken over by the new owner, so
// the create sent again finds that game instead of making a second one.
import type { Logger } from '../../domain/log.js';

/** How many times a create is sent in all. */
export const CREATE_ATTEMPTS = 4;

const MOVED = /moved to another node|no owner answered/;

export async function againIfMoved(
  create: () => Promise<void>,
  o: { log: Pick<Logger, 'warn'>; stopping(): boolean; attempts?: number },
): Promise<void> {
  const attempts = o.attempts ?? CREATE_ATTEMPTS;
  for (let attempt = 1; ; attempt++) {
    try {
      return await create();
    } catch (e) {
      const moved = e instanceof Error && MOVED.test(e.message);
      if (!moved || attempt >= attempts || o.stopping()) throw e;
      o.log.warn({ attempt, err: e.message }, 'game creation caught by a shard move: sending it again');
    }
  }
}
