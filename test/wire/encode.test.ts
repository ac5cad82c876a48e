// Encoders: one line per event, the cached state template, problems with their titles,
// spectator-safe game lists.
import t from 'tap';
import {
  diceRolledGlance, diceRolledLine, eventLine, lineIs, movesJson, myGame, problemJson, publicGameList, snapshotLine, StateTemplate, yourTurnJson,
} from '../../src/wire/encode.js';
import { reasonPhrase } from '../../src/edge/reply.js';
import { PROBLEMS, type ProblemCode } from '../../src/wire/problems.js';
import type { ListedGame } from '../../src/wire/encode.js';
import { createConformance } from '../helpers/conformance.js';
import * as X from '../helpers/wire-examples.js';

t.test('eventLine: one JSON line per event', async (t) => {
  for (const e of [...X.gameEvents, ...X.accountEvents]) {
    const line = eventLine(e);
    t.ok(line.endsWith('\n'));
    t.equal(line.indexOf('\n'), line.length - 1, 'exactly one newline, at the end');
    t.same(JSON.parse(line), e);
  }
});

t.test('lines told apart, and a roll glanced at, without parsing', async (t) => {
  for (const e of X.gameEvents) {
    const line = eventLine(e);
    const kind = Object.keys(e)[0] as Parameters<typeof lineIs>[1];
    t.ok(lineIs(line, kind), `${kind} line`);
    for (const other of ['DiceRolled', 'TurnPlayed', 'Snapshot', 'GameEnded', 'Rejected'] as const) {
      if (other !== kind) t.notOk(lineIs(line, other), `${kind} is not ${other}`);
    }
    const glance = diceRolledGlance(line);
    if ('DiceRolled' in e) {
      const r = e.DiceRolled;
      t.same(glance, { seat: r.seat, forcedPass: r.legalMoves !== null && Object.keys(r.legalMoves).length === 0 });
    } else t.equal(glance, undefined, `no roll in a ${kind} line`);
  }
  const clocks = { white: 1000, black: 2000 };
  const tree = '{"e2e4":{"seat":{}},"legalMoves":{}}';
  t.same(diceRolledGlance(diceRolledLine(3, 'Black', [1, 2], 'x', clocks, tree)), { seat: 'Black', forcedPass: false }, 'a tree whose text ends like an empty one is not one');
  t.same(diceRolledGlance(diceRolledLine(3, 'White', [1], 'x', null, '{}')), { seat: 'White', forcedPass: true });
  t.same(diceRolledGlance(diceRolledLine(3, 'White', [1], 'x', null, 'null')), { seat: 'White', forcedPass: false }, 'null: too large to inline');
  t.equal(diceRolledGlance('{"DiceRolledX":{}}\n'), undefined);
  t.notOk(lineIs('{"TurnPlayedX":{}}\n', 'TurnPlayed'));
});

t.test('game templates write what JSON.stringify would', async (t) => {
  const c = createConformance();
  for (const state of [X.state, X.endedState]) {
    const { clocks, legalMoves, ...fields } = state;
    const json = new StateTemplate(fields, JSON.stringify(legalMoves)).render(clocks);
    t.equal(json, JSON.stringify(state), 'state: same bytes, same key order');
    t.equal(new StateTemplate(fields, JSON.stringify(legalMoves)).chars, json.length - JSON.stringify(clocks).length, 'chars counts the cached parts');
    const snap = snapshotLine(state.version, json, JSON.stringify(X.history));
    t.equal(snap, eventLine({ Snapshot: { v: state.version, state, history: X.history } }), 'snapshot line');
    const turn = yourTurnJson('g1', 'White', json);
    t.same(JSON.parse(turn), { type: 'yourTurn', gameId: 'g1', seat: 'White', state });
    const moves = movesJson(state.version, state.dfen, state.dicePending, JSON.stringify(legalMoves ?? {}));
    t.same(JSON.parse(moves), { version: state.version, dfen: state.dfen, dicePending: state.dicePending, legalMoves: legalMoves ?? {} });
    c.check({ method: 'GET', pattern: '/games/{id}', status: 200, contentType: 'application/json', body: json });
    c.check({ method: 'GET', pattern: '/games/{id}/moves', status: 200, contentType: 'application/json', body: moves });
  }
  t.same(c.mismatches(), [], 'template bodies conform');
});

t.test('problems', async (t) => {
  t.same(JSON.parse(problemJson('identity_taken', 'this bot identity is already taken')), {
    type: 'about:blank', title: 'Conflict', status: 409, detail: 'this bot identity is already taken', code: 'identity_taken',
  });
  t.equal(JSON.parse(problemJson('game_busy', 'x')).title, 'Too Many Requests');
  t.equal(JSON.parse(problemJson('unknown_game')).detail, PROBLEMS.unknown_game.detail, "without a detail, the catalogue's");
  for (const code of Object.keys(PROBLEMS) as ProblemCode[]) {
    const { status } = PROBLEMS[code];
    t.equal(JSON.parse(problemJson(code, 'd')).title, reasonPhrase(status), `${code}: the same title as the edge sends`);
  }
  const c = createConformance();
  const withStatus = (status: number) => (Object.keys(PROBLEMS) as ProblemCode[]).find((code) => PROBLEMS[code].status === status)!;
  for (const status of [400, 401, 403, 413, 422, 429, 500, 503]) {
    c.check({ method: 'POST', pattern: '/bot/webhook', status, contentType: 'application/problem+json', body: problemJson(withStatus(status), 'why') });
  }
  t.same(c.mismatches(), [], 'problem bodies conform');
});

const seat = (id: string, name: string | null) => ({
  id,
  face: name === null ? { kind: 'Human' as const, name: null } : { kind: 'Bot' as const, name },
  participant: { Guest: { id } },
});

function summary(version: number): ListedGame {
  return {
    gameId: `g${version}`, white: seat('bot:team:acme:alice', 'acme alice'), black: seat('guest:g1', null),
    timeControl: X.FISCHER, activeSeat: 'Black', dicePending: false, clocks: { white: 10, black: 20 }, version,
    dfen: 'x w - - 0 1',
  };
}

t.test('public games: sorted, capped, nothing leaks', async (t) => {
  const live = Array.from({ length: 60 }, (_, i) => summary((i * 37) % 60));
  const list = publicGameList(live);
  t.equal(list.total, 60);
  t.equal(list.games.length, 50);
  t.same(list.games.map((g) => g.version), Array.from({ length: 50 }, (_, i) => 59 - i), 'version descending');
  const text = JSON.stringify(list);
  t.notOk(text.includes('bot:team:acme'), 'no raw bot id');
  t.notOk(text.includes('guest:g1'), 'no raw guest id');
  t.same(publicGameList([summary(3)]).games[0].players, { white: { kind: 'Bot', name: 'acme alice' }, black: { kind: 'Human', name: null } });

  const c = createConformance();
  c.check({ method: 'GET', pattern: '/games', status: 200, contentType: 'application/json', body: JSON.stringify(list) });
  c.check({
    method: 'GET', pattern: '/bot/games', status: 200, contentType: 'application/json',
    body: JSON.stringify({ games: [myGame(summary(4), 'Black')] }),
  });
  t.same(c.mismatches(), []);
});
