/**
 * What the inlet counts of its clients, for /show and the metrics: those carried (by path), active
 * and refused, and the clients the outlet refused in a row.
 */
import type { Socket } from 'node:net';
import { printable } from '../shared/errors.ts';
import { ByteTally, type ByteTotals } from './byte-tally.ts';
import { ClientLeft } from '../wire/mux.ts';
import { FailureStreak, type StreakShow } from './failure-streak.ts';
import type { PortalMetrics } from './metrics.ts';
import type { Path } from './warm-streams.ts';

export class InletCounters {
  private readonly connections = { total: 0, active: 0, refused: 0 };
  private readonly byPath: Record<Path, number> = { direct: 0, relay: 0 };
  /** Clients the outlet refused (its target unreachable, its bounds) since it last accepted one. */
  private readonly outletRefusals = new FailureStreak();
  private readonly bytes = new ByteTally('read');

  constructor(private readonly metrics: PortalMetrics) {}

  /** Counts a client connection while `joined` carries it, and its bytes once it is over. */
  async carry(socket: Socket, joined: Promise<void>, path: Path): Promise<void> {
    const { metrics } = this;
    this.connections.total += 1;
    this.connections.active += 1;
    this.byPath[path] += 1;
    metrics.connections.inc({ part: 'inlet', path });
    metrics.connectionsOpen.inc({ part: 'inlet', path });
    this.bytes.carry(socket, joined);
    await joined;
    this.connections.active -= 1;
    metrics.connectionsOpen.dec({ part: 'inlet', path });
    metrics.bytes.inc({ part: 'inlet', direction: 'from_client' }, socket.bytesRead);
    metrics.bytes.inc({ part: 'inlet', direction: 'to_client' }, socket.bytesWritten);
  }

  /** One more client refused: how many so far. */
  refused(): number {
    this.connections.refused += 1;
    this.metrics.refusals.inc({ part: 'inlet' });
    return this.connections.refused;
  }

  /** The outlet took a client's stream: its refusals in a row are over. */
  outletAccepted(): void {
    this.outletRefusals.succeed();
  }

  /** The outlet did not take a client's stream (its target unreachable, a bound): one more in a row. */
  outletRefused(error: Error): void {
    if (error instanceof ClientLeft) return;
    this.outletRefusals.fail(printable(error.message.slice(0, 300)));
  }

  describe() {
    return {
      connections_total: this.connections.total,
      connections_active: this.connections.active,
      connections_refused: this.connections.refused,
      connections_direct: this.byPath.direct,
      connections_relayed: this.byPath.relay,
    };
  }

  /** Bytes the clients sent and received, open connections included. */
  carried(): ByteTotals {
    return this.bytes.totals();
  }

  /** Clients the outlet refused since it last accepted one. */
  refusedByOutlet(): StreakShow | null {
    return this.outletRefusals.describe();
  }
}
