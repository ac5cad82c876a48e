// Whether this node's NATS connection is up right now, for /ready. The client reconnects by itself
// and reports each drop and return on its status feed; this keeps the last word of that feed.
import type { NatsConnection } from './nats.js';

export class ConnectionState {
  private connected = true;

  /** `onReconnect`: told each time the connection is back after a drop. */
  constructor(private readonly nc: NatsConnection, private readonly onReconnect: () => void = () => {}) {
    void this.follow();
  }

  /** Undefined while connected; otherwise what the connection is doing instead. */
  problem(): string | undefined {
    if (this.nc.isClosed()) return 'connection to NATS closed';
    if (this.nc.isDraining()) return 'connection to NATS draining';
    return this.connected ? undefined : 'disconnected from NATS, reconnecting';
  }

  private async follow(): Promise<void> {
    try {
      for await (const s of this.nc.status()) {
        if (s.type === 'disconnect' || s.type === 'reconnecting') this.connected = false;
        else if (s.type === 'reconnect') {
          this.connected = true;
          this.onReconnect();
        }
      }
    } catch {
      // The feed ends with the connection; isClosed() says so from then on.
    }
  }
}
