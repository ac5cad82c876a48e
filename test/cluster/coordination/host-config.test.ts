// The game settings of a cluster node's shard hosts (host-config.ts): their registries keep a small
// archive of ended records, so a host's memory stops growing after a few dozen endings instead of
// after a thousand (the cluster's stores answer for the rest).
import t from 'tap';
import { DEFAULT_GAME_CONFIG } from '../../../src/game/game-config.js';
import { HOST_ARCHIVE_SIZE, hostGameConfig } from '../../../src/cluster/coordination/host-config.js';
import { bot, settle, setup, UNLIMITED } from '../../helpers/game.js';

t.test('a cluster host\'s registry keeps at most HOST_ARCHIVE_SIZE ended records', async (t) => {
  const config = hostGameConfig(DEFAULT_GAME_CONFIG);
  t.equal(config.archiveSize, HOST_ARCHIVE_SIZE);
  t.equal(hostGameConfig({ ...DEFAULT_GAME_CONFIG, archiveSize: 5 }).archiveSize, 5, 'a smaller setting is kept');
  const { registry } = setup({ config });
  for (let i = 0; i < 200; i++) {
    const g = await registry.create({ white: bot(`w${i}`), black: bot(`b${i}`), timeControl: UNLIMITED, rated: false });
    g.resign('White');
    await settle();
  }
  t.equal(registry.liveCount(), 0, 'every game ended');
  t.equal(registry.archiveUse().records, HOST_ARCHIVE_SIZE, `${HOST_ARCHIVE_SIZE} kept, not 200`);
});
