// The server's configuration: its schema, and the one place that reads it (config/default.json, an
// optional --config file, then DICECHESS_* environment variables (any limit: config-env.ts), then command-line flags), all
// validated with zod. The game's own settings are src/game/game-config.ts.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { Result } from './domain/result.js';
import { projectFile } from './paths.js';
import { limitPathsFromEnv } from './config-env.js';

const ms = z.number().int().min(0);
/** A file path, or '' for none. */
const optionalFile = z.string();

/** At most one way to authenticate; a user needs its password file; a client certificate needs its key. */
const NatsClientSchema = z
  .object({
    credsFile: optionalFile,
    nkeySeedFile: optionalFile,
    user: z.string(),
    passwordFile: optionalFile,
    tls: z.object({ caFile: optionalFile, certFile: optionalFile, keyFile: optionalFile }),
  })
  .refine((n) => [n.credsFile, n.nkeySeedFile, n.user].filter((v) => v !== '').length <= 1, {
    message: 'give one of credsFile, nkeySeedFile or user',
  })
  .refine((n) => (n.user === '') === (n.passwordFile === ''), { message: 'user and passwordFile go together', path: ['passwordFile'] })
  .refine((n) => (n.tls.certFile === '') === (n.tls.keyFile === ''), { message: 'certFile and keyFile go together', path: ['tls', 'keyFile'] });

const pos = z.number().int().min(1);

