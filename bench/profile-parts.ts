// The parts of the server a CPU profile sample is counted for (bench/cpu-profile.ts). A sample's
// innermost frame decides when it is in our code or a package; a builtin (no file: postMessage,
// JSON.parse, a uWS method) or a Node internal is counted for the nearest caller that decides, so
// `JSON.parse` called by msgpackr's caller in the shard channel counts as messaging, a Buffer copy
// made for a socket write as a socket write.

/** Parts by the file of a frame (the first match wins). */
const BY_FILE: Array<[RegExp, string]> = [
  [/src\/engine\/tree-format\./, 'engine: the tree as JSON'],
  [/src\/shard\/tree-texts\./, 'engine: the tree as JSON'],
  [/src\/engine\//, 'engine: rules, move generation, tree'],
  [/src\/fair\//, 'dice: seeds and HMAC'],
  [/node_modules\/(lmdb|ordered-binary)\/|src\/store\//, 'store: LMDB'],
  [/node_modules\/msgpackr\/|src\/shard\/(codec|protocol|transport|worker-transport|shard-links|requests|replica-feed)\.|src\/shard-worker\./, 'messaging between threads'],
  [/src\/edge\/(ndjson|responder|streams?)\b|node_modules\/uWebSockets/, 'socket writes: verdicts and stream lines'],
  [/src\/(edge|wire)\/|node_modules\/zod\//, 'HTTP: routing, auth, bodies, validation'],
  [/src\/shard\/(sharded-games|replica)\./, 'main: game mirrors'],
  [/src\/(game|shard)\//, 'games: actors, views, subscribers'],
  [/src\/services\//, 'services (lobby, ladder, ratings)'],
  [/node_modules\/prom-client\/|src\/metrics\./, 'metrics (prom-client)'],
  [/node_modules\/pino|node_modules\/sonic-boom/, 'logging'],
  [/node_modules\/lru-cache\//, 'read caches (lru-cache)'],
];

/** Builtins (frames with no file) that are a part by themselves, whoever calls them. */
const BY_NAME: Record<string, string> = {
  '(garbage collector)': 'garbage collector',
  postMessage: 'messaging between threads',
  createHmac: 'dice: seeds and HMAC',
  '(program)': '(program: V8 and native code outside a JS frame)',
};

/** The part a sample counts for, from its frames innermost first ([function name, url]). */
export function partOf(stack: ReadonlyArray<readonly [string, string]>): string {
  for (const [name, url] of stack) {
    const named = BY_NAME[name];
    if (named) return named;
    if (!url || url.startsWith('node:')) continue; // a builtin or Node internal: its caller decides
    for (const [re, part] of BY_FILE) if (re.test(url)) return part;
    return 'other';
  }
  const [name, url] = stack[0] ?? ['', ''];
  return url.startsWith('node:') ? 'node internals' : name || '(anonymous)';
}
