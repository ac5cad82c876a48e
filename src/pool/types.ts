// The rules port: how actors get a roll's legal-move tree without blocking the event loop.
export interface TreeResult {
  /** The tree in the engine's flat binary encoding (transferable between threads). */
  bytes: Uint8Array;
  leaves: number;
}

export interface RulesPort {
  /** Legal-move tree of a DFEN that carries dice. Rejects only on overload or a malformed DFEN (a bug). */
  tree(dfen: string): Promise<TreeResult>;
  close(): Promise<void>;
}
