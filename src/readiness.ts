// GET /ready: whether a load balancer should send this server traffic. /health only says the process
// answers; readiness asks each part that must work for a request to succeed, and turns false the
// moment the server is told to stop, so that the balancer takes it out before its port closes.
import type { ReadinessReport } from './edge/deps.js';
import type { Store } from './store/types.js';

type Part = { ok: boolean; detail?: string };

const OK: Part = { ok: true };

export interface ReadinessSources {
  store: Store;
  /** Game shards being started again after their worker died (their games wait meanwhile). */
  restartingShards: () => number[];
  /** A cluster node: its NATS connection, and the shards whose lease it holds but does not serve yet. */
  cluster?: () => { nats: string | undefined; unserved: number[]; started: boolean };
}

export class Readiness {
  private stopping = false;

  constructor(private readonly sources: ReadinessSources) {}

  /** The server was told to stop: not ready from now on, whatever the parts say. */
  stop(): void {
    this.stopping = true;
  }

  report(): ReadinessReport {
    const parts: Record<string, Part> = {
      server: this.stopping ? { ok: false, detail: 'shutting down' } : OK,
      store: this.store(),
      shards: this.shards(),
    };
    const cluster = this.sources.cluster?.();
    if (cluster !== undefined) {
      parts.nats = cluster.nats === undefined ? OK : { ok: false, detail: cluster.nats };
      parts.ownedShards = !cluster.started
        ? { ok: false, detail: 'not yet part of the cluster' }
        : cluster.unserved.length === 0
          ? OK
          : { ok: false, detail: `owned here, still opening: shard ${cluster.unserved.join(', ')}` };
    }
    let ready = true;
    for (const name in parts) if (!parts[name].ok) ready = false;
    return { ready, parts };
  }

  /** A read the store must answer (a closed LMDB environment throws); the key names nothing. */
  private store(): Part {
    try {
      this.sources.store.getBot('ready-probe');
      return OK;
    } catch (e) {
      return { ok: false, detail: e instanceof Error ? e.message : String(e) };
    }
  }

  private shards(): Part {
    const restarting = this.sources.restartingShards();
    return restarting.length === 0 ? OK : { ok: false, detail: `restarting: shard ${restarting.join(', ')}` };
  }
}
