// The PGN export of an event (GET /events/{id}/games.pgn; the conventions are in docs/EVENTS.md
// "PGN"): the same games as the JSON export (every game of every finished pair, by pair, then
// game), one PGN game each, made one game at a time as the edge asks for it.
import type { GameRecord } from '../../domain/records.js';
import { pairFinished, type TournamentPairRecord, type TournamentRecord } from '../../domain/tournaments.js';
import type { HistoryEntry, TimeControl } from '../../domain/types.js';
import { endedRecord, type EndedGames } from './export.js';

/** Movetext lines are kept under this many characters (the PGN standard asks for at most 255; 80 reads well). */
const LINE = 79;

export function* pgnPieces(ev: TournamentRecord, ended: EndedGames): Generator<string | PromiseLike<unknown>> {
  // Only pairs with both games over, as in the JSON export: one game of a running pair would tell its
  // partner's coming rolls through the shared server seed.
  for (const p of ev.pairs) {
    if (!pairFinished(p)) continue;
    for (const [game, gameId] of (p.games ?? []).entries()) {
      const rec = yield* endedRecord(ended, gameId);
      if (!rec || !('Ended' in rec.status)) continue;
      yield pgnGame(ev, p, game, rec);
    }
  }
}

const RESULTS = { White: '1-0', Black: '0-1', Draw: '1/2-1/2' } as const;
/** The PGN standard's Termination words for the server's own. */
const TERMINATIONS = { KingCaptured: 'normal', Resign: 'normal', Draw: 'normal', Timeout: 'time forfeit', Aborted: 'abandoned' } as const;

/** One game: the tag pairs, a blank line, the movetext ending in the result, a blank line. */
export function pgnGame(ev: TournamentRecord, p: TournamentPairRecord, game: number, rec: GameRecord): string {
  if (!('Ended' in rec.status)) throw new Error('a PGN of a game still running');
  const { result, termination } = rec.status.Ended.over;
  const outcome = RESULTS['Win' in result ? result.Win.side : 'Draw'];
  const [w, b] = game === 0 ? [p.a, p.b] : [p.b, p.a];
  const name = (i: number) => `${ev.players[i].team}/${ev.players[i].name}`;
  const tags: [string, string][] = [
    // The Seven Tag Roster, in its order.
    ['Event', ev.name],
    ['Site', 'dicechess'],
    ['Date', dateOf(rec.createdAt)],
    // Swiss: round.game-of-the-pair; other formats: pair number (from 1).game-of-the-pair.
    ['Round', `${p.round > 0 ? p.round : p.index + 1}.${game + 1}`],
    ['White', name(w)],
    ['Black', name(b)],
    ['Result', outcome],
    ['Variant', 'dice chess'],
    ['EventId', ev.id],
    ['Pair', String(p.index)],
    ['PairGame', String(game)],
    ['GameId', rec.id],
    ['TimeControl', timeControlTag(rec.timeControl)],
    ['Termination', TERMINATIONS[termination]],
    ['DiceTermination', termination],
    ['Commit', rec.commit],
    ['ServerSeed', rec.serverSeed],
    ['ClientSeedWhite', rec.clientSeeds.white ?? ''],
    ['ClientSeedBlack', rec.clientSeeds.black ?? ''],
  ];
  const head = tags.map(([k, v]) => `[${k} "${escapeTag(v)}"]\n`).join('');
  return `${head}\n${wrap([...movetext(rec.history), outcome])}\n\n`;
}

/** `YYYY.MM.DD` in UTC. */
function dateOf(ms: number): string {
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${d.getUTCFullYear()}.${two(d.getUTCMonth() + 1)}.${two(d.getUTCDate())}`;
}

/** The PGN standard's TimeControl field: `-` none, `N` seconds, `N+I` with increment, `1/N` N seconds a move. */
function timeControlTag(tc: TimeControl): string {
  if ('SuddenDeath' in tc) return String(tc.SuddenDeath.initialSeconds);
  if ('Fischer' in tc) return `${tc.Fischer.initialSeconds}+${tc.Fischer.incrementSeconds}`;
  if ('PerMove' in tc) return `1/${tc.PerMove.secondsPerMove}`;
  return '-';
}

/** A tag value as PGN writes it: backslash and quote escaped, nothing on another line. */
const escapeTag = (v: string): string => v.replace(/[\r\n]+/g, ' ').replace(/\\/g, '\\\\').replace(/"/g, '\\"');

/**
 * The turns as tokens. A turn is a number (`N.` for White, `N...` for Black, since a comment comes
 * between), the roll as a comment and its micro-moves in the engine's UCI notation; a turn with no
 * move (a forced pass) is `--`. Comments are kept whole as one token.
 */
function* movetext(history: readonly HistoryEntry[]): Generator<string> {
  let move = 1;
  for (const turn of history) {
    yield turn.seat === 'White' ? `${move}.` : `${move}...`;
    yield `{dice: ${turn.dice.join(' ')}}`;
    if (turn.moves.length === 0) yield '--';
    else yield* turn.moves;
    if (turn.seat === 'Black') move++;
  }
}

function wrap(tokens: Iterable<string>): string {
  const lines: string[] = [];
  let line = '';
  for (const t of tokens) {
    if (line !== '' && line.length + 1 + t.length > LINE) {
      lines.push(line);
      line = t;
    } else line = line === '' ? t : `${line} ${t}`;
  }
  if (line !== '') lines.push(line);
  return lines.join('\n');
}
