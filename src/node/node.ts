/**
 * A running node: its identity (enrolled once, then reused from PORTAL_HOME), its standing connection
 * to the controller, its outlet and/or inlet, the status server, and credential renewal.
 */
import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Server as HttpServer } from 'node:http';
import type { Server } from 'node:net';
import { join } from 'node:path';
import { InputError, PortalError } from '../shared/errors.ts';
import { product } from '../shared/product.ts';
import type { NodeConfig } from '../shared/types/node-config.ts';
import type { SessionCredentials } from '../wire/e2e-session.ts';
import { Backoff } from './backoff.ts';
import {
  boundsWithin,
  defaultConnectionBounds,
  descriptorLimitOf,
  type ConnectionBounds,
} from './connection-bounds.ts';
import { StandingChannel } from './standing-channel.ts';
import { RelayLinks } from './relay-links.ts';
import { controllerTarget } from '../wire/control-channel.ts';
import type { ControllerEvent, ControllerOperations } from '../wire/protocol.ts';
import { enrollWithTicket } from './enrollment.ts';
import { claimHome, type HomeClaim } from './home-claim.ts';
import { identityMisfit } from './ticket-fit.ts';
import { Renewal } from './renewal.ts';
import { loadIdentity, type StoredIdentity } from './identity-store.ts';
import { DirectListener } from './direct-listener.ts';
import { Inlet, bindInletListener } from './inlet.ts';
import { decodeTicket } from '../wire/ticket.ts';
import type { Logger } from './logger.ts';
import { createMetrics } from './metrics.ts';
import { Outlet } from './outlet.ts';
import type { PartContext } from './part.ts';
import { assessNode, type NodeFacts, type NodeShow } from './show.ts';
import { listeningLine } from './listening.ts';
import { startStatusServer } from './status-server.ts';
import { version } from './version.ts';

export interface NodeOptions {
  /** PORTAL_HOME: the node keeps its identity in <home>/node. */
  readonly home: string;
  readonly config: NodeConfig;
  readonly ticket?: string;
  readonly logger: Logger;
  /** Heartbeats on sessions and the control channel. @default 5 s interval, 10 s timeout */
  readonly heartbeat?: { readonly intervalMs: number; readonly timeoutMs: number };
  /** Backoff bounds for reconnecting. @default 100 ms to 2 s */
  readonly backoff?: { readonly initialMs: number; readonly maxMs: number };
  /** Where outlets dial the inlet's direct path, when not at its own addresses (PORTAL_DIRECT_ADVERTISE). */
  readonly directAdvertise?: readonly string[];
  /** Warm end-to-end streams an inlet keeps ready for new clients (0: all clients ride the session). @default 2 */
  readonly warmStreams?: number;
  /** Target connections an outlet holds at once (held under the descriptor limit). @default defaultConnectionBounds */
  readonly connectionBounds?: ConnectionBounds;
}

export interface RunningNode {
  readonly statusPort: number;
  readonly identity: () => StoredIdentity;
  /** Settles when the node stops; rejects on a fatal error (such as a relay its ticket does not grant). */
  readonly finished: Promise<void>;
  /** Takes no new clients, sessions or streams; the connections carried go on until stop(). */
  stopAccepting(): void;
  /** Client connections (inlet) and target connections (outlet) carried right now. */
  openConnections(): number;
  /** Settles once no connection is carried. */
  whenIdle(): Promise<void>;
  /** Closes everything at once: sessions, warm streams, connections, listeners. */
  stop(): Promise<void>;
}

export const nodeDirectory = (home: string) => join(home, 'node');
export const runtimeFile = (home: string) => join(home, 'node', 'runtime.json');

export async function startNode(options: NodeOptions): Promise<RunningNode> {
  const claim = await claimHome({ file: runtimeFile(options.home), what: 'a node', home: options.home });
  try {
    return await startClaimed(options, claim);
  } catch (error) {
    await claim.release();
    throw error;
  }
}