export const ConfigSchema = z.object({
  host: z.string().min(1),
  port: z.number().int().min(0).max(65535),
  dataDir: z.string().min(1),
  memory: z.boolean(),
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
  /** Game shards (worker threads owning the actors): a count, or 'auto' for cores − 1 (at least 1). */
  shards: z.union([z.literal('auto'), z.number().int().min(1).max(64)]),
  /**
   * GET /metrics on a listener of its own (`port`, on `host`), and not on the public port; null: on
   * the public port. 0 picks a free port (tests).
   */
  metrics: z.object({ port: z.number().int().min(0).max(65535).nullable(), host: z.string().min(1) }),
  /** After SIGTERM, /ready answers 503 for `notReadyMs` while everything else still serves; then the drain. */
  shutdown: z.object({ notReadyMs: ms }),
  games: z.object({
    seedGraceMs: ms,
    unlimitedCapMs: pos,
    inlineLeafCap: pos,
    archiveSize: pos,
    archiveBytes: pos,
    mailboxSize: pos,
    houseMoveDelayMs: ms,
    verdictWaitMs: pos,
  }),
  streams: z.object({ keepAliveMs: pos, maxBufferedBytes: pos }),
  /** Public game streams (no token): at most so many per game, per address and in all. */
  spectators: z.object({ maxPerGame: pos, maxTotal: pos, maxPerAddress: pos, reservedForNewAddresses: ms }),
  identity: z.object({ anonTtlMs: pos, maxAnonIdentities: pos }),
  challenges: z.object({ ttlMs: pos, maxPendingPerChallenger: pos }),
  lobby: z.object({ botSeekTtlMs: pos, guestSeekTtlMs: pos, maxOpenSeeksPerCaller: pos, maxOpenGuestSeeksPerAddress: pos, matchedPollableMs: pos }),
  limits: z.object({
    anonMintsPerHour: pos,
    registrationsPerHour: pos,
    /**
     * Loopback clients (127.0.0.0/8, ::1) skip the registration limit: for a local set-up only, since
     * behind a proxy on the same host (with no trusted proxies set) every client is loopback.
     */
    registrationsExemptLoopback: z.boolean().default(false),
    guestLobbyPerHour: pos,
    webhookRegistrationsPerHour: pos,
    maxBodyBytes: pos,
    rateLimitMaxKeys: pos,
    /** Live games one identity may sit in at once, by tier (house bots are exempt). */
    liveGamesPerIdentity: z.object({ anonymous: pos, registered: pos, guest: pos }),
    maxLiveGames: pos,
    challengesPerHour: pos,
    /** Account and game streams together. */
    streamsPerIdentity: pos,
    /** Requests in flight and streams open per client address (see docs/DECISIONS.md). */
    connectionsPerIp: pos,
    /** Live games of human guests per client address (each guest game has a fresh guest id). */
    guestGamesPerAddress: pos,
    /** The longest clocks a guest may ask for (house games, guest seeks). */
    guestClock: z.object({ maxInitialSeconds: pos, maxIncrementSeconds: pos, maxSecondsPerMove: pos }),
    /** A guest game with no move and no guest stream for this long is resigned for its guest. */
    guestAbandonAfterMs: pos,
    /** GET /lobby/seeks and seek polls per address per minute. */
    lobbyPollsPerMinute: pos,
    /** Ladder joins and leaves per registered bot per hour. */
    ladderChangesPerHour: pos,
  }),
  http: z.object({
    /** Threads serving HTTP on the one port (docs/OPERATIONS.md): a count, or 'auto' for about half the cores. */
    threads: z.union([z.literal('auto'), z.number().int().min(1).max(64)]),
    trustedProxies: z.array(z.string()),
    corsOrigins: z.array(z.string()),
    /** Large answers (see src/edge/send-budget.ts): streamed with backpressure and bounded. */
    send: z.object({
      largeBodyBytes: pos,
      unsentBytesPerAddress: pos,
      unsentBytesTotal: pos,
      bodyBytesPerMinute: pos,
      drainTimeoutMs: pos,
    }),
  }),
  /** `team|name|token,...` (operator-configured static bots, driven by external programs). */
  houseBots: z.string(),
  webhooks: z.object({
    enabled: z.boolean(),
    answerCapSeconds: pos,
    allowInsecureLocalTargets: z.boolean(),
    /** Deliveries in flight at once, across all games; the rest wait their turn. */
    maxConcurrentDeliveries: pos,
    /** Keep-alive connections per bot (each bot has its own pool), and its deliveries in flight at once. */
    connectionsPerBot: pos,
    /** Bots with a pooled connection set kept (least recently used closed first). */
    maxPools: pos,
    /** Deliveries waiting for one bot's slots (at most one per game); past it a roll is not delivered. */
    maxQueuedPerBot: pos,
    /** Deliveries waiting across all bots; past it a roll is not delivered. */
    maxQueued: pos,
  }),
  ladder: z.object({
    ratingBatchMs: pos,
    tau: z.number().positive().max(10),
    maxGamesPerBatch: pos,
    pairIntervalMs: pos,
    /** How long two free bots wait for someone new before they may meet again right away. */
    rematchAfterMs: ms,
  }),
  /** Events for tournament hosts: the scheduler's tick and the limits per host and per event. */
  events: z.object({
    tickMs: pos,
    openPerHost: pos,
    pairsInFlightPerHost: pos,
    /** Pairs between two house bots (the server playing itself) in flight over one host's events. */
    houseOnlyPairsPerHost: pos,
    liveGamesPerAddress: pos,
    /** The share of `limits.maxLiveGames` all events' games may take; the rest stays for players. */
    shareOfLiveGames: z.number().gt(0).max(1),
    playersPerEvent: z.number().int().min(2),
    pairsPerEvent: pos,
    /** Events one host may create per sliding hour (successful creations). */
    createsPerHostPerHour: pos,
    /** Event creations asked for per client address per sliding hour (every attempt). */
    createsPerAddressPerHour: pos,
    /** Event invitations one bot may receive per sliding hour. */
    invitationsPerBotPerHour: pos,
    /** A pending event not started this long after its creation is cancelled, invitations and all. */
    pendingTtlMs: pos,
  }),
  /**
   * Cluster mode (docs/CLUSTER.md): off while `servers` is empty. Every node of one cluster uses the
   * same `shards`, `replicas` and `leaseTtlMs`; `node` names this one (letters, digits, - and _).
   */
  cluster: z.object({
    servers: z.array(z.string().regex(/^(nats|tls):\/\/[^\s,]+$/, 'a NATS URL such as nats://127.0.0.1:4222')),
    node: z.union([z.literal(''), z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'letters, digits, - and _ (at most 64)')]),
    shards: z.number().int().min(1).max(1024),
    replicas: z.union([z.literal(1), z.literal(3), z.literal(5)]),
    /** How long a node's shard and membership leases live without renewal (a dead node's games move after it). */
    leaseTtlMs: z.number().int().min(1000),
    /** A game nobody asked this node about (stream, read, command) for this long stops being followed here. */
    followIdleMs: z.number().int().min(1000),
    /** Games a node follows one by one at most (the least recently asked go first). */
    followMax: z.number().int().min(1),
    /**
     * Finished games a node keeps in memory after reading them on demand from the store's bucket
     * (docs/CLUSTER.md): records and encoded bytes at most, the least recently read going first. A
     * setting written before it existed gets 2,000 records and 64 MiB.
     */
    finishedCache: z.object({ entries: z.number().int().min(1), bytes: z.number().int().min(1024) }).default({ entries: 2000, bytes: 67_108_864 }),
    /**
     * How long a node waits at start-up for its cluster (servers listening, JetStream ready) before
     * it exits with the cause; it answers 503 meanwhile. A setting written before it existed gets 120 s.
     */
    startTimeoutMs: z.number().int().min(100).default(120_000),
    /**
     * Keep every finished game's entries in the game log (`DC_GAMES`) instead of trimming them once the
     * ending is archived: for audits of the log's fencing; the stream then grows for ever. Default off.
     */
    keepFinishedLogs: z.boolean().default(false),
    /**
     * How a node proves itself to NATS and checks the servers (docs/CLUSTER.md, "Securing a cluster"):
     * secrets are named by file path only, never given inline, so they stay out of argv and config dumps.
     */
    nats: NatsClientSchema,
  }).refine((c) => c.servers.length === 0 || c.node !== '', { message: 'cluster.node is needed with cluster.servers', path: ['node'] }),
});

