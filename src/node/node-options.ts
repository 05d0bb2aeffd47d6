/** What a node is started with. */
import type { NodeConfig } from '../shared/types/node-config.ts';
import type { Environment } from './config-rules.ts';
import type { ConnectionBounds } from './connection-bounds.ts';
import type { Logger } from './logger.ts';

export interface NodeOptions {
  /** PORTAL_HOME: the node keeps its identity in <home>/node. */
  readonly home: string;
  /** The configuration, its placeholders replaced (parseNodeConfig), without its ticket. */
  readonly config: NodeConfig;
  /** Where the configuration came from, which a reload reads again; none: it cannot be reloaded. */
  readonly source?: ConfigurationSource;
  /** Where a reload reads `$NAME` placeholders from. @default process.env */
  readonly environment?: Environment;
  /** How long a portal a reload removes or replaces may finish what it carries. @default 0 (closed at once) */
  readonly drainMs?: number;
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

/** Where a node's configuration came from. */
export interface ConfigurationSource {
  /**
   * The file a reload reads again (absolute); none for a document given inline, until the node keeps it
   * in its home (kept-configuration.ts).
   */
  readonly file: string | undefined;
  /**
   * The document's text, when the node keeps it in its home and reloads from there: given inline, or
   * from a copy that cannot be read again (a systemd credential).
   */
  readonly keep?: string;
  /** The flag that gave it: --configuration or --node-config. */
  readonly flag: string;
  /** The document's `ticket` key at start, which a reload may not change. */
  readonly ticket: string | undefined;
}
