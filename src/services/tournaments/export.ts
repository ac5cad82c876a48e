// The export of GET /events/{id}/games, made piece by piece as the edge asks for it: the event's view,
// then one line per game of every finished pair (by pair, then game). A large event's export is
// hundreds of MB, so it is never built whole.
import type { GameRecord } from '../../domain/records.js';
import { pairFinished, pairRunning, type TournamentRecord } from '../../domain/tournaments.js';
import { viewLine, type ViewWithLists } from './view-line.js';

/** An export's pieces: text, or a promise its reader waits for before asking for the next piece. */
export type ExportPieces = Iterator<string | PromiseLike<unknown>>;

/**
 * Where an export finds a finished game: at once when the server holds it, else by loading it (a
 * cluster node keeps only a cache of finished games). The export hands the load's promise to its
 * reader (the edge's pump), which waits for it before asking for the next piece.
 */
export interface EndedGames {
  now(gameId: string): GameRecord | undefined;
  load?(gameId: string): Promise<GameRecord | undefined>;
}

/** The game's record, loaded first when `now` does not have it (a `yield*` inside an export). */
export function* endedRecord(games: EndedGames, gameId: string): Generator<PromiseLike<unknown>, GameRecord | undefined> {
  const rec = games.now(gameId);
  if (rec !== undefined || games.load === undefined) return rec;
  let loaded: GameRecord | undefined;
  yield games.load(gameId).then((r) => {
    loaded = r;
  });
  return loaded;
}

const faceOf = (p: { team: string; name: string }) => ({ team: p.team, name: p.name });

export function* exportPieces(ev: TournamentRecord, view: ViewWithLists, ended: EndedGames): Generator<string | PromiseLike<unknown>> {
  yield* viewLine('Event', view);
  // With a dice book per round, every pair of a round plays the same dice: a round's games wait
  // until none of its pairs runs or is still to start, or they would tell the others' rolls.
  const open = new Set<number>();
  if (ev.dice === 'perRound') {
    for (const p of ev.pairs) if (p.round >= 1 && pairRunning(p)) open.add(p.round);
    for (const [, , round] of ev.queue) if (round >= 1) open.add(round);
  }
  // Only pairs with both games over: a game's server seed is its partner's too, so one game of a
  // running pair must not be exported (its partner's coming rolls would be known).
  for (const p of ev.pairs) {
    if (!pairFinished(p) || open.has(p.round)) continue;
    for (const [game, gameId] of (p.games ?? []).entries()) {
      const rec = yield* endedRecord(ended, gameId);
      if (!rec || !('Ended' in rec.status)) continue;
      const { result, termination } = rec.status.Ended.over;
      const [w, b] = game === 0 ? [p.a, p.b] : [p.b, p.a];
      yield `${JSON.stringify({
        Game: {
          pair: p.index,
          game,
          round: p.round,
          gameId,
          white: faceOf(ev.players[w]),
          black: faceOf(ev.players[b]),
          timeControl: rec.timeControl,
          ...(rec.timeControls ? { timeControls: rec.timeControls } : {}),
          commit: rec.commit,
          serverSeed: rec.serverSeed,
          clientSeeds: { white: rec.clientSeeds.white ?? '', black: rec.clientSeeds.black ?? '' },
          history: rec.history,
          result: 'Win' in result ? result.Win.side : 'Draw',
          termination,
        },
      })}\n`;
    }
  }
}
