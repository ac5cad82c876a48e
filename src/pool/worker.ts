// Piscina worker: runs the rules engine off the main thread. The tree comes back as its one flat
// buffer, moved (not cloned) to the main thread; a string result is an error message.
import { Piscina } from 'piscina';
import { legalTree, parseDfen } from '../engine/index.js';

export function tree(dfen: string): Uint8Array | string {
  const pos = parseDfen(dfen);
  if (!pos.ok) return `${pos.error.code}: ${pos.error.message}`;
  const t = legalTree(pos.value);
  // Only a buffer the tree owns whole can be transferred; a view into a larger one is copied once.
  const bytes = t.bytes.byteOffset === 0 && t.bytes.byteLength === t.bytes.buffer.byteLength ? t.bytes : t.bytes.slice();
  return Piscina.move(bytes) as unknown as Uint8Array;
}
