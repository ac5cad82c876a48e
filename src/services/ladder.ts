// The ladder's read side and its per-bot settings: capacity, the leaderboard and bot profiles.
// Everything here reads what the rating batch (ratings.ts) keeps in the store — the leaderboard
// index, the counts, the rating history — so no request walks the stored results.
import { DEFAULT_CAPACITY, NO_STATS, LISTED_RD, type LadderStats } from '../domain/ratings.js';
import type { BotRecord, ResultRecord } from '../domain/records.js';
import { HUMAN_FACE, botExternalId, botFace, type LadderKind, type Principal, type PublicFace, type Seat, type Termination } from '../domain/types.js';
import type { GameDirectory } from '../game/types.js';
import type { Store } from '../store/types.js';
import { leaderboardBytes } from '../wire/encode.js';
import { fail, type ServiceResult } from './errors.js';
import type { IdentityService } from './identity.js';

/** Games listed in a profile's `recent`. */
export const RECENT_GAMES = 20;
/**
 * Leaderboard page size when the caller names none (for each of the two lists), and the most a
 * caller may ask for. 50 rows are about 7 KB: at 100 (15 KB) the bytes alone held the route under
 * 0.8x of /health's req/s (docs/DECISIONS.md).
 */
export { LEADERBOARD_DEFAULT_LIMIT, LEADERBOARD_MAX_LIMIT } from '../wire/documented-defaults.js';

/** Which rows of each list one leaderboard answer holds. */
export interface LeaderboardPage {
  offset: number;
  limit: number;
  /** The provisional list pages on its own; a limit of 0 leaves it out (an empty array). */
  provisionalOffset: number;
  provisionalLimit: number;
}

export interface Capacity {
  capacity: number;
  /** Live rated (ladder) games: a mirror pair is two games, so it counts 2. */
  inGames: number;
}

export interface LeaderboardRow extends LadderStats {
  rank: number;
  team: string;
  name: string;
  rating: number;
  rd: number;
  onLadder: boolean;
}

export interface ProfileGame {
  gameId: string;
  seat: Seat;
  opponent: PublicFace;
  result: ResultRecord['result'];
  rated: boolean;
  /** Present on ladder games only. */
  ladder?: LadderKind;
  termination: Termination;
  finishedAt: string;
}

export interface BotProfile extends LadderStats {
  team: string;
  name: string;
  rating: number;
  rd: number;
  provisional: boolean;
  onLadder: boolean;
  recent: ProfileGame[];
  ratingHistory: { at: string; rating: number; rd: number }[];
  offLadderReason: string | null;
  /** Ladder pairings started by kind (counted on the bot's record since the count was kept). */
  ladder: { pairs: number; singles: number };
}

export interface LadderDeps {
  store: Store;
  games: GameDirectory;
  identity: IdentityService;
}

const REGISTERED_ONLY = 'only registered bots have a ladder capacity; anonymous, static and guest callers do not';
const noPersistence = () =>
  fail('no_persistence');

/** The public face of an external id: never the raw id. */
export function faceOfId(id: string): PublicFace {
  const m = /^bot:team:([^:]+):(.+)$/.exec(id);
  return m ? botFace(m[1], m[2]) : HUMAN_FACE;
}

export class LadderService {
  /**
   * One encoded answer per page request, valid while the store's bot revision stands: a repeated
   * request costs a map lookup, and the edge sends the bytes as they are (no per-request encoding).
   */
  private cache = { revision: -1, pages: new Map<string, Buffer>() };
  private static readonly CACHED_PAGES = 16;

  constructor(private readonly deps: LadderDeps) {}

  /** Pages held in the leaderboard cache (for tests of its bound). */
  cachedPages(): number {
    return this.cache.pages.size;
  }

  /** GET /bot/capacity. */
  capacity(p: Principal): ServiceResult<Capacity> {
    if (p.tier !== 'registered') return fail('registered_only', REGISTERED_ONLY);
    const bot = this.deps.store.getBot(p.id);
    if (!bot) return fail('unknown_identity');
    return { ok: true, value: { capacity: capacityOf(bot), inGames: this.inGames(p.id) } };
  }

