/** What an outlet and an inlet share: the node's controller connection, credentials, log and metrics. */
import type { SessionCredentials } from '../wire/e2e-session.ts';
import type { NodeControl } from './control.ts';
import type { Logger } from './logger.ts';
import type { NodeMetrics } from './metrics.ts';

export interface PartContext {
  readonly control: NodeControl;
  /** host:port of the controller, whose relay carries the splices. */
  readonly controller: string;
  /** The node's current credentials (they change on renewal). */
  readonly credentials: () => SessionCredentials;
  readonly logger: Logger;
  readonly metrics: NodeMetrics;
  /** Session heartbeats; none when absent. */
  readonly heartbeat?: { readonly intervalMs: number; readonly timeoutMs: number };
}

export type PartStatus = 'starting' | 'up' | 'waiting' | 'failed';
