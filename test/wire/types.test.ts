// Schemas and src/domain/types.ts describe the same shapes. The static half lives in
// src/wire/typecheck.ts (a false tie fails `tsc`); this half parses domain-typed values at run time.
import t from 'tap';
import type { WireDomainTies } from '../../src/wire/typecheck.js';
import type { GameState, MoveVerdict, TimeControl } from '../../src/domain/types.js';
import {
  AccountEvent, GameEvent, GameState as GameStateSchema, MoveApplied, MoveRefused, parseBody,
  TimeControl as TimeControlSchema,
} from '../../src/wire/schemas.js';
import * as X from '../helpers/wire-examples.js';

// Referencing the tie list makes this test fail to build when any tie is false.
const ties: WireDomainTies extends readonly true[] ? true : false = true;

t.test('domain values parse unchanged', async (t) => {
  t.ok(ties);
  const states: GameState[] = [X.state, X.endedState];
  for (const s of states) t.same(parseBody(GameStateSchema, s), { ok: true, value: s });
  const verdicts: [MoveVerdict, typeof MoveApplied | typeof MoveRefused][] = [[X.applied, MoveApplied], [X.refused, MoveRefused]];
  for (const [v, schema] of verdicts) t.same(parseBody(schema, v), { ok: true, value: v });
  const tcs: TimeControl[] = [
    { Unlimited: {} }, { SuddenDeath: { initialSeconds: 60 } }, X.FISCHER, { PerMove: { secondsPerMove: 30 } },
  ];
  for (const tc of tcs) t.same(parseBody(TimeControlSchema, tc), { ok: true, value: tc });
  for (const e of X.gameEvents) t.same(parseBody(GameEvent, e), { ok: true, value: e });
  for (const e of X.accountEvents) t.same(parseBody(AccountEvent, e), { ok: true, value: e });
});

t.test('response schemas are exact', async (t) => {
  const leaked = { ...X.state, serverSeed: 'secret' };
  const r = parseBody(GameStateSchema, leaked);
  t.equal(r.ok, false);
  if (!r.ok) t.match(r.detail, /unknown key "serverSeed"/);
});
