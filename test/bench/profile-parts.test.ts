// The parts a CPU profile's samples are summed into (bench/profile-parts.ts): our files and packages
// by their path, builtins and Node internals by the caller that owns them, V8's pseudo-frames by name.
import t from 'tap';
import { partOf } from '../../bench/profile-parts.js';

const f = (name: string, url = ''): [string, string] => [name, url];
const root = 'file:///srv/dicechess/dist';

t.test('a frame in our code or a package decides by its file', async (t) => {
  t.equal(partOf([f('expand', `${root}/src/engine/tree-build.js`)]), 'engine: rules, move generation, tree');
  t.equal(partOf([f('nodeJson', `${root}/src/engine/tree-format.js`)]), 'engine: the tree as JSON');
  t.equal(partOf([f('startWriting', `${root}/node_modules/lmdb/write.js`)]), 'store: LMDB');
  t.equal(partOf([f('readObject', `${root}/node_modules/lmdb/node_modules/msgpackr/unpack.js`)]), 'store: LMDB', "LMDB's own msgpackr");
  t.equal(partOf([f('unpack', `${root}/node_modules/msgpackr/unpack.js`)]), 'messaging between threads');
  t.equal(partOf([f('sendGathered', `${root}/src/edge/ndjson.js`)]), 'socket writes: verdicts and stream lines');
  t.equal(partOf([f('handle', `${root}/src/edge/router.js`)]), 'HTTP: routing, auth, bodies, validation');
  t.equal(partOf([f('apply', `${root}/src/shard/replica.js`)]), 'main: game mirrors');
  t.equal(partOf([f('x', `${root}/src/somewhere-new.js`)]), 'other');
});

t.test('a builtin or node internal counts for its nearest caller that decides', async (t) => {
  t.equal(partOf([f('end'), f('sendGathered', `${root}/src/edge/ndjson.js`)]), 'socket writes: verdicts and stream lines');
  t.equal(partOf([f('parse'), f('copy', 'node:buffer'), f('roll', `${root}/src/game/actor.js`)]), 'games: actors, views, subscribers');
  t.equal(partOf([f('postMessage'), f('send', `${root}/src/game/actor.js`)]), 'messaging between threads', 'postMessage is messaging whoever calls it');
  t.equal(partOf([f('(garbage collector)')]), 'garbage collector');
  t.equal(partOf([f('readSync', 'node:fs'), f('(root)')]), 'node internals', 'no deciding caller');
  t.equal(partOf([f('wrap'), f('(root)')]), 'wrap', 'a builtin with no caller keeps its name');
});
