// The composition root: from the Config it is given, opens the store, starts the game shards, builds
// the services, resumes live games, and listens. Besides the Config it reads only the package's
// version (package.json) and the built web page.
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import type { Config } from './server-config.js';
import { projectFile } from './paths.js';
import { systemClock, type Clock } from './domain/clock.js';
import type { Result } from './domain/result.js';
import { buildEdge, gamePlacement } from './edge/app.js';
import { EncodedBodies } from './edge/encoded-bodies.js';
import { RateLimiter } from './edge/rate-limit.js';
import { parseTrustedProxies } from './edge/client-ip.js';
import type { EdgeDeps } from './edge/deps.js';
import type { Listening } from './edge/listen.js';
import { feedHub, gameFeedOf, httpEdge } from './http-threads.js';
import type { EdgeThreads } from './edge/threads/pool.js';
import { listenStarting } from './edge/starting.js';
import { listenMetrics } from './edge/metrics-listener.js';
import { edgeLimits } from './edge-limits.js';
import { Readiness } from './readiness.js';
import { gatherWrites } from './edge/ndjson.js';
import { SpectatorSeats } from './edge/spectators.js';
import { GuestAbandonment } from './services/guest-abandon.js';
import { GuestQuota } from './services/guest-quota.js';
import type { ObservedResponse } from './edge/router.js';
import type { HouseKind } from './game/house.js';
import type { Logger } from './domain/log.js';
import { createLogger, gameLogLines } from './log.js';
import { ServiceMetrics } from './metrics.js';
import { AccountHub } from './services/account-hub.js';
import { ChallengeService } from './services/challenges.js';
import { GameAdmission } from './services/game-admission.js';
import { IdentityService, parseHouseBotsEnv, builtInHouseBotIds } from './services/identity.js';
import { HouseGameService } from './services/house-games.js';
import { LadderScheduler } from './services/ladder-scheduler.js';
import { TournamentFollowers } from './services/tournaments/followers.js';
import { TournamentScheduler } from './services/tournaments/scheduler.js';
import { TournamentService } from './services/tournaments/service.js';
import { LobbyService } from './services/lobby.js';
import { LadderService } from './services/ladder.js';
import { RatingBatcher } from './services/ratings.js';
import { Presence } from './services/presence.js';
import { randomBase62 } from './services/tokens.js';
import { LmdbStore, openStore } from './store/index.js';
import { ForwardingStore } from './shard/owner/forwarding-store.js';
import { ShardedGames } from './shard/main/sharded-games.js';
import { LoopbackTransport } from './shard/loopback-transport.js';
import { type ShardTransport } from './shard/protocol/transport.js';
import { WorkerTransport } from './shard/main/worker-transport.js';
import { threadCpuSeconds, threadHeapBytes } from './shard/owner/cpu.js';
import type { Store } from './store/types.js';
import type { Resolver } from './services/webhooks/policy.js';
import { createWebhooks, type WebhookParts } from './webhooks.js';
import { ClusterNode, clusterGameGate, clusterGames, coordinatedServices, openSharing } from './cluster/index.js';

/** The server's version, for /health and the API documents: the package's own. */
export const VERSION: string = (
  JSON.parse(readFileSync(projectFile('package.json'), 'utf8')) as { version: string }
).version;

export interface StartOptions {
  clock?: Clock;
  log?: Logger;
  /**
   * Where the game shards run: 'worker' (default), a worker thread each; 'loopback', in this
   * thread over the same protocol, for tests that drive time with a ManualClock.
   */
  shards?: 'worker' | 'loopback';
  /** Store override (tests share one across restarts). */
  store?: Store;
  /** Sees every non-stream response (conformance checks). */
  observe?: (info: ObservedResponse) => void;
  /** House player RNG (tests). */
  random?: () => number;
  /** Server seeds of new games with loopback shards (tests: reproducible dice); random otherwise. */
  serverSeed?: () => Uint8Array;
  /** DNS of webhook hosts (tests inject one; the system resolver otherwise). */
  webhookResolver?: Resolver;
  /** Tests observe each pinned lookup of a webhook connection. */
  onPinnedLookup?: (host: string, address: string) => void;
  /** The built web page (default dist/web of the project). */
  webDir?: string;
  /** Tests: holds each account stream between its subscription and its catch-up (EdgeDeps.catchUpHold). */
  catchUpHold?: (principalId: string) => Promise<void>;
}