export type Config = z.infer<typeof ConfigSchema>;

/** Environment variables that override a config path (numbers and booleans are parsed). */
const ENV: Record<string, string> = {
  DICECHESS_HOST: 'host',
  DICECHESS_PORT: 'port',
  DICECHESS_DATA: 'dataDir',
  DICECHESS_MEMORY: 'memory',
  DICECHESS_LOG_LEVEL: 'logLevel',
  DICECHESS_SHARDS: 'shards',
  DICECHESS_METRICS_PORT: 'metrics.port',
  DICECHESS_METRICS_HOST: 'metrics.host',
  DICECHESS_SHUTDOWN_NOT_READY_MS: 'shutdown.notReadyMs',
  DICECHESS_HOUSE_BOTS: 'houseBots',
  DICECHESS_SEED_GRACE_MS: 'games.seedGraceMs',
  DICECHESS_HOUSE_MOVE_DELAY_MS: 'games.houseMoveDelayMs',
  DICECHESS_VERDICT_WAIT_MS: 'games.verdictWaitMs',
  DICECHESS_KEEPALIVE_MS: 'streams.keepAliveMs',
  DICECHESS_SPECTATORS_PER_ADDRESS: 'spectators.maxPerAddress',
  DICECHESS_HTTP_THREADS: 'http.threads',
  DICECHESS_TRUSTED_PROXIES: 'http.trustedProxies',
  DICECHESS_CORS_ORIGINS: 'http.corsOrigins',
  DICECHESS_UNSENT_BYTES_PER_ADDRESS: 'http.send.unsentBytesPerAddress',
  DICECHESS_UNSENT_BYTES_TOTAL: 'http.send.unsentBytesTotal',
  DICECHESS_BODY_BYTES_PER_MINUTE: 'http.send.bodyBytesPerMinute',
  DICECHESS_DRAIN_TIMEOUT_MS: 'http.send.drainTimeoutMs',
  DICECHESS_WEBHOOKS_ENABLED: 'webhooks.enabled',
  DICECHESS_LADDER_RATING_BATCH_MS: 'ladder.ratingBatchMs',
  DICECHESS_WEBHOOKS_ALLOW_INSECURE_LOCAL_TARGETS: 'webhooks.allowInsecureLocalTargets',
  DICECHESS_WEBHOOKS_MAX_CONCURRENT: 'webhooks.maxConcurrentDeliveries',
  DICECHESS_WEBHOOKS_CONNECTIONS_PER_BOT: 'webhooks.connectionsPerBot',
  DICECHESS_WEBHOOKS_MAX_POOLS: 'webhooks.maxPools',
  DICECHESS_WEBHOOKS_MAX_QUEUED_PER_BOT: 'webhooks.maxQueuedPerBot',
  DICECHESS_WEBHOOKS_MAX_QUEUED: 'webhooks.maxQueued',
  DICECHESS_LIVE_GAMES_ANONYMOUS: 'limits.liveGamesPerIdentity.anonymous',
  DICECHESS_LIVE_GAMES_REGISTERED: 'limits.liveGamesPerIdentity.registered',
  DICECHESS_LIVE_GAMES_GUEST: 'limits.liveGamesPerIdentity.guest',
  DICECHESS_MAX_LIVE_GAMES: 'limits.maxLiveGames',
  DICECHESS_CHALLENGES_PER_HOUR: 'limits.challengesPerHour',
  DICECHESS_STREAMS_PER_IDENTITY: 'limits.streamsPerIdentity',
  DICECHESS_CONNECTIONS_PER_IP: 'limits.connectionsPerIp',
  DICECHESS_GUEST_GAMES_PER_ADDRESS: 'limits.guestGamesPerAddress',
  DICECHESS_GUEST_MAX_INITIAL_SECONDS: 'limits.guestClock.maxInitialSeconds',
  DICECHESS_GUEST_ABANDON_AFTER_MS: 'limits.guestAbandonAfterMs',
  DICECHESS_LOBBY_POLLS_PER_MINUTE: 'limits.lobbyPollsPerMinute',
  DICECHESS_LADDER_CHANGES_PER_HOUR: 'limits.ladderChangesPerHour',
  DICECHESS_GUEST_SEEKS_PER_ADDRESS: 'lobby.maxOpenGuestSeeksPerAddress',
  DICECHESS_LADDER_PAIR_INTERVAL_MS: 'ladder.pairIntervalMs',
  DICECHESS_LADDER_REMATCH_AFTER_MS: 'ladder.rematchAfterMs',
  DICECHESS_EVENTS_OPEN_PER_HOST: 'events.openPerHost',
  DICECHESS_EVENTS_PAIRS_IN_FLIGHT_PER_HOST: 'events.pairsInFlightPerHost',
  DICECHESS_EVENTS_HOUSE_ONLY_PAIRS_PER_HOST: 'events.houseOnlyPairsPerHost',
  DICECHESS_EVENTS_LIVE_GAMES_PER_ADDRESS: 'events.liveGamesPerAddress',
  DICECHESS_EVENTS_PLAYERS_PER_EVENT: 'events.playersPerEvent',
  DICECHESS_EVENTS_PAIRS_PER_EVENT: 'events.pairsPerEvent',
  DICECHESS_EVENTS_CREATES_PER_HOST_PER_HOUR: 'events.createsPerHostPerHour',
  DICECHESS_EVENTS_CREATES_PER_ADDRESS_PER_HOUR: 'events.createsPerAddressPerHour',
  DICECHESS_EVENTS_INVITATIONS_PER_BOT_PER_HOUR: 'events.invitationsPerBotPerHour',
  DICECHESS_EVENTS_PENDING_TTL_MS: 'events.pendingTtlMs',
  DICECHESS_CLUSTER_SERVERS: 'cluster.servers',
  DICECHESS_NODE: 'cluster.node',
  DICECHESS_CLUSTER_SHARDS: 'cluster.shards',
  DICECHESS_CLUSTER_REPLICAS: 'cluster.replicas',
  DICECHESS_CLUSTER_START_TIMEOUT_MS: 'cluster.startTimeoutMs',
  DICECHESS_CLUSTER_KEEP_FINISHED_LOGS: 'cluster.keepFinishedLogs',
  DICECHESS_CLUSTER_CREDS: 'cluster.nats.credsFile',
  DICECHESS_CLUSTER_NKEY_SEED_FILE: 'cluster.nats.nkeySeedFile',
  DICECHESS_CLUSTER_USER: 'cluster.nats.user',
  DICECHESS_CLUSTER_PASSWORD_FILE: 'cluster.nats.passwordFile',
  DICECHESS_CLUSTER_TLS_CA: 'cluster.nats.tls.caFile',
  DICECHESS_CLUSTER_TLS_CERT: 'cluster.nats.tls.certFile',
  DICECHESS_CLUSTER_TLS_KEY: 'cluster.nats.tls.keyFile',
};

