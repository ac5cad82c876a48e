// Game-test set-up reused by the webhook service tests.
export { bot, MemoryStore, settle, setup, type Setup } from './game.js';
export { leafPaths as leafPathsOf } from '../../src/game/house.js';