  /** POST /bot/capacity: the range is checked at the edge (the request schema in wire/requests.ts). */
  async setCapacity(p: Principal, capacity: number): Promise<ServiceResult<Capacity>> {
    if (p.tier !== 'registered') return fail('registered_only', REGISTERED_ONLY);
    return this.deps.identity.updateBot(p.id, (bot) => ({
      next: capacityOf(bot) === capacity ? null : { ...bot, capacity },
      answer: { capacity, inGames: this.inGames(p.id) },
    }));
  }

  /** Live rated games of a bot (the scheduler compares this with the capacity). */
  inGames(botId: string): number {
    return this.deps.games.liveFor(botId).filter((g) => g.rated).length;
  }

  /**
   * GET /leaderboard as UTF-8 JSON: `{leaders, total, provisional, provisionalTotal}`, one page of
   * each list, best first; `rank` is the place within its own list.
   */
  leaderboardJson(p: LeaderboardPage): ServiceResult<Buffer> {
    const { store } = this.deps;
    if (!store.persistent) return noPersistence();
    const revision = store.botsRevision();
    if (this.cache.revision !== revision) this.cache = { revision, pages: new Map() };
    const key = `${p.offset}:${p.limit}:${p.provisionalOffset}:${p.provisionalLimit}`;
    let page = this.cache.pages.get(key);
    if (page === undefined) {
      const rows = ({ bots }: { bots: BotRecord[] }, offset: number) =>
        bots.map((b, i) => leaderRow(b, offset + i + 1, store.ladderStats(b.id)));
      const listed = store.leaderboard(p.offset, p.limit);
      const unsettled = store.provisional(p.provisionalOffset, p.provisionalLimit);
      page = leaderboardBytes({
        leaders: rows(listed, p.offset),
        total: listed.total,
        provisional: rows(unsettled, p.provisionalOffset),
        provisionalTotal: unsettled.total,
      });
      // Bounded: odd page requests cannot grow the cache past a few entries.
      if (this.cache.pages.size >= LadderService.CACHED_PAGES) this.cache.pages.clear();
      this.cache.pages.set(key, page);
    }
    return { ok: true, value: page };
  }

  /** GET /bots/{team}/{name}. */
  profile(team: string, name: string): ServiceResult<BotProfile> {
    const { store } = this.deps;
    if (!store.persistent) return noPersistence();
    const bot = store.getBot(botExternalId(team, name));
    if (!bot) return fail('unknown_bot');
    const recent = store.resultsOf(bot.id, RECENT_GAMES).map((r) => ({
      gameId: r.gameId,
      seat: r.seat,
      opponent: faceOfId(r.opponentId),
      result: r.result,
      rated: r.rated,
      ...profileLadder(r),
      termination: r.termination,
      finishedAt: new Date(r.finishedAt).toISOString(),
    }));
    return {
      ok: true,
      value: {
        team: bot.team,
        name: bot.name,
        rating: bot.rating.rating,
        rd: bot.rating.rd,
        provisional: bot.rating.rd > LISTED_RD,
        onLadder: bot.onLadder,
        ...store.ladderStats(bot.id),
        recent,
        ratingHistory: store.ratingHistory(bot.id).map((p) => ({ at: new Date(p.at).toISOString(), rating: p.rating, rd: p.rd })),
        offLadderReason: bot.offLadderReason ?? null,
        ladder: bot.ladderGames ?? { pairs: 0, singles: 0 },
      },
    };
  }
}

/**
 * A result line's ladder kind. Lines stored before single games existed carry none: their rated
 * games were all mirror pairs.
 */
const profileLadder = (r: ResultRecord): { ladder?: LadderKind } => {
  const ladder = r.ladder ?? (r.rated ? 'mirror' : undefined);
  return ladder ? { ladder } : {};
};

export const capacityOf = (bot: Pick<BotRecord, 'capacity'>): number => bot.capacity ?? DEFAULT_CAPACITY;

function leaderRow(b: BotRecord, rank: number, stats: LadderStats = NO_STATS): LeaderboardRow {
  return {
    rank,
    team: b.team,
    name: b.name,
    rating: b.rating.rating,
    rd: b.rating.rd,
    onLadder: b.onLadder,
    games: stats.games,
    wins: stats.wins,
    draws: stats.draws,
    losses: stats.losses,
  };
}
