// The rules port run in-thread: the same engine calls the Piscina workers make, without the pool.
// For the tests, where blocking the event loop for a tree is fine and starting worker threads for
// every test server would only cost time; a server always runs the Piscina pool.
import { legalTree, parseDfen } from '../engine/index.js';
import type { RulesPort, TreeResult } from './types.js';

export class InlineRules implements RulesPort {
  private closed = false;

  async tree(dfen: string): Promise<TreeResult> {
    if (this.closed) throw new Error('rules port closed');
    const pos = parseDfen(dfen);
    // A malformed DFEN here is a bug in the caller (the port's contract): reject, do not guess.
    if (!pos.ok) throw new Error(`malformed dfen ${JSON.stringify(dfen)}: ${pos.error.message}`);
    if (pos.value.dice.length === 0) throw new Error(`dfen without dice: ${JSON.stringify(dfen)}`);
    const t = legalTree(pos.value);
    return { bytes: t.bytes, leaves: t.leaves };
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}
