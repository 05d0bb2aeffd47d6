/**
 * Whether a relay node serves: it does while its controller holds its announcement (nodes learn of
 * it only through the controller), and not while it is stopping. /healthz reports it, and the gauge
 * portal_relay_controller_connected follows it.
 */
import type { Registry } from 'prom-client';
import { readGauge, single } from '../shared/metric-families.ts';

export class RelayHealth {
  private why: string | undefined;
  private stopping = false;

  constructor(private readonly controller: string) {
    this.why = `it has not announced itself to the controller ${controller} yet`;
  }

  /** The controller took the announcement. */
  announced(): void {
    this.why = undefined;
  }

  refused(message: string): void {
    this.why = `the controller ${this.controller} did not take its announcement: ${message}`;
  }

  /** The connection to the controller dropped: the announcement is withdrawn with it. */
  lost(): void {
    this.why = `its connection to the controller ${this.controller} is down (it reconnects by itself)`;
  }

  stop(): void {
    this.stopping = true;
  }

  /** Undefined while it serves; why it does not otherwise. */
  problem(): string | undefined {
    return this.stopping ? 'it is stopping' : this.why;
  }

  register(registry: Registry): void {
    readGauge({
      registry,
      name: 'portal_relay_controller_connected',
      help: 'Whether the controller holds this relay node’s announcement now (1) or not (0)',
      read: () => single(this.why === undefined ? 1 : 0),
    });
  }
}