export interface RunningServer {
  port: number;
  url: string;
  games: ShardedGames;
  /** The ladder's pairing rounds (tests run one at will with round()). */
  scheduler: LadderScheduler;
  store: Store;
  /** The tournaments' scheduler (tests look at its pairs in flight). */
  tournaments: TournamentScheduler;
  /** The periodic rating batch (tests run one at will with runBatch()). */
  ratings: RatingBatcher;
  /** Webhook parts, null when webhooks are disabled. */
  webhooks: WebhookParts | null;
  /** The port of the metrics' own listener (`metrics.port`), if they have one. */
  metricsPort?: number;
  /** The edge threads when `http.threads` > 1 (tests read their request counters). */
  httpThreads?: EdgeThreads;
  /** Stops accepting, ends streams and games' timers, drains the pool, closes the store. */
  close(): Promise<void>;
}

const HOUSE_KINDS: Record<string, HouseKind> = { random: 'random', greedy: 'greedy' };

export async function startServer(config: Config, opts: StartOptions = {}): Promise<Result<RunningServer, string>> {
  const clock = opts.clock ?? systemClock;
  const log = opts.log ?? createLogger(config.logLevel);
  const houseBots = parseHouseBotsEnv(config.houseBots);
  if (!houseBots.ok) return { ok: false, error: `houseBots: ${houseBots.error}` };
  const proxies = parseTrustedProxies(config.http.trustedProxies);
  if (!proxies.ok) return { ok: false, error: `http.trustedProxies: ${proxies.error}` };

  let openedStore = opts.store;
  let cluster: ClusterNode | undefined;
  // A cluster node answers 503 `node_starting` while it waits for its cluster (docs/CLUSTER.md).
  const starting = !openedStore && config.cluster.servers.length > 0 ? await listenStarting(config.host, config.port, log).catch((e: Error) => e) : undefined;
  if (starting instanceof Error) return { ok: false, error: starting.message };
  if (!openedStore && config.cluster.servers.length > 0) { // cluster mode (docs/CLUSTER.md)
    const onWait = (_step: string, cause: string) => starting?.waitingFor(cause);
    const opened = await ClusterNode.open(config.cluster, clock, log, { maxResultsInFlight: config.ladder.maxGamesPerBatch, onWait });
    if (!opened.ok) {
      starting?.close();
      return opened;
    }
    cluster = opened.value;
    openedStore = cluster.store;
  }
  if (!openedStore) {
    const opened = await openStore({ memory: config.memory, dataDir: config.dataDir });
    if (!opened.ok) return { ok: false, error: opened.error };
    openedStore = opened.value;
  }
  // The gauges read the sharded games (made below) only when /metrics is scraped.
  const metrics: ServiceMetrics = new ServiceMetrics({
    liveGames: (): number => sharded.liveCount(),
    threadCpu: () => [
      { thread: 'main', seconds: threadCpuSeconds() },
      ...sharded.shardCpuSeconds().map((seconds, i) => ({ thread: `shard-${i}`, seconds })),
    ],
    threadHeap: () => [
      { thread: 'main', ...threadHeapBytes() },
      ...sharded.shardHeapBytes().map((heap, i) => ({ thread: `shard-${i}`, ...heap })),
    ],
    unsentBytes: () => edge.sendBudget?.unsent() ?? 0,
    shardTime: () => ({ dispatch: transport instanceof WorkerTransport ? transport.time.dispatch : 0, apply: sharded.applySeconds }),
    replicas: () => sharded.replicaStats(), cluster: cluster && (() => cluster!.transport.stats()),
  });
  const store = metrics.timedStore(openedStore);

  // Cluster: account streams, short-lived tokens and recent requests across nodes (docs/CLUSTER.md).
  const sharing = await openSharing(cluster, config, clock, log);
  const { accountBus, tokenBus, seenBus, tournamentBus } = sharing;
  const hub = new AccountHub(accountBus);
  accountBus?.bind(hub);
  const identity = new IdentityService(store, clock, {
    anonTtlMs: config.identity.anonTtlMs,
    maxAnonIdentities: config.identity.maxAnonIdentities,
    staticBots: houseBots.value,
  }, tokenBus);
  // Guest games per address and guest clocks (the games tell it when a game ends).
  const guestQuota = new GuestQuota(
    {
      gamesPerAddress: config.limits.guestGamesPerAddress,
      maxInitialSeconds: config.limits.guestClock.maxInitialSeconds,
      maxIncrementSeconds: config.limits.guestClock.maxIncrementSeconds,
      maxSecondsPerMove: config.limits.guestClock.maxSecondsPerMove,
    },
    (gameId) => guestAbandonment.watch(gameId),
  );
  const housePlayers = new Map<string, HouseKind>();
  for (const id of builtInHouseBotIds()) housePlayers.set(id, HOUSE_KINDS[id.split(':').pop() ?? ''] ?? 'random');
  const webhooks = config.webhooks.enabled
    ? createWebhooks(config.webhooks, {
        store, clock, log, version: VERSION, setWebhook: (id, hook) => identity.setWebhook(id, hook),
        resolver: opts.webhookResolver, onPinnedLookup: opts.onPinnedLookup,
        delivers: cluster ? (g) => cluster?.ownsGame(g) === true : undefined,
      })
    : null;
  webhooks?.registerMetrics(metrics.registry);
  // Games run in shards; a memory server's send their writes to the one MemoryStore, loopback ones to the caller's.
  const forwarded = !cluster && !openedStore.persistent && !(opts.shards === 'loopback' && opts.store !== undefined);
  const shardCount = cluster ? cluster.shards : config.shards === 'auto' ? Math.max(1, availableParallelism() - 1) : config.shards;
  let transport: ShardTransport;
  const feeds = feedHub(config, cluster !== undefined); // ports between edge threads and shards, if several
  if (cluster) transport = cluster.transport;
  else if (opts.shards === 'loopback') {
    const shared = openedStore;
    transport = new LoopbackTransport({
      clock, config: config.games, log, housePlayers, random: opts.random, serverSeed: opts.serverSeed,
      storeFor: () => (forwarded ? { mode: 'forwarding', games: new ForwardingStore() } : { mode: 'shared', games: shared }),
    }, feeds?.shardEnds);
  } else {
    if (!forwarded && !(openedStore instanceof LmdbStore)) {
      await openedStore.close();
      return { ok: false, error: 'worker shards need the LMDB store or memory' };
    }
    transport = new WorkerTransport(new URL('./shard-worker.js', import.meta.url), {
      store: openedStore instanceof LmdbStore ? { memory: false, dataDir: openedStore.dir } : { memory: true },
      config: config.games,
      house: [...housePlayers],
      logLevel: config.logLevel, statsEveryMs: 1000,
    }, feeds?.shardEnds);
  }
  // Large moves bodies kept on main, one per live game: a game's goes when it ends.
  const movesBodies = new EncodedBodies({}, (id) => sharded.get(id) !== undefined);
  const sharded: ShardedGames = new ShardedGames({
    transport,
    shards: shardCount,
    // Untimed: the shards report their game writes themselves (onStoreWrite), a forwarded ending included.
    store: openedStore,
    forwarded,
    clock,
    config: config.games,
    listeners: [cluster ? { ...cluster.ownedOnly(hub), gameEnded: (g, rec) => void (cluster?.ownsGame(g) && hub.gameEnded(g, rec)) } : hub, metrics.games, { gameEnded: (g, rec) => scheduler.gameEnded(g, rec) }, { gameEnded: (g, rec) => tournamentScheduler.gameEnded(g, rec), moveRefused: (g, seat) => tournamentScheduler.moveRefused(g, seat) }, { gameEnded: (g) => { guestQuota.gameEnded(g.id); guestAbandonment.gameEnded(g.id); movesBodies.forget(g.id); } }, ...(webhooks ? [cluster ? cluster.ownedOnly(webhooks.deliverer) : webhooks.deliverer] : []), ...[gameLogLines(log)].filter((l) => l !== undefined)],
    newId: () => randomBase62(16),
    log,
    onRestart: () => metrics.shardRestarted(),
    onStoreWrite: (op, seconds) => metrics.observeStoreWrite(op, seconds),
    onTree: (seconds) => metrics.observeTree(seconds),
    aroundBatch: gatherWrites,
    cluster: cluster ? clusterGames({ idleMs: config.cluster.followIdleMs, max: config.cluster.followMax }) : undefined,
    ...(cluster ? { requestTimeoutMs: 30_000 } : {}), // across a network, an answer may be lost
  });
  const guestAbandonment = new GuestAbandonment({ games: sharded, clock }, config.limits.guestAbandonAfterMs);
  // One guard for every way a game is made for players (challenges, the lobby, the ladder).
  const admission = new GameAdmission(
    { live: sharded, tierOf: (id) => identity.tierOf(id), hostedBy: (id) => tournamentScheduler.hostedBy(id) },
    { perIdentity: config.limits.liveGamesPerIdentity, maxLiveGames: config.limits.maxLiveGames },
  );
  const presence = new Presence(clock, undefined, undefined, seenBus);
  const scheduler: LadderScheduler = new LadderScheduler(
    {
      store, identity, games: sharded, hub, presence, admission, clock, random: opts.random ?? Math.random, log,
      webhooksEnabled: config.webhooks.enabled,
    },
    { pairIntervalMs: config.ladder.pairIntervalMs, rematchAfterMs: config.ladder.rematchAfterMs },
  );
  const houseIds = builtInHouseBotIds();
  const tournamentFollowers = new TournamentFollowers(store, tournamentBus);
  tournamentBus?.bind(tournamentFollowers);
  const tournamentScheduler: TournamentScheduler = new TournamentScheduler(
    {
      followers: tournamentFollowers, games: sharded, admission, clock, log,
      seatsOf: (id) => (houseIds.has(id) ? Infinity : Math.max(2, store.getBot(id)?.capacity ?? 2)),
      isHouse: (id) => identity.tierOf(id) === 'static',
    },
    {
      tickMs: config.events.tickMs, pairsInFlightPerHost: config.events.pairsInFlightPerHost, houseOnlyPairsPerHost: config.events.houseOnlyPairsPerHost,
      gamesPerAddress: config.events.liveGamesPerAddress,
      maxEventGames: Math.floor(config.limits.maxLiveGames * config.events.shareOfLiveGames),
      pendingTtlMs: config.events.pendingTtlMs,
    },
  );
  const tournaments = new TournamentService(
    {
      followers: tournamentFollowers, identity, hub, clock, newId: () => randomBase62(16), isHouse: (id) => houseIds.has(id),
      kick: () => tournamentScheduler.kick(), settle: () => tournamentScheduler.round(),
      invitations: new RateLimiter({ limit: config.events.invitationsPerBotPerHour, windowMs: 3_600_000, maxKeys: config.limits.rateLimitMaxKeys, clock }),
    },
    config.events,
  );
  const makeChallenges = () => new ChallengeService(
    { identity, hub, games: sharded, clock, admission, onInternalError: (err) => log.error({ err }, 'house bot could not accept') },
    { ttlMs: config.challenges.ttlMs, maxPendingPerChallenger: config.challenges.maxPendingPerChallenger, houseBotIds: builtInHouseBotIds() },
  );
  const makeLobby = () => new LobbyService({ identity, games: sharded, clock, admission, guestQuota }, config.lobby);
  const { challenges, lobby, held } = coordinatedServices(cluster, clock, log, { challenges: makeChallenges, lobby: makeLobby });

  const ladder = new LadderService({ store, games: sharded, identity });
  const ratings = new RatingBatcher(
    store,
    clock,
    { batchMs: config.ladder.ratingBatchMs, tau: config.ladder.tau, maxGamesPerBatch: config.ladder.maxGamesPerBatch },
    log,
    cluster?.ratingFeed(), // a cluster's batches take their games from the results queue
  );

  const spectators = new SpectatorSeats(config.spectators);
  const readiness = new Readiness({ store, restartingShards: sharded.restartingShards, cluster: cluster ? () => cluster!.readiness() : undefined });
  const metricsApart = config.metrics.port !== null;
  const deps: EdgeDeps = {
    clock,
    log,
    store,
    games: sharded,
    gameGate: cluster ? clusterGameGate(sharded, (id) => cluster.store.loadGame(id)) : undefined, placement: cluster && gamePlacement(config.cluster.node, (id) => cluster!.ownerOf(id)),
    identity,
    hub,
    challenges,
    lobby,
    ladder,
    houseGames: new HouseGameService({ identity, games: sharded, admission, guestQuota }),
    spectators,
    guestAbandonment,
    presence,
    limits: edgeLimits(config, clock),
    version: VERSION,
    verdictWaitMs: config.games.verdictWaitMs,
    webhooksEnabled: config.webhooks.enabled,
    webhooks: webhooks?.routes ?? null,
    tournaments,
    metrics: metricsApart ? null : () => metrics.text(),
    ready: () => readiness.report(),
    meter: metrics.edge,
    catchUpHold: opts.catchUpHold, gameFeed: feeds && gameFeedOf(sharded), // edge threads' streams follow games on their shards
  };

  const http = httpEdge(config, { cluster: cluster !== undefined, webDir: opts.webDir ?? projectFile('dist', 'web'), log, around: gatherWrites, feeds });
  const edge = buildEdge(deps, {
    corsOrigins: config.http.corsOrigins, trustedProxies: proxies.value, maxBodyBytes: config.limits.maxBodyBytes,
    keepAliveMs: config.streams.keepAliveMs, maxBufferedBytes: config.streams.maxBufferedBytes,
    connectionsPerIp: config.limits.connectionsPerIp, clock, observe: opts.observe,
    web: http.web, send: config.http.send, movesBodies, app: http.app ?? starting?.app,
  });
  let listening: (Listening & { stopped?: Promise<void> }) | undefined;
  let metricsListening: Listening | undefined;
  // Stop accepting, end every stream cleanly (account streams here, game streams when their actors
  // stop), wait for running game commands, then close the store. Also what a failed start undoes.
  const shutDown = async (): Promise<void> => {
    listening?.close();
    metricsListening?.close();
    hub.closeAll();
    await sharing.close();
    guestAbandonment.stop();
    tournamentFollowers.closeAll();
    await scheduler.stop();
    await tournamentScheduler.stop();
    // Deliveries in flight are cut off first, not marked finished: after a restart they go again.
    await webhooks?.stop();
    await cluster?.close(); // its shards handed back (drained) for other nodes to resume
    await sharded.stop();
    // After the games: a game that ended while stopping is pending and rated at the next start.
    await ratings.stop();
    edge.closeConnections(); // anything opened while the games stopped
    await listening?.stopped; // edge threads, if any, have let go of their sockets
    await store.close();
    await cluster?.disconnect();
  };
  try {
    if (cluster) {
      // Each shard's owner resumes its games; the ladder, the rating batch and the events run on one node.
      await cluster.start({
        sharded, clock, games: config.games, housePlayers, random: opts.random,
        singletons: [
          { name: 'rating-batch', start: () => ratings.start(), stop: () => ratings.stop() },
          { name: 'ladder-scheduler', start: () => scheduler.start(), stop: () => scheduler.stop() },
          { name: 'event-scheduler', start: () => tournamentScheduler.start(), stop: () => tournamentScheduler.stop() },
          ...held,
        ],
      });
    } else {
      await sharded.resume();
      ratings.start();
      scheduler.start();
      await tournamentScheduler.start();
    }
    // A cluster node's starting answers stop here and the edge takes their port over.
    listening = starting ? starting.handOver(edge) : await http.listen(edge, config.host, config.port);
    if (config.metrics.port !== null) metricsListening = await listenMetrics(config.metrics.host, config.metrics.port, () => metrics.text(), log);
    webhooks?.deliverer.release(); // held since it was made: deliveries start once the server listens
  } catch (e) {
    if (listening === undefined) starting?.close();
    await shutDown();
    return { ok: false, error: (e as Error).message };
  }
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = `http://${host}:${listening.port}`;
  const storeName = cluster ? `cluster ${config.cluster.servers.join(',')}` : store.persistent ? config.dataDir : 'memory';
  log.info({ url, store: storeName, version: VERSION, ...(cluster ? { node: config.cluster.node } : {}) }, `listening on ${url}`);
  let closing: Promise<void> | undefined;
  return {
    ok: true,
    value: {
      port: listening.port,
      url,
      games: sharded,
      scheduler,
      tournaments: tournamentScheduler,
      store,
      ratings,
      webhooks,
      metricsPort: metricsListening?.port,
      httpThreads: http.threads,
      close: () =>
        (closing ??= (async () => {
          // /ready says 503 at once, while everything else serves on for shutdown.notReadyMs, so that a
          // load balancer stops sending new clients here first.
          readiness.stop();
          if (config.shutdown.notReadyMs > 0) await new Promise<void>((done) => clock.schedule(config.shutdown.notReadyMs, done));
          await shutDown();
        })()),
    },
  };
}
