/**
 * An enrolled node at work: its portals started, its credentials renewed, its status served and
 * announced the first time it is up, its configuration reloaded on request; stopped in two steps
 * (graceful-stop.ts).
 */
import { writeFile } from 'node:fs/promises';
import type { Server as HttpServer } from 'node:http';
import type { PortalError } from '../shared/errors.ts';
import { product } from '../shared/product.ts';
import type { HomeClaim } from './home-claim.ts';
import type { StoredIdentity } from './identity-store.ts';
import { listeningLine } from './listening.ts';
import type { NodeMetrics } from './metrics.ts';
import type { InletListeners } from './node-listeners.ts';
import type { NodeOptions } from './node-options.ts';
import { assembleParts } from './node-parts.ts';
import { followControllers } from './controller-addresses.ts';
import type { NodePortals } from './portals.ts';
import { sameGrants } from './enrollment.ts';
import { Reloader, type ReloadOutcome } from './reload.ts';
import { Renewal } from './renewal.ts';
import { RunningShow } from './running-show.ts';
import { revokedLine, revokedNoteFile } from './self-revocation.ts';
import { assessNode, type NodeShow } from './show.ts';
import type { ControllerEvent } from '../wire/protocol.ts';
import { heartbeatIntervalMs, heartbeatTimeoutMs } from '../wire/limits.ts';
import { leaveNoticeMs } from './limits.ts';

export interface RunningNode {
  readonly statusPort: number;
  readonly identity: () => StoredIdentity;
  /** Settles when the node stops; rejects on a fatal error (such as a relay its ticket does not grant). */
  readonly finished: Promise<void>;
  /**
   * Reads the configuration file again and applies what changed (SIGHUP, `portal node reload`);
   * settles with the outcome, which /show gives too. The running configuration stays when it is refused.
   */
  reload(): Promise<ReloadOutcome>;
  /** Takes no new clients, sessions or streams; the connections carried go on until stop(). */
  stopAccepting(): Promise<void>;
  /** Client connections (inlets) and target connections (outlets) carried right now. */
  openConnections(): number;
  /** Settles once no connection is carried. */
  whenIdle(): Promise<void>;
  /** Closes everything at once: sessions, warm streams, connections, listeners. */
  stop(): Promise<void>;
}

/** What the node holds before it runs: its listeners, status server and metrics, and its claim on the home. */
export interface PreparedNode {
  /** Where the node keeps its identity. */
  readonly directory: string;
  /** The portals it starts with, and their inlets' listeners, by portal name. */
  readonly portals: NodePortals;
  readonly listeners: ReadonlyMap<string, InletListeners>;
  readonly status: { readonly server: HttpServer; readonly port: number };
  readonly metrics: NodeMetrics;
  readonly startedAt: number;
  readonly claim: HomeClaim;
  readonly setShow: (show: () => NodeShow) => void;
}

