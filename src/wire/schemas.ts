// Every JSON shape of the service, in one import. The shapes live in small files by role; this
// barrel is what the edge, the services and the tests import.
export * from './common.js';
export * from './requests.js';
export * from './responses.js';
export * from './events.js';
export { parseBody, parseJsonBody, parseQuery } from './parse.js';
export type { Parsed } from './parse.js';
export { wireRegistry, componentId } from './schema-registry.js';
