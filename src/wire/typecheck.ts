// Compile-time ties between the wire schemas and src/domain/types.ts. If either side changes shape
// without the other, `tsc` fails on the line of that tie. This file is types only.
import type { z } from 'zod';
import type * as D from '../domain/types.js';
import type * as C from './common.js';
import type * as E from './events.js';
import type * as R from './responses.js';
import type * as Q from './requests.js';

/** True when A and B are assignable to each other. Tuples stop distribution over unions. */
type Mutual<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** True when A is assignable to B (a stricter schema describing a domain type). */
type Fits<A, B> = [A] extends [B] ? true : false;

type Out<S extends z.ZodType> = z.output<S>;

/** A false tie fails to compile on its own line. */
type Check<T extends true> = T;

export type WireDomainTies = [
  Check<Mutual<Out<typeof C.Seat>, D.Seat>>,
  Check<Mutual<Out<typeof C.TimeControl>, D.TimeControl>>,
  Check<Mutual<Out<typeof C.Clocks>, D.Clocks>>,
  Check<Mutual<Out<typeof C.Participant>, D.Participant>>,
  Check<Mutual<Out<typeof C.PublicFace>, D.PublicFace>>,
  Check<Mutual<Out<typeof C.Players>, D.Players>>,
  Check<Mutual<Out<typeof C.GameResult>, D.GameResult>>,
  Check<Mutual<Out<typeof C.Termination>, D.Termination>>,
  Check<Mutual<Out<typeof C.GameOver>, D.GameOver>>,
  Check<Mutual<Out<typeof C.GameStatus>, D.GameStatus>>,
  Check<Mutual<Out<typeof C.LegalMoveTree>, D.LegalMoveTree>>,
  Check<Mutual<Out<typeof C.HistoryEntry>, D.HistoryEntry>>,
  Check<Mutual<Out<typeof C.ClientSeeds>, D.ClientSeeds>>,
  Check<Mutual<Out<typeof R.GameState>, D.GameState>>,
  Check<Fits<Out<typeof R.MoveApplied>, D.MoveVerdict>>,
  Check<Fits<Out<typeof R.MoveRefused>, D.MoveVerdict>>,
  Check<Mutual<Out<typeof R.MoveRefused>['reason'], D.VerdictReason>>,
  Check<Mutual<Out<typeof E.GameEvent>, D.GameEvent>>,
  Check<Mutual<Out<typeof E.AccountEvent>, D.AccountEvent>>,
  // A parsed request time control is exactly what the services take.
  Check<Mutual<Out<typeof Q.CreateChallengeRequest>['timeControl'], D.TimeControl | undefined>>,
  Check<Mutual<Out<typeof R.ProfileGame>['termination'], D.Termination>>,
];
