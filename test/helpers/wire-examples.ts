// Example bodies written from the shapes docs/API.md describes (not produced by
// the schemas under test), typed against src/domain where a domain type exists.
import type {
  AccountEvent, GameEvent, GameState, HistoryEntry, MoveVerdict, Participant, TimeControl,
} from '../../src/domain/types.js';

export const FISCHER: TimeControl = { Fischer: { initialSeconds: 300, incrementSeconds: 3 } };
export const DFEN_PENDING = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 PNK';

export const alice: Participant = { Bot: { team: 'acme', name: 'alice-v1' } };
export const bob: Participant = { Bot: { team: 'anon', name: 'bob-1a2b3c4d' } };

export const players = {
  white: { kind: 'Bot' as const, name: 'acme alice-v1' },
  black: { kind: 'Human' as const, name: null },
};

export const state: GameState = {
  version: 7,
  dfen: DFEN_PENDING,
  activeSeat: 'White',
  dicePending: true,
  status: { Active: {} },
  timeControl: FISCHER,
  clocks: { white: 298_500, black: 300_000 },
  commit: 'a'.repeat(64),
  seed: null,
  clientSeeds: null,
  legalMoves: { e2e4: { g1f3: { e1e2: {} } }, e2e3: { b1c3: { e1e2: {} } } },
  players,
};

export const endedState: GameState = {
  ...state,
  version: 30,
  dicePending: false,
  dfen: 'rnbq1bnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQ - 0 9',
  status: { Ended: { over: { result: { Win: { side: 'White' } }, termination: 'KingCaptured' } } },
  clocks: null,
  timeControl: { Unlimited: {} },
  seed: 'b'.repeat(64),
  clientSeeds: { white: 'my seed is long enough', black: 'guest:g123' },
  legalMoves: null,
};

export const history: HistoryEntry[] = [
  { seat: 'White', dice: [1, 2, 6], moves: ['e2e4', 'g1f3', 'e1e2'], fenAfter: 'x w - - 0 1' },
  { seat: 'Black', dice: [4, 4, 4], moves: [], fenAfter: 'y b - - 0 1' },
];

export const gameEvents: GameEvent[] = [
  { Snapshot: { v: 7, state, history } },
  {
    DiceRolled: {
      v: 8, seat: 'White', dice: [1, 2, 6], dfen: DFEN_PENDING, clocks: { white: 1000, black: 2000 },
      legalMoves: { e2e4: {} },
    },
  },
  { DiceRolled: { v: 9, seat: 'Black', dice: [4, 4, 4], dfen: DFEN_PENDING, clocks: null, legalMoves: null } },
  { TurnPlayed: { v: 10, seat: 'White', moves: ['e2e4', 'g1f3', 'e1e2'], fenAfter: 'x w - - 0 1' } },
  {
    GameEnded: {
      v: 11,
      over: { result: { Draw: {} }, termination: 'Draw' },
      seed: 'c'.repeat(64),
      clientSeeds: { white: 'w'.repeat(16), black: 'bot:team:acme:alice-v1' },
    },
  },
  { GameEnded: { v: 12, over: { result: { Win: { side: 'Black' } }, termination: 'Timeout' }, seed: null, clientSeeds: null } },
  { Rejected: { v: 12, seat: 'Black', reason: 'illegal turn: e7e5' } },
];

export const accountEvents: AccountEvent[] = [
  { ChallengeReceived: { id: 'c1', challenger: alice, timeControl: { Unlimited: {} }, color: 'white' } },
  { ChallengeDeclined: { id: 'c1' } },
  { ChallengeDeclined: { id: 'c2', reason: 'tooFast' } },
  { GameStart: { gameId: 'g1', color: 'Black', opponent: { id: 'bot:team:acme:alice-v1', kind: 'Bot', name: 'acme alice-v1' }, timeControl: { Unlimited: {} }, rated: false } },
  { GameStart: { gameId: 'g2', color: 'White', opponent: { id: null, kind: 'Human', name: null }, timeControl: { SuddenDeath: { initialSeconds: 60 } }, timeControls: { white: { SuddenDeath: { initialSeconds: 60 } }, black: { SuddenDeath: { initialSeconds: 30 } } }, rated: false } },
  { GameFinish: { gameId: 'g1', color: 'Black', opponent: { id: 'bot:team:acme:alice-v1', kind: 'Bot', name: 'acme alice-v1' }, over: { result: { Win: { side: 'Black' } }, termination: 'KingCaptured' } } },
  { LadderRemoved: { reason: 'lost 4 ladder games in a row on time; rejoin with POST /bot/ladder/join' } },
  { EventInvitation: { eventId: 'Ev3nt1d000000000', name: 'weekly', format: 'roundRobin', host: { team: 'acme', name: 'host' }, rated: false, invitation: 'invited', timeControl: { Fischer: { initialSeconds: 60, incrementSeconds: 1 } }, timeOdds: false } },
];

export const applied: MoveVerdict = { applied: true, version: 10, reason: null };
export const refused: MoveVerdict = { applied: false, version: null, reason: 'not your turn' };

export const problemOf = (status: number, code: string) => ({
  type: 'about:blank', title: 'Some Title', status, detail: 'what went wrong', code,
});

export const token = { token: `dcb_${'x'.repeat(32)}`, team: 'acme', name: 'alice-v1', id: 'bot:team:acme:alice-v1' };

export const challenge = { id: 'c1', challenger: alice, target: bob, timeControl: FISCHER, color: 'white', targetOnline: true };

export const publicGame = {
  gameId: 'g1', players, timeControl: FISCHER, activeSeat: 'White', dicePending: true,
  clocks: { white: 1, black: 2 }, version: 7, dfen: DFEN_PENDING,
};

export const profile = {
  team: 'acme', name: 'alice-v1', rating: 1623.4, rd: 80.2, provisional: false, onLadder: true,
  games: 12, wins: 7, draws: 1, losses: 4,
  recent: [
    {
      gameId: 'g1', seat: 'Black', opponent: { kind: 'Bot', name: 'house greedy' }, result: 'win', rated: true,
      termination: 'KingCaptured', finishedAt: '2025-03-01T12:00:00.000Z',
    },
  ],
  ratingHistory: [{ at: '2025-03-01T12:01:00.000Z', rating: 1623.4, rd: 80.2 }],
  offLadderReason: null,
  ladder: { pairs: 3, singles: 1 },
};

export const webhookInfo = {
  url: 'https://bots.example.com/hook',
  verifiedAt: '2025-03-01T12:00:00Z',
  stats: {
    applied: 10, declined: 1, refused: 0, malformed: 2, httpError: 0, timeout: 1, unreachable: 0, policyBlocked: 0,
    deliveries: 14, latencyMsP50: 41, latencyMsP90: 120, latencyMsP99: 300, latencyMsMax: 300,
  },
};