export async function runEnrolled(
  options: NodeOptions,
  identity: StoredIdentity,
  prepared: PreparedNode,
): Promise<RunningNode> {
  const { logger } = options;
  const { directory, status, metrics, startedAt } = prepared;
  let current = identity;
  const heartbeat = options.heartbeat ?? { intervalMs: heartbeatIntervalMs, timeoutMs: heartbeatTimeoutMs };

  let fail: (error: PortalError) => void = () => undefined;
  let finish: () => void = () => undefined;
  const finished = new Promise<void>((resolve, reject) => {
    fail = reject;
    finish = resolve;
  });

  const { control, relays, portals, outbox, audit, liveSessions } = await assembleParts({
    node: options,
    directory,
    identity: () => current,
    metrics,
    heartbeat,
    onFatal: (error) => fail(error),
  });

  const renewal = new Renewal({
    directory,
    current: () => current,
    update: (refreshed) => {
      const before = current;
      current = refreshed.identity;
      if (!sameGrants(before.record, current.record)) {
        // Relays and the controller read a member's grants from the certificate its connection opened
        // with: new ones (a relay name granted since) take new connections. Open sessions are not these.
        logger.info(
          `this node's certificate grants the relay names ${current.record.relays.join(', ') || 'none'} now; ` +
            'reconnecting to the controller and the relays with it',
        );
        relays.reconnect();
        control.reconnect();
      }
      // Open sessions carry the renewed certificate to their peers, which move their end to its end.
      const sent = liveSessions.announce(current.certificate);
      logger.debug(`sent the renewed certificate on ${sent} session(s)`);
      portals.rotate();
    },
    control,
    logger,
    holder: 'this node',
    onRevoked: () => stopRevoked('the controller refuses it a certificate'),
  });
  const controllers = {
    directory,
    current: () => current,
    update: (next: StoredIdentity) => (current = next),
    control,
    logger,
  };
  control.on('event', (event: ControllerEvent) => {
    if (event.event === 'controllers')
      followControllers(controllers, event.addresses).catch((error: Error) =>
        logger.warn(`could not keep the controller replicas' addresses: ${error.message}`),
      );
  });
  // A refused certificate may mean the node was revoked: the controller is asked, and says so if it was.
  control.on('refused', () => renewal.checkNow());
  relays.on('refused', () => renewal.checkNow());
  relays.on('down', () => metrics.failures.inc({ reason: 'relay_lost' }));
  const reloader = new Reloader({
    node: options,
    portals,
    identity: () => current,
    refreshGrants: async () => {
      await renewal.renewNow();
      return current;
    },
  });
  const running = new RunningShow({
    identity: () => current,
    startedAt,
    control,
    relays,
    renewal,
    portals,
    reloads: () => reloader.state(),
  });
  // GET /show from now on; the node is announced the first time it is up (below).
  prepared.setShow(() => running.show(announced, revoked));

  let announced = false;
  /** The line the node logged when its project revoked it; it is what the node says from then on. */
  let revoked: string | undefined;
  let portalsStopped: Promise<void> | undefined;
  const stopPortals = () => (portalsStopped ??= portals.stop());
  let accepting = true;
  let stopped = false;
  // Renewal first: starting the portals takes a while, and a short certificate must not lapse meanwhile.
  renewal.start();
  await portals.start(prepared.portals, prepared.listeners);
  await outbox.start();
  control.start();

  const shown = portals.describe();
  logger.info(
    listeningLine({
      nodeId: current.record.nodeId,
      inlets: [...portals.inlets.values()].map(({ portal, inlet }, index) => ({
        portal,
        clients: inlet.address,
        direct: shown.inlets[index]?.direct ?? undefined,
      })),
      status: status.port,
    }),
  );
  const watch = setInterval(() => {
    if (!announced && assessNode(running.facts()).problems.length === 0) {
      announced = true;
      logger.announce(product.setupCompletedLine);
      clearInterval(watch);
    }
  }, 50);

  // Stopping in two steps (graceful-stop.ts): nothing new is taken, then what is left is closed.
  const stopAccepting = () => {
    if (!accepting) return;
    accepting = false;
    clearInterval(watch);
    renewal.stop();
    control.stop();
    // Without its relay connections the outlet is no longer registered: relays send it no new dials.
    relays.stop();
    portals.stopAccepting();
  };
  // Revoked for good: said once, then nothing is tried again; the status server says so until stopped.
  const stopRevoked = (why: string) => {
    if (revoked !== undefined || stopped) return;
    revoked = revokedLine(current.record, why);
    logger.error(revoked);
    stopAccepting();
    void stopPortals();
    const note = { node_id: current.record.nodeId, revoked_at: new Date().toISOString() };
    void writeFile(revokedNoteFile(directory), `${JSON.stringify(note)}\n`, { mode: 0o644 }).catch((error: Error) =>
      logger.debug(`could not note the revocation beside the identity: ${error.message}`),
    );
  };

  return {
    statusPort: status.port,
    identity: () => current,
    finished,
    reload: () => reloader.reload(),
    // A drain: the outlets first leave their pools, so that no inlet opens anything here that would
    // then be refused; then nothing new is taken.
    async stopAccepting() {
      if (accepting) await portals.leavePools(leaveNoticeMs);
      stopAccepting();
    },
    openConnections: () => portals.openConnections(),
    whenIdle: () => portals.whenIdle(),
    async stop() {
      if (stopped) return;
      stopped = true;
      stopAccepting();
      await stopPortals();
      audit.close();
      await outbox.stop();
      const closed = new Promise<void>((resolve) => status.server.close(() => resolve()));
      status.server.closeAllConnections();
      await closed;
      await prepared.claim.release();
      finish();
    },
  };
}
