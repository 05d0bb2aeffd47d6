/**
 * The parts of an enrolled node, put together but not started: its standing connection to the
 * controller, its links to the relays, and the set of its portals (empty until started), all on the
 * node's current credentials.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { PortalError } from '../shared/errors.ts';
import { controllerTarget } from '../wire/control-channel.ts';
import type { SessionCredentials } from '../wire/e2e-session.ts';
import type { ControllerEvent, ControllerOperations } from '../wire/protocol.ts';
import { AuditOutbox } from './audit-outbox.ts';
import { AuditSink } from './audit-sink.ts';
import { Backoff } from './backoff.ts';
import {
  boundsWithin,
  defaultConnectionBounds,
  descriptorLimitOf,
  type ConnectionBounds,
} from './connection-bounds.ts';
import type { StoredIdentity } from './identity-store.ts';
import type { Logger } from './logger.ts';
import type { NodeMetrics } from './metrics.ts';
import type { NodeOptions } from './node-options.ts';
import { NodePortalSet } from './node-portals.ts';
import { RelayLinks } from './relay-links.ts';
import { followRevocations, reportSessions } from './revocation-feed.ts';
import { RevocationList, revocationMaxAgeMs } from './revocation-list.ts';
import { reportPortals } from './portal-reporter.ts';
import { StandingChannel, type NodeControl } from './standing-channel.ts';
import { PeerSockets, type PeerGuard } from '../wire/peer-guard.ts';
import { LiveSessions } from '../wire/session-credentials.ts';

export interface NodePartsOptions {
  readonly node: NodeOptions;
  /** Where the node keeps its identity, and the relays it knows. */
  readonly directory: string;
  /** The node's identity now: it changes on renewal. */
  readonly identity: () => StoredIdentity;
  readonly metrics: NodeMetrics;
  readonly heartbeat: { readonly intervalMs: number; readonly timeoutMs: number };
  /** A relay refused an outlet's registration for good. */
  readonly onFatal: (error: PortalError) => void;
}

export interface NodeParts {
  readonly control: NodeControl;
  readonly relays: RelayLinks;
  readonly portals: NodePortalSet;
  readonly revocations: RevocationList;
  /** Audit records waiting for the controller: started before the control channel, stopped last. */
  readonly outbox: AuditOutbox;
  readonly audit: AuditSink;
  /** The sessions a renewed certificate is sent on, so that they outlive the one they opened with. */
  readonly liveSessions: LiveSessions;
}

export async function assembleParts(options: NodePartsOptions): Promise<NodeParts> {
  const { node, directory, identity, metrics, heartbeat } = options;
  const { logger } = node;
  const newBackoff = () => new Backoff(node.backoff ?? {});
  // Revoked peers are refused from the list kept on disk until the controller gives the current one.
  const revocations = new RevocationList({
    file: join(directory, 'revoked.json'),
    logger,
    ...(node.config['revocation-max-age'] !== undefined
      ? { maxAgeMs: revocationMaxAgeMs(node.config['revocation-max-age']) }
      : {}),
  });
  await revocations.restore();
  const peers = new PeerSockets({
    // A peer whose certificate ran out with no renewed one proved: its connections end, as said here.
    onExpired: (nodeId, closed) =>
      logger.warn(
        `closed ${closed} connection(s) with ${nodeId}: its certificate expired and no renewed one reached this node`,
      ),
  });
  const guard: PeerGuard = {
    ready: () => revocations.ready(),
    refusal: (nodeId) => revocations.refusal(nodeId),
    track: (nodeId, socket, notAfter) => peers.track(nodeId, socket, notAfter),
    expiresAt: (nodeId) => peers.expiresAt(nodeId),
    renewed: (nodeId, notAfter) => peers.renewed(nodeId, notAfter),
  };
  const liveSessions = new LiveSessions();
  const credentials = (): SessionCredentials => ({
    key: identity().privateKey,
    certificate: identity().certificate,
    authority: identity().authority,
    projectId: identity().record.projectId,
    guard,
    sessions: liveSessions,
  });
  const control = new StandingChannel<ControllerOperations>({
    target: controllerTarget(identity().record),
    credentials: () => ({ key: identity().privateKey, certificate: identity().certificate }),
    logger,
    heartbeatMs: heartbeat.intervalMs,
    backoff: newBackoff(),
  });
  followRevocations(control, revocations, logger);
  reportSessions(control, () => peers.count, heartbeat.intervalMs);

  // The relays come from the controller and are remembered: with the controller away, the node still
  // reaches them, and so do its sessions and new clients.
  const relays = new RelayLinks({
    credentials: () => ({ key: identity().privateKey, certificate: identity().certificate }),
    logger,
    heartbeatMs: heartbeat.intervalMs,
    backoff: newBackoff,
    stateFile: join(directory, 'relays.json'),
  });
  // Every portal listens to both, and a reload adds and removes portals: their number is the bound.
  control.setMaxListeners(0);
  relays.setMaxListeners(0);
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

  // Sessions and refusals go to the controller's audit trail, and wait on disk while it is away.
  const outbox = new AuditOutbox({ file: join(directory, 'audit-outbox.jsonl'), control, logger });
  const audit = new AuditSink(outbox, () => identity().record.nodeId);
  metrics.tally.auditRecordsPendingFrom(() => outbox.stats().pending);
  revocations.on('revoked', (nodeId: string) => {
    const cut = peers.cut(nodeId);
    // A node hears of every revocation (a new one, of all those in force): news only where it cut something.
    const line = `${nodeId} was revoked from the project; closed ${cut} connection(s) with it`;
    if (cut > 0) {
      logger.info(line);
      audit.revokedCut(nodeId, cut);
    } else logger.debug(line);
  });

  let bounds: Promise<ConnectionBounds> | undefined;
  const portals = new NodePortalSet({
    node,
    relays,
    control,
    credentials,
    metrics,
    heartbeat,
    // Read once, when the first outlet needs them.
    connectionBounds: () =>
      (bounds ??= outletConnectionBounds(node.connectionBounds ?? defaultConnectionBounds, logger)),
    onFatal: options.onFatal,
    audit,
  });
  reportPortals(control, () => portals.report());
  return { control, relays, portals, revocations, outbox, audit, liveSessions };
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
