// The route catalogue's types, which api.ts reads through the typed client's (src/client/types.ts),
// reach the server's body parser (src/wire/parse.ts), and it names Node's Buffer. The page imports
// types only, so none of that code is bundled; this declares that one use for the type check and
// nothing else of Node.
declare const Buffer: { from(data: Uint8Array): { toString(encoding: 'utf8'): string } };
