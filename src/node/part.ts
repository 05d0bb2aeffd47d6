/** What an outlet and an inlet share: the node's relay connections, credentials, log and metrics. */
import type { SessionCredentials } from '../wire/e2e-session.ts';
import type { PortalAudit } from './audit-sink.ts';
import type { Logger } from './logger.ts';
import type { PortalMetrics } from './metrics.ts';
import type { RelayLinks } from './relay-links.ts';

export interface PartContext {
  /** The relays of the project: outlets register on each, inlets open their sessions through one. */
  readonly relays: RelayLinks;
  /** The node's current credentials (they change on renewal). */
  readonly credentials: () => SessionCredentials;
  readonly logger: Logger;
  /** The node's series, as this portal counts on them. */
  readonly metrics: PortalMetrics;
  /** Session heartbeats; none when absent. */
  readonly heartbeat?: { readonly intervalMs: number; readonly timeoutMs: number };
  /** Where the portal records its sessions and refusals in the project's audit trail; none: not recorded. */
  readonly audit?: PortalAudit;
}

export type PartStatus = 'starting' | 'up' | 'waiting' | 'failed';
