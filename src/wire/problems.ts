// Every problem code a client can receive, in one place: its HTTP status, the `detail` sent when the
// code is raised without a more specific one, and when it happens (docs/API.md's table of codes is
// checked against this list by test/wire/problems.test.ts). The services raise codes with `fail` and
// `rateLimited` (src/services/errors.ts) and the edge with `problem` (src/edge/reply.ts); both take a
// `ProblemCode`, so a code missing here does not compile, and a code's status cannot differ between
// two call sites. A new code goes here first, with a row in docs/API.md.

/** The statuses a problem is sent with (500 only for a bug of ours: `internal`). */
export type ProblemStatus = 400 | 401 | 403 | 404 | 405 | 409 | 413 | 422 | 429 | 500 | 503;

export interface ProblemSpec {
  readonly status: ProblemStatus;
  /** The `detail` when the call site gives none; call sites often say more (a limit, a state). */
  readonly detail: string;
  /** When a client gets it: one line for the documentation. */
  readonly when: string;
}

export const PROBLEMS = {
  // The request itself (router, body reader, request binding).
  not_found: {
    status: 404,
    detail: 'no such route',
    when: 'no route or web asset has this path, or a path parameter is too long to name anything',
  },
  method_not_allowed: {
    status: 405,
    detail: 'this method is not allowed here',
    when: 'a known path with a method it does not take (`Allow` lists those it does)',
  },
  cross_site_refused: {
    status: 403,
    detail: 'this route does not take requests sent by pages of other sites',
    when: 'a write that a browser says was sent by a page of another site',
  },
  body_too_large: {
    status: 413,
    detail: 'the request body is too large',
    when: 'a request body over the limit (64 KiB by default)',
  },
  aborted: { status: 400, detail: 'the request was aborted', when: 'the client aborted the request while sending its body' },
  malformed_json: {
    status: 400,
    detail: 'the request body is not valid JSON (bodies are JSON whatever their Content-Type)',
    when: 'the body is not UTF-8, or not JSON',
  },
  missing_body: { status: 400, detail: 'this route needs a JSON body', when: 'a route that needs a body got none' },
  invalid_body: {
    status: 400,
    detail: 'the request body does not fit this route',
    when: 'the body is JSON but a field is missing, unknown or wrong',
  },
  invalid_query: {
    status: 400,
    detail: 'the query string does not fit this route',
    when: 'a query parameter is unknown or out of its range',
  },

  // Who is calling.
  missing_token: { status: 401, detail: 'send Authorization: Bearer <token>', when: 'a route that needs a token got none' },
  invalid_token: {
    status: 401,
    detail: 'the token is invalid, rotated or expired',
    when: 'the token is unknown, rotated or expired (or was rotated by a concurrent request)',
  },
  seat_token_not_allowed: {
    status: 401,
    detail: 'a seat token only works on the routes of its game',
    when: 'a seat token on a route that is not one of its game',
  },
  unknown_identity: {
    status: 401,
    detail: 'this bot identity no longer exists',
    when: 'the token names a bot that no longer exists',
  },
  registered_only: {
    status: 403,
    detail: 'only registered bots can use this; anonymous, static and guest callers cannot',
    when: 'a registered-only route from an anonymous, house or guest caller',
  },
  bots_only: {
    status: 403,
    detail: 'human guests offer and accept seeks through /lobby/seeks',
    when: 'a human guest on a route for bots (bot seeks, challenges)',
  },

  // Request rates and per-caller limits: every 429 carries Retry-After.
  too_many_mints: {
    status: 429,
    detail: 'too many anonymous mints from this address',
    when: 'an address minted its most anonymous tokens this hour',
  },
  too_many_registrations: {
    status: 429,
    detail: 'too many registrations from this address',
    when: 'an address made its most registrations this hour',
  },
  too_many_ladder_changes: {
    status: 429,
    detail: 'too many ladder joins and leaves',
    when: 'a bot joined and left the ladder its most times this hour',
  },
  too_many_webhook_registrations: {
    status: 429,
    detail: 'too many webhook registrations from this address',
    when: 'an address made its most webhook registrations this hour',
  },
  too_many_guest_requests: {
    status: 429,
    detail: 'too many guest lobby requests from this address',
    when: 'an address made its most guest lobby actions this hour',
  },
  too_many_polls: {
    status: 429,
    detail: 'too many lobby reads from this address',
    when: 'an address read the lobby faster than it may',
  },
  too_many_challenge_requests: {
    status: 429,
    detail: 'too many challenges from this address',
    when: 'an address sent challenges faster than it may',
  },
  too_many_connections: {
    status: 429,
    detail: 'this address holds too many requests and streams open; close some first',
    when: 'an address holds its most requests and streams open at once',
  },
  too_many_streams: {
    status: 429,
    detail: 'too many streams open for this identity; close one first',
    when: 'an identity holds its most streams open',
  },
  too_many_spectators: {
    status: 429,
    detail: 'too many spectators right now; retry shortly',
    when: 'a game or event, an address, or the server holds its most spectator streams',
  },
  too_many_unsent_bytes: {
    status: 429,
    detail: 'too many bytes waiting to be sent to this address',
    when: 'earlier large answers to the address are still unsent (read them first)',
  },
  too_many_body_bytes: {
    status: 429,
    detail: 'too many bytes of large answers sent to this address; retry later',
    when: 'an address asked for more bytes of large answers in a minute than it may',
  },

  // Identity.
  reserved_team: { status: 400, detail: 'this team is reserved', when: 'registering under a reserved team (`anon`, `house`)' },
  invalid_slug: { status: 400, detail: 'team or name is not a valid slug', when: 'a team or name that is not a slug' },
  identity_taken: {
    status: 409,
    detail: 'this bot identity is already taken',
    when: 'registering a team and name someone holds',
  },

  // Lobby.
  unknown_seek: {
    status: 404,
    detail: 'no such seek, or a wrong secret',
    when: 'no open seek with this id (or the secret is wrong)',
  },
  own_seek: { status: 400, detail: 'you cannot accept your own seek', when: 'accepting your own seek' },
  seek_taken: {
    status: 409,
    detail: 'this seek was claimed by someone else first',
    when: 'another caller accepted the seek first',
  },
  seek_not_open: { status: 409, detail: 'this seek is no longer open', when: 'cancelling a seek that is no longer open' },
  too_many_seeks: { status: 429, detail: 'too many open seeks', when: 'a bot (or a guest address) holds its most open seeks' },
  lobby_full: {
    status: 429,
    detail: 'the lobby holds too many open seeks of this kind; retry later',
    when: 'the lobby holds its most open seeks of this kind',
  },

  // Challenges.
  self_challenge: {
    status: 400,
    detail: 'a bot cannot challenge itself (another identity of yours is fine)',
    when: 'a bot challenging itself',
  },
  unknown_bot: {
    status: 404,
    detail: 'no registered bot with this team and name',
    when: 'no bot with this team and name (to challenge or to profile)',
  },
  unknown_challenge: {
    status: 404,
    detail: 'no pending challenge with this id (it may have been accepted, declined or expired)',
    when: 'no pending challenge with this id',
  },
  not_your_challenge: {
    status: 403,
    detail: 'this challenge is addressed to another bot',
    when: 'answering a challenge that is not to you (or declining one you are not part of)',
  },
  too_many_challenges: {
    status: 429,
    detail: 'too many pending challenges',
    when: 'a challenger holds its most pending challenges',
  },
  challenge_capacity: {
    status: 429,
    detail: 'the server holds too many pending challenges; retry later',
    when: 'the server holds its most pending challenges',
  },
  unknown_house_bot: {
    status: 404,
    detail: 'no built-in house bot with this name',
    when: 'no built-in house bot with this name',
  },

  // Games.
  unknown_game: { status: 404, detail: 'no game with this id', when: 'no game with this id' },
  not_seated: {
    status: 403,
    detail: 'you are not seated in this game',
    when: 'a game action by a caller not seated in it (or a seat token of another game)',
  },
  game_busy: { status: 429, detail: 'this game is busy; retry shortly', when: "the game's command queue is full" },
  too_many_games: {
    status: 429,
    detail: 'too many live games; finish one first',
    when: 'a player is in its most live games, or a guest address plays its most guest games',
  },
  clock_too_long: {
    status: 400,
    detail: 'this clock is too long for a guest game',
    when: "a guest game's clock over the guest limit",
  },

  // Ladder.
  no_persistence: {
    status: 404,
    detail: 'this server runs without persistence: no leaderboard or profiles',
    when: 'leaderboard or profiles on a server without storage',
  },

  // Events.
  invalid_event: {
    status: 400,
    detail: 'this event cannot be made',
    when: 'an event the format does not allow, or over the server limits',
  },
  rated_odds: {
    status: 400,
    detail: 'an event with time odds cannot be rated',
    when: 'a rated event in which a player has its own time control',
  },
  unknown_event: { status: 404, detail: 'no event with this id', when: 'no event with this id' },
  not_invited: {
    status: 404,
    detail: 'the caller is not a player of this event',
    when: 'answering or withdrawing from an event you are not a player of (or withdrawing a bot that is not one)',
  },
  not_host: { status: 403, detail: 'only the host can do this', when: 'starting, pausing, resuming or cancelling an event you do not host, or withdrawing a player from it' },
  event_started: {
    status: 409,
    detail: 'the event has started',
    when: 'accepting, declining or starting an event no longer pending',
  },
  event_over: { status: 409, detail: 'the event is over', when: 'cancelling, pausing, resuming or withdrawing from an event that is cancelling or over' },
  event_not_running: {
    status: 409,
    detail: 'the event is not running',
    when: 'pausing an event that is not running (pending or paused), or withdrawing from a pending one',
  },
  event_not_paused: { status: 409, detail: 'the event is not paused', when: 'resuming an event that is not paused' },
  not_playing: {
    status: 409,
    detail: 'this player does not play in the event',
    when: 'withdrawing a player who declined, never accepted or has withdrawn already',
  },
  too_few_players: {
    status: 409,
    detail: 'too few players have accepted',
    when: 'starting an event with too few acceptances for its format',
  },
  too_many_events: {
    status: 429,
    detail: 'too many events pending or running',
    when: 'a host holds its most events pending or running',
  },
  too_many_events_created: {
    status: 429,
    detail: 'too many events created this hour',
    when: 'a host created its most events this hour',
  },
  too_many_event_requests: {
    status: 429,
    detail: 'too many event creations asked for from this address',
    when: 'an address asked to create events more often this hour than it may',
  },
  too_many_invitations: {
    status: 429,
    detail: 'a bot invited has had its most event invitations this hour',
    when: 'an event would invite a bot past its invitations this hour (the event is not made)',
  },
  invalid_event_hosts: {
    status: 400,
    detail: 'this list of event hosts is not valid',
    when: 'trusted event hosts: too many, one named twice, or one not registered',
  },

  // Webhooks.
  webhooks_disabled: {
    status: 503,
    detail: 'webhooks are disabled on this server',
    when: 'a webhook route on a server without webhooks',
  },
  webhook_url_refused: {
    status: 422,
    detail: 'this webhook URL is refused',
    when: 'a webhook URL the server will not call (a private address, …)',
  },
  webhook_handshake_failed: {
    status: 422,
    detail: 'the webhook did not answer the handshake',
    when: 'the webhook URL could not be reached or did not answer the verification handshake as asked',
  },
  no_webhook: { status: 404, detail: 'this bot has no webhook', when: 'reading or removing a webhook the bot does not have' },

  // The server at a limit of its own: retry after Retry-After.
  server_full: {
    status: 503,
    detail: 'the server holds its most live games; retry later',
    when: 'the server holds its most live games',
  },
  service_unavailable: {
    status: 503,
    detail: 'this service cannot be reached now; retry shortly',
    when: 'in a cluster, the node holding the lobby or challenges did not answer',
  },
  game_unavailable: {
    status: 503,
    detail: "this game's shard is being taken over by another node; retry shortly",
    when: "in a cluster, the game's shard is between two nodes (the game is not lost)",
  },
  node_starting: {
    status: 503,
    detail: 'this node is starting: it is waiting for its cluster; retry shortly',
    when: 'in a cluster, the node is still waiting for its cluster at start-up (every route, /health included)',
  },
  tree_unavailable: {
    status: 503,
    detail: 'the legal-move tree could not be read now; retry shortly',
    when: "in a cluster, a large legal-move tree could not be read from the game's shard",
  },

  // A bug of ours; nothing about it is the client's business.
  internal: { status: 500, detail: 'internal error', when: 'a bug in the server' },
} as const satisfies Record<string, ProblemSpec>;

export type ProblemCode = keyof typeof PROBLEMS;

/** The codes sent with status S: what a helper bound to one status (429, 401) accepts. */
export type ProblemCodeWith<S extends ProblemStatus> = {
  [C in ProblemCode]: (typeof PROBLEMS)[C]['status'] extends S ? C : never;
}[ProblemCode];

export function problemStatus(code: ProblemCode): ProblemStatus {
  return PROBLEMS[code].status;
}
