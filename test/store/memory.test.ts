// The shared store suite against the in-memory store.
import t from 'tap';
import { MemoryStore } from '../../src/store/memory.js';
import { storeSuite } from './suite.js';

t.equal(new MemoryStore().persistent, false, 'the memory store does not claim persistence');

storeSuite(t, async (t) => {
  const s = new MemoryStore();
  t.teardown(() => s.close());
  return s;
});
