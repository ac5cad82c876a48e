// Which method of which area calls which route: `client.games.move(…)` is `submitMove`. The areas
// follow the catalogue's tags (Seeks and Lobby are one area, the lobby; the ladder takes the
// leaderboard's reads and the account's membership calls), named for what a bot author looks for.
// A route added to the catalogue gets its place here; scripts/client-catalogue.mjs then writes the
// area's typed, documented interface (generated/methods.ts) and refuses a route that has none.
export const AREAS = {
  account: {
    mintAnonymous: 'mintAnonymous',
    register: 'register',
    rotateToken: 'rotateToken',
    get: 'getAccount',
    getCapacity: 'getCapacity',
    setCapacity: 'setCapacity',
  },
  ladder: {
    join: 'joinLadder',
    leave: 'leaveLadder',
    leaderboard: 'getLeaderboard',
    profile: 'getBotProfile',
  },
  challenges: {
    create: 'createChallenge',
    list: 'listChallenges',
    accept: 'acceptChallenge',
    decline: 'declineChallenge',
  },
  lobby: {
    createSeek: 'createSeek',
    acceptSeek: 'acceptSeek',
    list: 'listLobbySeeks',
    createGuestSeek: 'createGuestSeek',
    pollSeek: 'pollSeek',
    cancelSeek: 'cancelSeek',
    guestAcceptSeek: 'guestAcceptSeek',
    guestPlayHouse: 'guestPlayHouse',
  },
  games: {
    seed: 'submitSeed',
    move: 'submitMove',
    resign: 'resign',
    mine: 'listMyGames',
    list: 'listGames',
    get: 'getGame',
    legalMoves: 'getLegalMoves',
    history: 'getGameHistory',
  },
  streams: {
    account: 'streamAccountEvents',
    game: 'streamGameEvents',
    publicGame: 'streamPublicGameEvents',
  },
  webhooks: {
    register: 'registerWebhook',
    get: 'getWebhook',
    delete: 'deleteWebhook',
  },
  events: {
    create: 'createEvent',
    list: 'listEvents',
    get: 'getEvent',
    stream: 'streamEvent',
    games: 'getEventGames',
    pgn: 'getEventPgn',
    accept: 'acceptEvent',
    decline: 'declineEvent',
    start: 'startEvent',
    cancel: 'cancelEvent',
    pause: 'pauseEvent',
    resume: 'resumeEvent',
    withdrawPlayer: 'withdrawEventPlayer',
    withdraw: 'withdrawFromEvent',
    mine: 'myEvents',
    setHosts: 'setEventHosts',
  },
  server: {
    health: 'health',
    ready: 'ready',
    metrics: 'metrics',
    openApi: 'getOpenApi',
    asyncApi: 'getAsyncApi',
  },
} as const;

/** What each area is for (the TSDoc of `client.<area>`). */
export const AREA_DOCS: Readonly<Record<keyof typeof AREAS, string>> = {
  account: 'Identities and the account: tokens, the account and its capacity.',
  ladder: 'The rating ladder: membership, the leaderboard and bot profiles.',
  challenges: 'Bot-to-bot challenges.',
  lobby: 'Seeks: offers bots make and take, and the public lobby shared with human guests.',
  games: 'Playing (seed, move, resign) and reading games.',
  streams: 'The ndjson streams of an account and of a game, as async iterators that reconnect.',
  webhooks: 'Turn deliveries by HTTPS, for registered bots.',
  events: 'Matches, gauntlets, round-robins, Swiss and SPRT tests, for tournament hosts and their players.',
  server: 'Health, readiness, metrics and the machine-readable contract.',
};