async function startClaimed(options: NodeOptions, claim: HomeClaim): Promise<RunningNode> {
  const { config, logger } = options;
  const directory = nodeDirectory(options.home);
  const stored = await loadIdentity(directory, { warn: (line) => logger.warn(line) });
  // Everything that can be checked is checked before a ticket is used: a refused start spends nothing.
  const ticket = stored || !options.ticket ? undefined : decodeTicket(options.ticket);
  if (!stored && !ticket) {
    throw new InputError(
      'NO_IDENTITY',
      `this node has no identity in ${directory} yet, and no enrollment ticket was given`,
      {
        hint: 'give --enrollment-ticket, ENROLLMENT_TICKET or a ticket key in --node-config (the contents of the .ticket file)',
      },
    );
  }
  const misfit = stored
    ? identityMisfit(
        config,
        { relays: stored.record.relays, tls: stored.record.tls, relayNode: false },
        {
          kind: 'enrolled',
          nodeId: stored.record.nodeId,
          projectId: stored.record.projectId,
          ticketGiven: options.ticket !== undefined,
        },
      )
    : ticket?.grants
      ? identityMisfit(
          config,
          {
            relays: ticket.grants.relay ? [ticket.grants.relay] : [],
            tls: ticket.grants.tls === true,
            relayNode: ticket.grants.relayNode === true,
          },
          { kind: 'ticket' },
        )
      : undefined;
  if (misfit) throw misfit;
  const inletConfig = config['tcp-inlet'];
  const listener = inletConfig ? await bindInletListener(inletConfig.from) : undefined;
  const directAddress = inletConfig ? directListenAddress(inletConfig.direct) : undefined;
  const direct = directAddress
    ? await DirectListener.bind(directAddress, options.directAdvertise).catch((error: unknown) => {
        listener?.close();
        throw error;
      })
    : undefined;
  let current: StoredIdentity | undefined = stored;
  const startedAt = Date.now();
  let show: () => NodeShow = () => ({ status: current ? 'starting' : 'enrolling', version, problems: [] });
  const metrics = createMetrics();
  const status = await startStatusServer({
    port: config['http-server-port'] ?? product.statusPort,
    show: () => show(),
    registry: metrics.registry,
  }).catch((error) => {
    listener?.close();
    void direct?.close();
    throw error;
  });
  const closeEarly = () => {
    listener?.close();
    void direct?.close();
    status.server.close();
  };
  try {
    await claim.update({ statusPort: status.port });
    if (!current) {
      current = await enrollWithTicket(directory, options.ticket as string);
      logger.info(
        `enrolled as ${current.record.nodeId} in project ${current.record.projectId} with ${current.record.attributes.length === 1 ? 'attribute' : 'attributes'} ${current.record.attributes.join(', ') || '(none)'}`,
      );
    } else if (options.ticket) {
      logger.info(`already enrolled as ${current.record.nodeId}; the enrollment ticket is not needed and was not used`);
    }
  } catch (error) {
    closeEarly();
    throw error;
  }
  try {
    return await runEnrolled(options, current, {
      listener,
      direct,
      status,
      metrics,
      startedAt,
      claim,
      setShow: (next) => (show = next),
    });
  } catch (error) {
    closeEarly();
    throw error;
  }
}

interface Prepared {
  readonly listener: Server | undefined;
  readonly direct: DirectListener | undefined;
  readonly status: { readonly server: HttpServer; readonly port: number };
  readonly metrics: ReturnType<typeof createMetrics>;
  readonly startedAt: number;
  readonly claim: HomeClaim;
  readonly setShow: (show: () => NodeShow) => void;
}

