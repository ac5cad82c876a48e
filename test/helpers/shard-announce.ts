// Test helper: makes main take records as live games announced by a stand-in shard, the way a real
// one does: main sends `resume`, the stand-in answers `resumed` for each record (tagged with the
// command's rid) and `done`.
import type { GameRecord } from '../../src/domain/records.js';
import type { Command, ShardReply, TreeWire } from '../../src/shard/protocol/messages.js';
import type { ShardedGames } from '../../src/shard/main/sharded-games.js';
import type { MemoryStore } from '../../src/store/memory.js';
import { until } from './poll.js';

export async function announce(
  games: ShardedGames, store: MemoryStore, sent: () => Command[], reply: (r: ShardReply[]) => void,
  ...games_: { rec: GameRecord; tree?: TreeWire | null }[]
): Promise<void> {
  for (const g of games_) await store.putGame(g.rec);
  const before = sent().length;
  const resumed = games.resume();
  const cmd = await until(() => sent().slice(before).find((c): c is Extract<Command, { t: 'resume' }> => c.t === 'resume'), 'the resume');
  reply([...games_.map((g): ShardReply => ({ t: 'resumed', rid: cmd.rid, rec: g.rec, tree: g.tree ?? null })), { t: 'done', rid: cmd.rid }]);
  await resumed;
}
