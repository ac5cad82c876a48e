// The AsyncAPI document: the account, game and event streams, every event, payloads that accept the documented events.
import t from 'tap';
import AjvModule from 'ajv';
import addFormatsModule from 'ajv-formats';
import { asyncApiJson, buildAsyncApi } from '../../src/wire/openapi.js';
import type { Json, JsonObject } from '../../src/wire/jsonschema.js';
import * as X from '../helpers/wire-examples.js';
import { refs, resolve } from '../helpers/json-refs.js';
import { EventLine } from '../../src/wire/tournament-lines.js';
import { componentId } from '../../src/wire/schema-registry.js';

type AjvClass = typeof import('ajv').default;
type FormatsPlugin = typeof import('ajv-formats').default;
const Ajv = ((AjvModule as unknown as { default?: AjvClass }).default ?? AjvModule) as AjvClass;
const addFormats = ((addFormatsModule as unknown as { default?: FormatsPlugin }).default ?? addFormatsModule) as FormatsPlugin;

// The document is plain JSON; reading it loosely keeps the assertions short.
type Obj = Record<string, any>;
const doc = buildAsyncApi('1.0') as Obj;

const ACCOUNT = ['ChallengeReceived', 'ChallengeDeclined', 'GameStart', 'GameFinish', 'LadderRemoved', 'EventInvitation'];
const GAME = ['Snapshot', 'DiceRolled', 'TurnPlayed', 'GameEnded', 'Rejected'];
const EVENT = ['EventState', 'PairStarted', 'PairFinished', 'PairVoided', 'EventSummary', 'EventEnded'];

// Lines of GET /events/{id}/stream as the scheduler writes them (EventState: the event's whole view).
const face = (name: string) => ({ team: 'house', name });
const eventLines = [
  { PairStarted: { eventId: 'E1', index: 0, round: 0, players: [face('greedy'), face('random')], games: ['g1', 'g2'] } },
  {
    PairFinished: {
      eventId: 'E1', index: 0, round: 0, players: [face('greedy'), face('random')], games: ['g1', 'g2'], scores: [1, 0.5], score: 0.75,
      standings: [{ ...face('greedy'), points: 1.5, games: 2 }, { ...face('random'), points: 0.5, games: 2 }], llr: 0.12, verdict: null,
    },
  },
  { PairFinished: { eventId: 'E1', index: 1, round: 2, players: [face('a'), face('b')], games: ['g3', 'g4'], scores: [0, 0], score: 0, standings: [] } },
  { PairVoided: { eventId: 'E1', index: 2, round: 0, players: [face('a'), face('b')], games: ['g5', 'g6'], reason: 'a game of the pair was aborted by the server', replayed: true } },
  { EventEnded: { eventId: 'E1', state: 'finished', verdict: 'H1', seed: 'ab'.repeat(32) } },
];

t.test('both streams with every event', async (t) => {
  t.equal(doc.asyncapi, '3.0.0');
  t.equal(doc.info.version, '1.0');
  const other = buildAsyncApi('7.3.1') as Obj;
  t.equal(other.info.version, '1.0', 'info.version is the contract version, whatever the server version');
  t.equal(other.info['x-server-version'], '7.3.1', 'which has a field of its own');
  t.equal(doc.channels.accountStream.address, '/bot/stream/event');
  t.equal(doc.channels.gameStream.address, '/bot/game/stream/{id}');
  t.ok(doc.channels.gameStream.parameters.id, 'the game id parameter');
  t.same(Object.keys(doc.channels.accountStream.messages), ACCOUNT);
  t.same(Object.keys(doc.channels.gameStream.messages), GAME);
  for (const name of [...ACCOUNT, ...GAME]) {
    const m = doc.components.messages[name];
    t.ok(m, `${name} message`);
    t.same(m.payload, { $ref: `#/components/schemas/${name}` }, `${name} payload`);
    t.ok(doc.components.schemas[name], `${name} schema`);
  }
  t.same(
    doc.operations.sendAccountEvents.messages,
    ACCOUNT.map((n) => ({ $ref: `#/channels/accountStream/messages/${n}` })),
  );
  t.same(doc.operations.sendGameEvents.channel, { $ref: '#/channels/gameStream' });
  t.equal(doc.operations.sendGameEvents.action, 'send');
  t.match(doc.channels.gameStream.description, /Blank lines are keep-alives/);
});

