// The lobby's configuration, its dependencies, and the shapes its answers take (lobby.ts is the
// service itself).
import type { Clock } from '../domain/clock.js';
import type { Seat, TimeControl } from '../domain/types.js';
import type { GameFactory } from '../game/types.js';
import type { GameAdmission } from './game-admission.js';
import type { GuestQuota } from './guest-quota.js';
import type { IdentityService } from './identity.js';

/** The lobby methods the edge calls; in a cluster they may run on another node (services/remote.ts). */
export const LOBBY_CALLS = ['createBotSeek', 'createGuestSeek', 'list', 'poll', 'cancel', 'acceptAsBot', 'acceptAsGuest'] as const;
export type LobbyCall = (typeof LOBBY_CALLS)[number];

export interface LobbyConfig {
  botSeekTtlMs: number;
  guestSeekTtlMs: number;
  maxOpenSeeksPerCaller: number;
  /** Open guest seeks one client address may hold (each guest seek has a fresh guest id). */
  maxOpenGuestSeeksPerAddress: number;
  matchedPollableMs: number;
  defaultTimeControl: TimeControl;
  maxGuestSeeks: number;
  maxBotSeeks: number;
  /** Closed seeks (matched, cancelled, expired) remembered at most; the oldest are forgotten first. */
  maxClosedSeeks: number;
}

export const DEFAULT_LOBBY_CONFIG: LobbyConfig = {
  botSeekTtlMs: 2 * 60 * 1000,
  guestSeekTtlMs: 30 * 1000,
  maxOpenSeeksPerCaller: 3,
  maxOpenGuestSeeksPerAddress: 3,
  matchedPollableMs: 10 * 60 * 1000,
  defaultTimeControl: { Fischer: { initialSeconds: 600, incrementSeconds: 10 } },
  maxGuestSeeks: 10_000,
  maxBotSeeks: 50_000,
  maxClosedSeeks: 100_000,
};

export interface SeekCreated {
  seekId: string;
  secret: string;
}

export interface GuestSeekCreated extends SeekCreated {
  guestId: string;
}

export interface LobbySeek {
  id: string;
  timeControl: TimeControl;
  kind: 'Bot' | 'Human';
  /** 'team name' for a bot, null for a human (never a raw id). */
  name: string | null;
}

/**
 * GET /lobby/seeks/{id}. `seatToken` is our addition to the documented seek shape: it appears only on a
 * matched GUEST seek, because the human who offered it has no other way to get the Bearer token that
 * lets it play its seat. It is derived from the seek secret, so only the poller who holds the secret
 * can obtain it, and every poll returns the same token.
 */
export type PollAnswer =
  | { matched: false; gameId: null; seat: null }
  | { matched: true; gameId: string; seat: Seat; seatToken?: string };

export interface GuestAccepted {
  gameId: string;
  seat: Seat;
  seatToken: string;
}

export interface LobbyDeps {
  identity: Pick<IdentityService, 'issueGuestSeatToken' | 'addGuestSeatToken'>;
  games: GameFactory;
  clock: Clock;
  /** The live-game caps; without it (unit tests of other rules) games are not capped. */
  admission?: Pick<GameAdmission, 'check' | 'reserve'>;
  /** Guest games and open guest seeks per address, guest clocks; without it (unit tests) none is capped. */
  guestQuota?: Pick<GuestQuota, 'reserve' | 'checkClock'>;
}