async function runEnrolled(options: NodeOptions, identity: StoredIdentity, prepared: Prepared): Promise<RunningNode> {
  const { config, logger } = options;
  const directory = nodeDirectory(options.home);
  const { listener, direct, status, metrics, startedAt } = prepared;
  let current = identity;
  const heartbeat = options.heartbeat ?? { intervalMs: 5000, timeoutMs: 10_000 };
  const newBackoff = () => new Backoff(options.backoff ?? {});
  const credentials = (): SessionCredentials => ({
    key: current.privateKey,
    certificate: current.certificate,
    authority: current.authority,
    projectId: current.record.projectId,
  });
  const control = new StandingChannel<ControllerOperations>({
    target: controllerTarget(current.record),
    credentials: () => ({ key: current.privateKey, certificate: current.certificate }),
    logger,
    heartbeatMs: heartbeat.intervalMs,
    backoff: newBackoff(),
  });

  let fail: (error: PortalError) => void = () => undefined;
  let finish: () => void = () => undefined;
  const finished = new Promise<void>((resolve, reject) => {
    fail = reject;
    finish = resolve;
  });

  // The relays come from the controller and are remembered: with the controller away, the node still
  // reaches them, and so do its sessions and new clients.
  const relays = new RelayLinks({
    credentials: () => ({ key: current.privateKey, certificate: current.certificate }),
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
    if (event.event === 'relays' && Array.isArray(event.relays)) relays.update(event.relays);
  });

  const part: PartContext = { relays, credentials, logger, metrics, heartbeat };
  const outletConfig = config['tcp-outlet'];
  const connectionBounds = outletConfig
    ? await outletConnectionBounds(options.connectionBounds ?? defaultConnectionBounds, logger)
    : undefined;
  const outlet = outletConfig
    ? new Outlet({
        ...part,
        relay: config.relay as string,
        to: outletConfig.to,
        allow: outletConfig.allow,
        tls: outletConfig.tls === true,
        control,
        onFatal: (error) => fail(error),
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
          ...(options.warmStreams === undefined ? {} : { warmStreams: options.warmStreams }),
        })
      : undefined;

  const renewal = new Renewal({
    directory,
    current: () => current,
    update: (refreshed) => {
      current = refreshed.identity;
      inlet?.rotate();
    },
    control,
    logger,
    holder: 'this node',
  });
  relays.on('down', () => metrics.failures.inc({ reason: 'relay_lost' }));
  let validity = { certificate: '', until: 0 };
  const facts = (): NodeFacts => {
    if (validity.certificate !== current.certificate)
      validity = {
        certificate: current.certificate,
        until: Date.parse(new X509Certificate(current.certificate).validTo),
      };
    return {
      now: Date.now(),
      validUntil: validity.until,
      renewalError: renewal.error,
      controller: current.record.controller,
      controllerConnected: control.connected,
      relays: relays.describe(),
      outlet: outlet?.describe(),
      inlet: inlet?.describe(),
    };
  };
  // Up: able to carry traffic right now (the inlet has a session; the outlet is registered on a relay
  // or has inlets on the direct path), with nothing else in the way. Announced the first time.
  prepared.setShow(() => {
    const known = facts();
    const { now, validUntil } = known;
    const { problems, warnings } = assessNode(known);
    return {
      name: current.record.nodeId,
      status: problems.length === 0 ? 'up' : announced ? 'down' : 'starting',
      problems,
      warnings,
      version,
      uptime_seconds: Math.round((now - startedAt) / 1000),
      identity: {
        node_id: current.record.nodeId,
        attributes: current.record.attributes,
        relays: current.record.relays,
        valid_until: new Date(validUntil).toISOString(),
        expired: now >= validUntil,
      },
      project: {
        id: current.record.projectId,
        controller: current.record.controller,
        network_domain: current.record.networkDomain,
      },
      controller: control.connected ? 'connected' : 'reconnecting',
      outlets: known.outlet ? [known.outlet] : [],
      inlets: known.inlet ? [known.inlet] : [],
      relays: known.relays,
    };
  });

  let announced = false;
  let accepting = true;
  let stopped = false;
  inlet?.start();
  outlet?.start();
  control.start();

  logger.info(
    listeningLine({
      nodeId: current.record.nodeId,
      inlet: inlet?.address,
      direct: direct?.listening,
      status: status.port,
    }),
  );
  const watch = setInterval(() => {
    if (!announced && assessNode(facts()).problems.length === 0) {
      announced = true;
      logger.announce(product.setupCompletedLine);
      clearInterval(watch);
    }
  }, 50);

  renewal.start();

  // Stopping in two steps (graceful-stop.ts): nothing new is taken, then what is left is closed.
  const stopAccepting = () => {
    if (!accepting) return;
    accepting = false;
    clearInterval(watch);
    renewal.stop();
    control.stop();
    // Without its relay connections the outlet is no longer registered: relays send it no new dials.
    relays.stop();
    outlet?.stopAccepting();
    inlet?.stopAccepting();
  };
  const openConnections = () => (inlet?.openConnections() ?? 0) + (outlet?.openConnections() ?? 0);
  return {
    statusPort: status.port,
    identity: () => current,
    finished,
    stopAccepting,
    openConnections,
    async whenIdle() {
      await Promise.all([inlet?.whenIdle(), outlet?.whenIdle()]);
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      stopAccepting();
      outlet?.stop();
      await inlet?.stop();
      const closed = new Promise<void>((resolve) => status.server.close(() => resolve()));
      status.server.closeAllConnections();
      await closed;
      await prepared.claim.release();
      finish();
    },
  };
}

/** Where the direct path listens: every address on a port the system picks unless configured; none when false. */
function directListenAddress(direct: boolean | string | undefined): string | undefined {
  if (direct === false) return undefined;
  return typeof direct === 'string' ? direct : '0.0.0.0:0';
}

/** The outlet's bounds on target connections, held under this process's descriptor limit (said once when it lowers them). */
async function outletConnectionBounds(requested: ConnectionBounds, logger: Logger): Promise<ConnectionBounds> {
  const limits = await readFile('/proc/self/limits', 'utf8').catch(() => '');
  const limit = descriptorLimitOf(limits);
  const { bounds, clamped } = boundsWithin(requested, limit);
  if (clamped) {
    logger.warn(
      `outlet: the descriptor limit of ${limit} allows ${bounds.total} target connections at once (${bounds.perInlet} per inlet), fewer than the ${requested.total} (${requested.perInlet}) asked for; raise it with ulimit -n or LimitNOFILE=`,
    );
  }
  return bounds;
}
