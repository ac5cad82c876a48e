// Record builders for the store tests: plausible records, with overrides for what a test cares about.
import { open } from 'lmdb';
import { createHash } from 'node:crypto';
import { DEFAULT_RATING, SCHEMA_VERSION } from '../../src/domain/records.js';
import type { BotRecord, GameRecord, ResultRecord } from '../../src/domain/records.js';
import type { TournamentPairRecord, TournamentRecord } from '../../src/domain/tournaments.js';
import { botExternalId, botFace } from '../../src/domain/types.js';
import type { HistoryEntry, SeatPlayer } from '../../src/domain/types.js';

export const hashOf = (token: string): string => createHash('sha256').update(token).digest('hex');

export function bot(team: string, name: string, over: Partial<BotRecord> = {}): BotRecord {
  return {
    schema: SCHEMA_VERSION,
    id: botExternalId(team, name),
    team,
    name,
    tokenHash: hashOf(`token-${team}-${name}`),
    createdAt: 1_700_000_000_000,
    onLadder: false,
    rating: { ...DEFAULT_RATING },
    webhook: null,
    ...over,
  };
}

export function seat(team: string, name: string): SeatPlayer {
  return { id: botExternalId(team, name), face: botFace(team, name), participant: { Bot: { team, name } } };
}

const START = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';

export function history(n: number): HistoryEntry[] {
  return Array.from({ length: n }, (_, i) => ({
    seat: i % 2 === 0 ? 'White' : 'Black',
    dice: [1 + (i % 6), 1 + ((i * 5) % 6), 1 + ((i * 3) % 6)],
    moves: ['e2e4', 'g1f3'].slice(0, 1 + (i % 2)),
    fenAfter: START,
  }));
}

export function game(id: string, over: Partial<GameRecord> = {}): GameRecord {
  return {
    schema: SCHEMA_VERSION,
    id,
    white: seat('alpha', 'one'),
    black: seat('beta', 'two'),
    timeControl: { Fischer: { initialSeconds: 300, incrementSeconds: 3 } },
    rated: true,
    createdAt: 1_700_000_000_000,
    serverSeed: 'ab'.repeat(32),
    commit: 'cd'.repeat(32),
    clientSeeds: { white: 'w-seed', black: null },
    ply: 4,
    fen: START,
    activeSeat: 'White',
    dice: [3, 5, 6],
    clocks: { white: 300_000, black: 297_500 },
    clockStartedAt: 1_700_000_001_000,
    version: 9,
    history: history(4),
    status: { Active: {} },
    revealedSeeds: null,
    finishedAt: null,
    mirrorOf: null,
    ...over,
  };
}

/** The same game, ended with White capturing the king at `finishedAt`. */
export function ended(g: GameRecord, finishedAt: number): GameRecord {
  return {
    ...g,
    status: { Ended: { over: { result: { Win: { side: 'White' } }, termination: 'KingCaptured' } } },
    dice: null,
    clockStartedAt: null,
    revealedSeeds: { white: 'w-seed', black: 'b-seed' },
    finishedAt,
  };
}

export function line(botId: string, gameId: string, finishedAt: number, over: Partial<ResultRecord> = {}): ResultRecord {
  return {
    gameId,
    botId,
    seat: 'White',
    opponentId: 'bot:team:beta:two',
    result: 'win',
    rated: true,
    termination: 'KingCaptured',
    finishedAt,
    ...over,
  };
}

/** Result lines for both seats of an ended game (white won). */
export function linesFor(g: GameRecord, finishedAt: number): ResultRecord[] {
  return [
    line(g.white.id, g.id, finishedAt, { seat: 'White', opponentId: g.black.id, result: 'win' }),
    line(g.black.id, g.id, finishedAt, { seat: 'Black', opponentId: g.white.id, result: 'loss' }),
  ];
}

/** An event with `pairs` pairs (the first `finished` of them over) and `queued` encounters still to start. */
export function tournament(id: string, o: { pairs?: number; finished?: number; queued?: number; over?: Partial<TournamentRecord> } = {}): TournamentRecord {
  const player = (name: string) => ({ id: botExternalId('tt', name), team: 'tt', name, accepted: true });
  const pairs: TournamentPairRecord[] = Array.from({ length: o.pairs ?? 0 }, (_, i) => {
    const done = i < (o.finished ?? 0);
    return {
      index: i, round: 0, a: 0, b: 1, games: [`${id}-${i}w`, `${id}-${i}b`], scores: done ? [1, 0.5] : [null, null],
      timeLosses: [], finishedSeq: done ? i + 1 : 0,
    };
  });
  return {
    schema: SCHEMA_VERSION, id, name: `event ${id}`, format: 'match', host: botExternalId('tt', 'host'),
    players: [player('a'), player('b')], timeControl: { Unlimited: {} }, pairsPerEncounter: 1, rounds: 0, sprt: null,
    maxPairs: 20_000, concurrency: 4, rated: false, state: 'running', createdAt: 1_700_000_000_000, startedAt: 1_700_000_000_000,
    finishedAt: null, commit: 'c'.repeat(64), seed: 'd'.repeat(64), pairs,
    queue: Array.from({ length: o.queued ?? 0 }, (_, i) => [i % 2, 1 - (i % 2), 0] as [number, number, number]),
    byes: [], verdict: null, verdictAfter: null, note: null, ...o.over,
  };
}

/** Opens one named database of an LMDB directory outside the store (to write what an earlier version wrote), then closes it. */
export async function raw<T>(dir: string, dbName: string, use: (db: ReturnType<ReturnType<typeof open>['openDB']>) => T): Promise<Awaited<T>> {
  const root = open({ path: dir, maxDbs: 8, noSubdir: false });
  try {
    return await use(root.openDB({ name: dbName }));
  } finally {
    await root.close();
  }
}
