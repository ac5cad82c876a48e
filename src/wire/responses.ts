// Response bodies (docs/API.md describes each, the lobby, history, health and
// problem shapes included). All strict: the documents promise exactly these fields.
// The bodies are written by area in responses/ (identity, lobby, games, competition); this file
// gathers them, so every importer reads one module, and holds the bodies that belong to no area.
import { z } from 'zod';
import { described, named } from './schema-registry.js';

export * from './responses/identity.js';
export * from './responses/lobby.js';
export * from './responses/games.js';
export * from './responses/competition.js';

export const Health = named(
  'Health',
  z.strictObject({ status: z.literal('ok'), version: z.string() }),
  'Liveness.',
);

export const ReadinessPart = named(
  'ReadinessPart',
  z.strictObject({
    ok: z.boolean(),
    detail: described(z.string(), 'Why the part is not serving; absent when it is.').optional(),
  }),
  'One part of the server as /ready sees it.',
);

export const Readiness = named(
  'Readiness',
  z.strictObject({
    status: z.enum(['ready', 'not_ready']),
    parts: described(
      z.record(z.string(), ReadinessPart),
      '`server` (not shutting down), `store`, `shards` (the game worker threads); in a cluster also `nats` and `ownedShards`.',
    ),
  }),
  'Whether this server should be sent traffic, and which part is not serving if not.',
);

export const Problem = named(
  'Problem',
  z.strictObject({
    type: z.string(),
    title: z.string(),
    status: z.int().min(400).max(599),
    detail: described(z.string(), 'For humans.'),
    code: described(z.string().regex(/^[a-z][a-z0-9_]*$/), 'Stable snake_case machine code.'),
  }),
  'RFC 9457 problem details; every error other than a move verdict.',
);

export const Empty = named('Empty', z.strictObject({}), 'An empty object.');

export const JsonDocument = named(
  'JsonDocument',
  z.record(z.string(), z.unknown()),
  'A JSON document (the machine-readable contract itself).',
);
