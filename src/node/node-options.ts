/** What a node is started with. */
import type { NodeConfig } from '../shared/types/node-config.ts';
import type { ConnectionBounds } from './connection-bounds.ts';
import type { Logger } from './logger.ts';

export interface NodeOptions {
  /** PORTAL_HOME: the node keeps its identity in <home>/node. */
  readonly home: string;
  readonly config: NodeConfig;
  readonly ticket?: string;
  readonly logger: Logger;
  /** Heartbeats on sessions and the control channel. @default heartbeatIntervalMs, heartbeatTimeoutMs */
  readonly heartbeat?: { readonly intervalMs: number; readonly timeoutMs: number };
  /** Backoff bounds for reconnecting. @default reconnectInitialMs to reconnectMaxMs */
  readonly backoff?: { readonly initialMs: number; readonly maxMs: number };
  /** Where outlets dial the inlet's direct path, when not at its own addresses (PORTAL_DIRECT_ADVERTISE). */
  readonly directAdvertise?: readonly string[];
  /**
   * Warm end-to-end streams an inlet keeps ready for new clients (0: all clients ride the session).
   * @default defaultWarmStreams
   */
  readonly warmStreams?: number;
  /** Target connections an outlet holds at once (held under the descriptor limit). @default defaultConnectionBounds */
  readonly connectionBounds?: ConnectionBounds;
}