t.test('the public game stream: the same events, no security', async (t) => {
  t.equal(doc.channels.publicGameStream.address, '/games/{id}/stream');
  t.same(Object.keys(doc.channels.publicGameStream.messages), GAME);
  t.same(doc.operations.sendPublicGameEvents.channel, { $ref: '#/channels/publicGameStream' });
  t.equal(doc.operations.sendPublicGameEvents.security, undefined, 'readable without a token');
  t.same(doc.operations.sendGameEvents.security, [{ $ref: '#/components/securitySchemes/bearer' }], 'the bot stream still wants one');
});



t.test('the event stream: public, one message per line of the route\'s schema', async (t) => {
  const ch = doc.channels.eventStream;
  t.equal(ch.address, '/events/{id}/stream');
  t.ok(ch.parameters.id, 'the event id parameter');
  t.same(Object.keys(ch.messages), EVENT);
  const union = (EventLine as unknown as { options: unknown[] }).options.map((o) => componentId(o as never));
  t.same(union, EVENT, 'the messages are exactly the lines the route\'s EventLine schema allows');
  t.same(doc.operations.sendEventStreamLines.channel, { $ref: '#/channels/eventStream' });
  t.equal(doc.operations.sendEventStreamLines.security, undefined, 'readable without a token');
  for (const name of EVENT) t.same(doc.components.messages[name].payload, { $ref: `#/components/schemas/${name}` }, `${name} payload`);
  t.ok(doc.components.schemas.EventView, 'EventState carries the event view');
  t.match(doc.channels.accountStream.description, /event invitations/);
});

t.test('references resolve, and only the schemas the events use are carried', async (t) => {
  const all = refs(doc as Json);
  t.same(all.filter((r) => resolve(doc as Json, r) === undefined), [], 'no broken reference');
  t.ok(doc.components.schemas.GameState, 'the snapshot state');
  t.ok(doc.components.schemas.LegalMoveTree, 'the recursive tree');
  t.notOk(doc.components.schemas.RegisterRequest, 'no request schemas');
  t.notOk(doc.components.schemas.Problem, 'no REST-only schemas');
});

t.test('payload schemas accept the documented events and refuse a broken one', async (t) => {
  const ajv = new Ajv({ strict: true });
  addFormats(ajv);
  const rewrite = (node: Json): Json => {
    if (Array.isArray(node)) return node.map(rewrite);
    if (node === null || typeof node !== 'object') return node;
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(node)) {
      out[k] = k === '$ref' && typeof v === 'string' ? v.replace('#/components/schemas/', 'urn:dicechess:async#/definitions/') : rewrite(v);
    }
    return out;
  };
  ajv.addSchema({ $id: 'urn:dicechess:async', definitions: rewrite(doc.components.schemas) } as object);
  const check = (name: string, value: unknown) => ajv.validate({ $ref: `urn:dicechess:async#/definitions/${name}` }, value);
  for (const e of [...X.accountEvents, ...X.gameEvents, ...eventLines]) {
    const name = Object.keys(e)[0]!;
    t.ok(check(name, e), `${name} ${ajv.errorsText()}`);
  }
  t.notOk(check('Rejected', { Rejected: { v: 1, seat: 'White' } }), 'a Rejected without reason');
  t.notOk(check('GameStart', { GameStart: { gameId: 'g', extra: 1 } }), 'no extra fields');
  t.notOk(check('PairFinished', { PairFinished: { eventId: 'E1', index: 0 } }), 'a PairFinished without its results');
  t.notOk(check('EventEnded', { EventEnded: { eventId: 'E1', state: 'running', verdict: null, seed: 'ab' } }), 'an end that is not one');
});

t.test('deterministic, built once', async (t) => {
  const text = asyncApiJson('1.0');
  t.same(JSON.parse(text), doc);
  t.equal(asyncApiJson('1.0'), text);
  t.equal(buildAsyncApi('1.0'), doc);
  t.ok(Object.isFrozen(doc));
});