export const DEFAULT_CONFIG_PATH = projectFile('config', 'default.json');

type Json = Record<string, unknown>;

function deepMerge(base: Json, over: Json): Json {
  const out: Json = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const b = out[k];
    out[k] =
      v && typeof v === 'object' && !Array.isArray(v) && b && typeof b === 'object' && !Array.isArray(b)
        ? deepMerge(b as Json, v as Json)
        : v;
  }
  return out;
}

function setPath(obj: Json, path: string, value: unknown): void {
  const keys = path.split('.');
  let cur = obj;
  for (const k of keys.slice(0, -1)) {
    const next = cur[k];
    cur[k] = next && typeof next === 'object' ? { ...(next as Json) } : {};
    cur = cur[k] as Json;
  }
  cur[keys[keys.length - 1]] = value;
}

function envValue(path: string, raw: string): unknown {
  if (path === 'http.trustedProxies' || path === 'http.corsOrigins' || path === 'cluster.servers') {
    return raw.split(',').map((s) => s.trim()).filter(Boolean);
  }
  const textual = path === 'houseBots' || path === 'host' || path === 'metrics.host' || path === 'dataDir' || path === 'cluster.node' || path.startsWith('cluster.nats.');
  if (textual) return raw;
  if (raw === 'true' || raw === 'false') return raw === 'true';
  if (/^-?\d+$/.test(raw)) return Number(raw);
  return raw;
}

