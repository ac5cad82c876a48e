// Identities and bearer tokens: anonymous (memory only, for `identity.anonTtlMs`), registered (the store), static house
// bots (configuration) and human guests' seat tokens (issued by the lobby). Only token hashes are
// ever kept; every lookup goes through hashToken, so no token comparison needs to be constant-time.
import type { Clock } from '../domain/clock.js';
import { DEFAULT_RATING, SCHEMA_VERSION, type BotRecord, type WebhookRecord } from '../domain/records.js';
import { ok } from '../domain/result.js';
import { HUMAN_FACE, botExternalId, botFace, type Principal, type SeatPlayer } from '../domain/types.js';
import type { Store } from '../store/types.js';
import { fail, type ServiceError, type ServiceResult } from './errors.js';
import { ExpiringMap } from './expiring.js';
import { hashToken, newToken, randomHex } from './tokens.js';
import { SLUG_MAX, SLUG_PATTERN, isReservedTeam, isSlug } from '../domain/rules.js';
import { eventHostsView } from '../domain/tournaments.js';
import { BUILT_IN_HOUSE_BOTS, type StaticBotConfig } from './static-bots.js';

export { BUILT_IN_HOUSE_BOTS, builtInHouseBotIds, parseHouseBotsEnv, isSlug } from './static-bots.js';
export type { StaticBotConfig } from './static-bots.js';

export interface TokenResponse {
  token: string;
  team: string;
  name: string;
  id: string;
}

export interface Account {
  team: string;
  name: string;
  id: string;
  /** Registered bots only: its own event-hosts setting (never shown to another bot). */
  eventHosts?: ReturnType<typeof eventHostsView>;
}

export interface LadderState {
  onLadder: boolean;
  glickoRating: number;
  glickoRd: number;
}

export interface IdentityConfig {
  anonTtlMs: number;
  maxAnonIdentities: number;
  /** Operator-configured house bots; the built-ins are always added. */
  staticBots: StaticBotConfig[];
  guestTokenTtlMs: number;
  maxGuestTokens: number;
}

/**
 * The other nodes of a cluster, for the tokens this service keeps in memory (anonymous identities,
 * guest seat tokens): built in src/cluster/sharing/token-bus.ts. Reads are synchronous (a replica).
 */
export interface SharedIdentities {
  /** Tells the other nodes of a short-lived token, by hash (fire-and-forget, never throws). */
  put(hash: string, principal: Principal, expiresAt: number): void;
  /** A short-lived token issued on any node, while it lives. */
  get(hash: string, now: number): Principal | undefined;
  /** Whether an anonymous identity with this external id lives (issued on any node). */
  hasId(id: string, now: number): boolean;
}

export const DEFAULT_IDENTITY_CONFIG: IdentityConfig = {
  anonTtlMs: 24 * 60 * 60 * 1000,
  maxAnonIdentities: 200_000,
  staticBots: [],
  guestTokenTtlMs: 24 * 60 * 60 * 1000,
  maxGuestTokens: 100_000,
};


/**
 * Anonymous display-name slug (docs/API.md, "Identities and tokens"): lower-case, each run of characters outside
 * [a-z0-9-] becomes one '-', edge hyphens trimmed, cut to 20, hyphens left at the cut trimmed.
 * Returns '' when nothing usable remains.
 */
export function slugLabel(label: string | undefined | null): string {
  if (!label) return '';
  const s = label
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return s.slice(0, 20).replace(/-+$/, '');
}

/** How a bot sits in a game. */
export const botSeat = (team: string, name: string): SeatPlayer => ({
  id: botExternalId(team, name),
  face: botFace(team, name),
  participant: { Bot: { team, name } },
});

/** How a human guest sits in a game (its raw id never reaches spectators: the face is anonymous). */
export const guestSeat = (guestId: string): SeatPlayer => ({
  id: `guest:${guestId}`,
  face: HUMAN_FACE,
  participant: { Guest: { id: guestId } },
});

export const guestPrincipal = (guestId: string): Principal => ({
  id: `guest:${guestId}`,
  tier: 'guest',
  team: 'guest',
  name: guestId,
});

/** The seat a principal takes when it plays. */
export function seatPlayerOf(p: Principal): SeatPlayer {
  return p.tier === 'guest' ? guestSeat(p.name) : botSeat(p.team, p.name);
}

