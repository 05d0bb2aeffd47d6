/**
 * The parts of an enrolled node, put together but not started: its standing connection to the
 * controller, its links to the relays, its outlet and its inlet, all on the node's current credentials.
 */
import { readFile } from 'node:fs/promises';
import type { Server } from 'node:net';
import { join } from 'node:path';
import type { PortalError } from '../shared/errors.ts';
import { controllerTarget } from '../wire/control-channel.ts';
import type { SessionCredentials } from '../wire/e2e-session.ts';
import type { ControllerEvent, ControllerOperations } from '../wire/protocol.ts';
import { Backoff } from './backoff.ts';
import {
  boundsWithin,
  defaultConnectionBounds,
  descriptorLimitOf,
  type ConnectionBounds,
} from './connection-bounds.ts';
import type { DirectListener } from './direct-listener.ts';
import type { StoredIdentity } from './identity-store.ts';
import { Inlet } from './inlet.ts';
import type { Logger } from './logger.ts';
import type { NodeMetrics } from './metrics.ts';
import type { NodeOptions } from './node-options.ts';
import { Outlet } from './outlet.ts';
import type { PartContext } from './part.ts';
import { RelayLinks } from './relay-links.ts';
import { StandingChannel, type NodeControl } from './standing-channel.ts';

export interface NodePartsOptions {
  readonly node: NodeOptions;
  /** Where the node keeps its identity, and the relays it knows. */
  readonly directory: string;
  /** The node's identity now: it changes on renewal. */
  readonly identity: () => StoredIdentity;
  /** The inlet's listeners, bound already. */
  readonly listener: Server | undefined;
  readonly direct: DirectListener | undefined;
  readonly metrics: NodeMetrics;
  readonly heartbeat: { readonly intervalMs: number; readonly timeoutMs: number };
  /** A relay refused the outlet's registration for good. */
  readonly onFatal: (error: PortalError) => void;
}

export interface NodeParts {
  readonly control: NodeControl;
  readonly relays: RelayLinks;
  readonly outlet: Outlet | undefined;
  readonly inlet: Inlet | undefined;
}

export async function assembleParts(options: NodePartsOptions): Promise<NodeParts> {
  const { node, directory, identity, listener, direct, metrics, heartbeat } = options;
  const { config, logger } = node;
  const newBackoff = () => new Backoff(node.backoff ?? {});
  const credentials = (): SessionCredentials => ({
    key: identity().privateKey,
    certificate: identity().certificate,
    authority: identity().authority,
    projectId: identity().record.projectId,
  });
  const control = new StandingChannel<ControllerOperations>({
    target: controllerTarget(identity().record),
    credentials: () => ({ key: identity().privateKey, certificate: identity().certificate }),
    logger,
    heartbeatMs: heartbeat.intervalMs,
    backoff: newBackoff(),
  });

  // The relays come from the controller and are remembered: with the controller away, the node still
  // reaches them, and so do its sessions and new clients.
  const relays = new RelayLinks({
    credentials: () => ({ key: identity().privateKey, certificate: identity().certificate }),
    logger,
    heartbeatMs: heartbeat.intervalMs,
    backoff: newBackoff,
    stateFile: join(directory, 'relays.json'),
  });
  await relays.restore();
  const askForRelays = async () => {
    try {
      relays.update((await control.request('relays', {})).relays);
    } catch (error) {
      logger.debug(`no relay list from the controller yet: ${(error as Error).message}`);
    }
  };
  control.on('up', () => void askForRelays());
  control.on('event', (event: ControllerEvent) => {
    if (event.event === 'relays') relays.update(event.relays);
  });

  const part: PartContext = { relays, credentials, logger, metrics, heartbeat };
  const outletConfig = config['tcp-outlet'];
  const connectionBounds = outletConfig
    ? await outletConnectionBounds(node.connectionBounds ?? defaultConnectionBounds, logger)
    : undefined;
  const outlet = outletConfig
    ? new Outlet({
        ...part,
        relay: config.relay as string,
        to: outletConfig.to,
        allow: outletConfig.allow,
        tls: outletConfig.tls === true,
        control,
        onFatal: options.onFatal,
        ...(connectionBounds ? { connectionBounds } : {}),
      })
    : undefined;
  const inletConfig = config['tcp-inlet'];
  const inlet =
    inletConfig && listener
      ? new Inlet({
          ...part,
          listener,
          from: inletConfig.from,
          via: inletConfig.via,
          allow: inletConfig.allow,
          tls: inletConfig.tls === true,
          backoff: newBackoff(),
          control,
          ...(direct ? { direct } : {}),
          ...(node.warmStreams === undefined ? {} : { warmStreams: node.warmStreams }),
        })
      : undefined;
  return { control, relays, outlet, inlet };
}

/**
 * The outlet's bounds on target connections, held under this process's descriptor limit (said once
 * when it lowers them).
 */
async function outletConnectionBounds(requested: ConnectionBounds, logger: Logger): Promise<ConnectionBounds> {
  const limits = await readFile('/proc/self/limits', 'utf8').catch(() => '');
  const limit = descriptorLimitOf(limits);
  const { bounds, clamped } = boundsWithin(requested, limit);
  if (clamped) {
    logger.warn(
      `outlet: the descriptor limit of ${limit} allows ${bounds.total} target connections at once ` +
        `(${bounds.perInlet} per inlet), fewer than the ${requested.total} (${requested.perInlet}) asked for; ` +
        'raise it with ulimit -n or LimitNOFILE=',
    );
  }
  return bounds;
}
