// The rules port run in-thread: a game shard computes each roll's tree in its own thread (a tree
// costs tens of microseconds, less than a dispatch to another thread would), and tests use the same.
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
