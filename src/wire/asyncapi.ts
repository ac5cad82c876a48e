// The AsyncAPI 3.0 document of the ndjson streams: one channel per stream, one message per
// event, payloads from the same zod schemas the server's events are typed by. The service is the
// sender; a bot opens the stream with a GET and reads one JSON object per line.
import './schemas.js'; // every named shape registered before the first conversion
import type { z } from 'zod';
import type { JsonObject } from './jsonschema.js';
import { COMPONENT_PREFIX, componentSchemas, documentCache, reachable } from './jsonschema.js';
import { componentId, wireRegistry } from './schema-registry.js';
import { ACCOUNT_EVENTS, GAME_EVENTS } from './events.js';
import { EVENT_STREAM_LINES } from './tournament-lines.js';
import { CONTENT_TYPES, CONTRACT_VERSION } from './route-spec.js';

interface Stream {
  channel: string;
  operation: string;
  address: string;
  title: string;
  description: string;
  events: Readonly<Record<string, z.ZodType>>;
  parameters?: JsonObject;
  /** Readable without a token. */
  public?: boolean;
}

const FRAMING =
  'Content type application/x-ndjson: one JSON object per line, each a single-key object naming the event. ' +
  'Blank lines are keep-alives, sent whenever 25 seconds pass with nothing written, and are ignored. ' +
  'Live only: nothing is replayed.';

const STREAMS: readonly Stream[] = [
  {
    channel: 'accountStream',
    operation: 'sendAccountEvents',
    address: '/bot/stream/event',
    title: 'Account stream',
    description: `GET /bot/stream/event: challenges, game starts and event invitations for the caller. ${FRAMING}`,
    events: ACCOUNT_EVENTS,
  },
  {
    channel: 'gameStream',
    operation: 'sendGameEvents',
    address: '/bot/game/stream/{id}',
    title: 'Game stream',
    description:
      'GET /bot/game/stream/{id}: the state transitions of one game, opening with Snapshot and closing ' +
      `after GameEnded. Any authenticated caller may watch any game. ${FRAMING}`,
    events: GAME_EVENTS,
    parameters: { id: { description: 'Game id.' } },
  },
  {
    channel: 'publicGameStream',
    operation: 'sendPublicGameEvents',
    address: '/games/{id}/stream',
    title: 'Public game stream',
    description:
      'GET /games/{id}/stream: the same events as the game stream for anyone, without a token (spectators, ' +
      `the web page). Opens with Snapshot, closes after GameEnded; players appear as public faces only. ${FRAMING}`,
    events: GAME_EVENTS,
    parameters: { id: { description: 'Game id.' } },
    public: true,
  },
  {
    channel: 'eventStream',
    operation: 'sendEventStreamLines',
    address: '/events/{id}/stream',
    title: 'Event stream',
    description:
      'GET /events/{id}/stream: an event (match, gauntlet, round-robin, Swiss, SPRT) live, for anyone, without a ' +
      'token. Opens with EventState, then PairStarted and PairFinished as pairs start and end, PairVoided when the server aborted a game of a pair (and EventState again ' +
      'when the host cancels while pairs run, pauses or resumes the event, or a player withdraws), and closes after EventEnded, which comes with the seed once the event ' +
      `is over and none of its games runs (at once for an event already over). ${FRAMING}`,
    events: EVENT_STREAM_LINES,
    parameters: { id: { description: 'Event id.' } },
    public: true,
  },
];

function build(serverVersion: string): JsonObject {
  const channels: JsonObject = {};
  const operations: JsonObject = {};
  const messages: JsonObject = {};
  const roots: string[] = [];

  for (const s of STREAMS) {
    const channelMessages: JsonObject = {};
    const refs: JsonObject[] = [];
    for (const [name, schema] of Object.entries(s.events)) {
      const id = componentId(schema);
      if (!id) throw new Error(`event ${name} is not a named wire component`);
      roots.push(id);
      messages[name] = {
        name,
        title: name,
        summary: wireRegistry.get(schema)?.description ?? name,
        contentType: CONTENT_TYPES.json,
        payload: { $ref: `${COMPONENT_PREFIX}${id}` },
      };
      channelMessages[name] = { $ref: `#/components/messages/${name}` };
      refs.push({ $ref: `#/channels/${s.channel}/messages/${name}` });
    }
    const channel: JsonObject = {
      address: s.address,
      title: s.title,
      description: s.description,
      messages: channelMessages,
    };
    if (s.parameters) channel.parameters = s.parameters;
    channels[s.channel] = channel;
    operations[s.operation] = {
      action: 'send',
      channel: { $ref: `#/channels/${s.channel}` },
      summary: `Events of the ${s.title.toLowerCase()}, one per line.`,
      ...(s.public ? {} : { security: [{ $ref: '#/components/securitySchemes/bearer' }] }),
      bindings: { http: { method: 'GET', bindingVersion: '0.3.0' } },
      messages: refs,
    };
  }

  // Only the schemas the events use, in the dialect AsyncAPI's default schema format speaks.
  const all = componentSchemas('draft-07');
  const schemas: JsonObject = {};
  for (const id of reachable(roots, all)) schemas[id] = all[id]!;

  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Dice chess bot service: event streams',
      version: CONTRACT_VERSION,
      description: `The long-lived ndjson streams of the bot service. ${FRAMING}`,
      'x-server-version': serverVersion,
    },
    defaultContentType: CONTENT_TYPES.json,
    channels,
    operations,
    components: {
      schemas,
      messages,
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'A bot token, or on the game stream a guest’s seatToken.',
        },
      },
    },
  };
}

const cached = documentCache(build);

/** The AsyncAPI 3.0 document (frozen; the same object on every call for a version). */
export function buildAsyncApi(version: string): JsonObject {
  return cached(version).doc;
}

/** The document as JSON text, serialised once per version (the body of GET /asyncapi.json). */
export function asyncApiJson(version: string): string {
  return cached(version).json;
}