function readJson(path: string): Result<Json, string> {
  try {
    const v: unknown = JSON.parse(readFileSync(path, 'utf8'));
    if (!v || typeof v !== 'object' || Array.isArray(v)) return { ok: false, error: `${path}: not a JSON object` };
    return { ok: true, value: v as Json };
  } catch (e) {
    return { ok: false, error: `${path}: ${(e as Error).message}` };
  }
}

export interface ConfigSources {
  file?: string;
  env?: Record<string, string | undefined>;
  /** Flat overrides by dotted path (from flags or tests). */
  overrides?: Record<string, unknown>;
}

/** Builds the effective configuration; errors name the offending field. */
export function loadConfig(src: ConfigSources = {}): Result<Config, string> {
  const base = readJson(DEFAULT_CONFIG_PATH);
  if (!base.ok) return base;
  let merged = base.value;
  if (src.file) {
    const f = readJson(src.file);
    if (!f.ok) return f;
    merged = deepMerge(merged, f.value);
  }
  for (const [name, path] of Object.entries(ENV)) {
    const raw = src.env?.[name];
    if (raw !== undefined && raw !== '') setPath(merged, path, envValue(path, raw));
  }
  const limits = limitPathsFromEnv(src.env ?? {}, (merged.limits ?? {}) as Json);
  if (!limits.ok) return limits;
  for (const [path, raw] of limits.value) setPath(merged, path, envValue(path, raw));
  for (const [path, v] of Object.entries(src.overrides ?? {})) setPath(merged, path, v);
  const parsed = ConfigSchema.safeParse(merged);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, error: `config ${issue.path.join('.') || '(root)'}: ${issue.message}` };
  }
  return { ok: true, value: parsed.data };
}

/** Config for tests: defaults with overrides, no file, no environment. */
export function testConfig(overrides: Record<string, unknown> = {}): Config {
  const c = loadConfig({ overrides });
  if (!c.ok) throw new Error(c.error);
  return c.value;
}