export class IdentityService {
  private readonly config: IdentityConfig;
  /** Anonymous tokens by hash. */
  private readonly anon: ExpiringMap<string, Principal>;
  /** Anonymous external id → token hash, so names stay unique and findBot can see live anons. */
  private readonly anonIds = new Map<string, string>();
  /** Guest seat tokens by hash. */
  private readonly guests: ExpiringMap<string, Principal>;
  /** Static bots by external id, and the hashes of those that have a token. */
  private readonly staticById = new Map<string, StaticBotConfig>();
  private readonly staticByHash = new Map<string, Principal>();
  /**
   * Per-bot queue of read-modify-write updates. Without it, a ladder toggle that read the record
   * before a rotation committed could write the old token hash back and revive the old token.
   */
  private readonly chains = new Map<string, Promise<void>>();

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    config: Partial<IdentityConfig> = {},
    /** In a cluster: anonymous and guest tokens issued on any node authenticate on every node. */
    private readonly shared?: SharedIdentities,
  ) {
    this.config = { ...DEFAULT_IDENTITY_CONFIG, ...config };
    this.anon = new ExpiringMap(this.config.anonTtlMs, this.config.maxAnonIdentities, (_hash, p) => {
      this.anonIds.delete(p.id);
    });
    this.guests = new ExpiringMap(this.config.guestTokenTtlMs, this.config.maxGuestTokens);
    // Built-ins first: a configured entry with a built-in's name cannot take it over (the config
    // parser refuses such names too).
    for (const bot of [...BUILT_IN_HOUSE_BOTS, ...this.config.staticBots]) {
      const id = botExternalId(bot.team, bot.name);
      if (this.staticById.has(id)) continue;
      this.staticById.set(id, bot);
      if (bot.token !== null) {
        this.staticByHash.set(hashToken(bot.token), { id, tier: 'static', team: bot.team, name: bot.name });
      }
    }
  }

  /** POST /bot/anon: never fails (the edge applies the per-IP budget). */
  mintAnon(label?: string | null): TokenResponse {
    const now = this.clock.now();
    const slug = slugLabel(label);
    let name: string;
    let id: string;
    // 32 random bits make a clash with a live anonymous name rare; re-roll so ids stay unique.
    do {
      name = `${slug || 'bot'}-${randomHex(8)}`;
      id = botExternalId('anon', name);
    } while (this.liveAnonHash(id, now) !== undefined || this.shared?.hasId(id, now));
    const token = newToken();
    const hash = hashToken(token);
    const principal: Principal = { id, tier: 'anonymous', team: 'anon', name };
    this.anon.set(hash, principal, now);
    this.anonIds.set(id, hash);
    this.shared?.put(hash, principal, now + this.config.anonTtlMs);
    return { token, team: 'anon', name, id };
  }

  /** POST /bot/register. */
  async register(team: string, name: string): Promise<ServiceResult<TokenResponse>> {
    if (isReservedTeam(team)) {
      return fail('reserved_team', `the team "${team}" is reserved`);
    }
    if (!isSlug(team) || !isSlug(name)) {
      return fail('invalid_slug', `team and name must match ${SLUG_PATTERN.source} and be at most ${SLUG_MAX} characters`);
    }
    const id = botExternalId(team, name);
    const taken = (): { ok: false; error: ServiceError } =>
      fail('identity_taken');
    if (this.staticById.has(id)) return taken();
    const token = newToken();
    const record: BotRecord = {
      schema: SCHEMA_VERSION,
      id,
      team,
      name,
      tokenHash: hashToken(token),
      createdAt: this.clock.now(),
      onLadder: false,
      rating: { ...DEFAULT_RATING },
      webhook: null,
    };
    if (!(await this.store.createBot(record))) return taken();
    return ok({ token, team, name, id });
  }

  /** Bearer token → principal, or null for an unknown, rotated or expired token. */
  authenticate(token: string): Principal | null {
    if (!token) return null;
    const hash = hashToken(token);
    const now = this.clock.now();
    const anon = this.anon.get(hash, now);
    if (anon) return anon;
    const guest = this.guests.get(hash, now);
    if (guest) return guest;
    const stat = this.staticByHash.get(hash);
    if (stat) return stat;
    const bot = this.store.getBotByTokenHash(hash);
    if (bot) return { id: bot.id, tier: 'registered', team: bot.team, name: bot.name };
    return this.shared?.get(hash, now) ?? null;
  }

  /**
   * POST /bot/token: a new token; the old one stops authenticating once this resolves. A
   * compare-and-swap on the presented token's hash: two rotations racing with one token both pass
   * authentication, but only the first still finds that token current when its turn in the bot's
   * queue comes; the other is refused (401) rather than handing out a token that is already dead.
   */
  async rotate(p: Principal, presented: string): Promise<ServiceResult<{ token: string }>> {
    if (p.tier !== 'registered') return fail('registered_only');
    const expected = hashToken(presented);
    return this.updateBot<{ token: string }>(p.id, (bot) => {
      if (bot.tokenHash !== expected) {
        return { refused: fail('invalid_token', 'the token was rotated by another request') };
      }
      const token = newToken();
      return { next: { ...bot, tokenHash: hashToken(token) }, answer: { token } };
    });
  }

  /** Sets or (with null) removes a registered bot's webhook; false when there was none to remove. */
  async setWebhook(id: string, webhook: WebhookRecord | null): Promise<boolean> {
    const r = await this.updateBot(id, (bot) => ({
      next: webhook === null && bot.webhook === null ? null : { ...bot, webhook },
      answer: webhook !== null || bot.webhook !== null,
    }));
    return r.ok && r.value;
  }

  /** GET /bot/account. */
  account(p: Principal): Account {
    const who = { team: p.team, name: p.name, id: p.id };
    return p.tier === 'registered' ? { ...who, eventHosts: eventHostsView(this.store.getBot(p.id)?.eventHosts) } : who;
  }

  ladderJoin(p: Principal): Promise<ServiceResult<LadderState>> {
    return this.setLadder(p, true);
  }

  ladderLeave(p: Principal): Promise<ServiceResult<LadderState>> {
    return this.setLadder(p, false);
  }

  /**
   * A challengeable bot by team and name: registered, static (built-ins included) or a live
   * anonymous identity. Null when there is none.
   */
  findBot(team: string, name: string): SeatPlayer | null {
    const id = botExternalId(team, name);
    if (team === 'anon') {
      const now = this.clock.now();
      return this.liveAnonHash(id, now) !== undefined || this.shared?.hasId(id, now) ? botSeat(team, name) : null;
    }
    if (this.staticById.has(id) || this.store.getBot(id)) return botSeat(team, name);
    return null;
  }

  /**
   * The tier of a seated player's external id: what its live-game cap is. Every house bot (built-in
   * or configured by the operator) is 'static', with or without a token.
   */
  tierOf(playerId: string): Principal['tier'] {
    if (playerId.startsWith('guest:')) return 'guest';
    if (this.staticById.has(playerId)) return 'static';
    if (playerId.startsWith(botExternalId('anon', ''))) return 'anonymous';
    return 'registered';
  }

  /** Registers a guest seat token (by hash only); a token already known keeps its original expiry. */
  addGuestSeatToken(token: string, guestId: string): void {
    const hash = hashToken(token);
    const now = this.clock.now();
    if (this.guests.get(hash, now)) return;
    const principal = guestPrincipal(guestId);
    this.guests.set(hash, principal, now);
    this.shared?.put(hash, principal, now + this.config.guestTokenTtlMs);
  }

  /** A fresh random seat token for a guest, registered and returned (shown once). */
  issueGuestSeatToken(guestId: string): string {
    const token = newToken();
    this.addGuestSeatToken(token, guestId);
    return token;
  }

  private liveAnonHash(id: string, now: number): string | undefined {
    const hash = this.anonIds.get(id);
    if (hash === undefined) return undefined;
    // get() removes an expired entry, which also clears anonIds through the onRemove hook.
    return this.anon.get(hash, now) ? hash : undefined;
  }

  private setLadder(p: Principal, onLadder: boolean): Promise<ServiceResult<LadderState>> {
    if (p.tier !== 'registered') return Promise.resolve(fail('registered_only'));
    return this.updateBot(p.id, (bot) => ({
      // Joining or leaving by hand clears why the server had taken the bot off, and its streak.
      next: bot.onLadder === onLadder && !bot.offLadderReason
        ? null
        : { ...bot, onLadder, offLadderReason: null, ladderTimeLosses: 0, ...(bot.onLadder && !onLadder ? { leftLadder: true } : {}) },
      answer: { onLadder, glickoRating: bot.rating.rating, glickoRd: bot.rating.rd },
    }));
  }

  /**
   * A server-side change of a registered bot (the ladder scheduler's bookkeeping), through the same
   * serialised read-modify-write as the routes. `change` returns null to leave the bot as it is.
   * Resolves with the stored result, or null for an unknown bot.
   */
  async editBot(id: string, change: (bot: BotRecord) => BotRecord | null): Promise<BotRecord | null> {
    const r = await this.updateBot(id, (bot) => {
      const next = change(bot);
      return { next, answer: next ?? bot };
    });
    return r.ok ? r.value : null;
  }

  /**
   * Read-modify-write of one bot, queued behind earlier updates of the same bot, and run by the
   * store inside one write so it never replaces a newer record (a rating batch, a rotation) with a
   * stale copy. `change` returns null as `next` when nothing changes, or `refused` when the record
   * is no longer in the state the caller acted on; it must be synchronous.
   */
  updateBot<T>(
    id: string,
    change: (bot: BotRecord) => { next: BotRecord | null; answer: T } | { refused: { ok: false; error: ServiceError } },
  ): Promise<ServiceResult<T>> {
    const prev = this.chains.get(id) ?? Promise.resolve();
    const run = prev.then(async (): Promise<ServiceResult<T>> => {
      type Outcome = ReturnType<typeof change>;
      let seen: { outcome: Outcome } | null = null;
      await this.store.modifyBot(id, (bot) => {
        const outcome = change(bot);
        seen = { outcome };
        return 'refused' in outcome ? null : outcome.next;
      });
      const got = seen as { outcome: Outcome } | null;
      if (!got) return fail('unknown_identity');
      if ('refused' in got.outcome) return got.outcome.refused;
      return ok(got.outcome.answer);
    });
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    this.chains.set(id, tail);
    void tail.then(() => {
      if (this.chains.get(id) === tail) this.chains.delete(id);
    });
    return run;
  }
}
