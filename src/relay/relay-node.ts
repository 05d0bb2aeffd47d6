/**
 * A standalone relay: a member of one project, enrolled once with a ticket that grants the relay role
 * (its identity under <home>/relay, like a node's), serving the relay on a port of its own with a TLS
 * certificate of its own, and announcing that port to the controller, which tells the project's nodes.
 * Only the announcement and the relay's own certificate renewal need the controller: splices go on
 * while it is away.
 */
import { followControllers } from '../node/controller-addresses.ts';
import { startClaimed, type HomeClaim } from '../node/home-claim.ts';
import { X509Certificate } from 'node:crypto';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { collectProcessMetrics } from '../shared/process-metrics.ts';
import { fingerprintOf } from '../pki/authority.ts';
import { identityOf } from '../pki/identity.ts';
import { verifyMember } from '../pki/verify.ts';
import { InputError, RuntimeFailure } from '../shared/errors.ts';
import { loadServerCertificate, type ServerCertificate } from '../shared/sealed-server-certificate.ts';
import { keysDirectory, readSealingKey } from '../shared/sealing-key.ts';
import { AuditOutbox } from '../node/audit-outbox.ts';
import { AuditSink } from '../node/audit-sink.ts';
import { Backoff } from '../node/backoff.ts';
import { enrollWithTicket } from '../node/enrollment.ts';
import { loadIdentity, type StoredIdentity } from '../node/identity-store.ts';
import type { Logger } from '../node/logger.ts';
import { Renewal } from '../node/renewal.ts';
import { followRevocations, reportSessions } from '../node/revocation-feed.ts';
import { RevocationList } from '../node/revocation-list.ts';
import { StandingChannel } from '../node/standing-channel.ts';
import { controllerTarget } from '../wire/control-channel.ts';
import { heartbeatIntervalMs } from '../wire/limits.ts';
import type { ControllerEvent, ControllerOperations } from '../wire/protocol.ts';
import { decodeTicket, encodeTicket } from '../wire/ticket.ts';
import { RelayHealth } from './relay-health.ts';
import { RelayServer } from './server.ts';
import type { Draining } from '../shared/graceful-stop.ts';
import { OperationsTally, registerTally } from '../shared/operations-tally.ts';
import { serveStatus } from '../shared/process-status.ts';
import type { RunningStatusServer } from '../shared/status-server.ts';

export interface RelayNodeOptions {
  /**
   * PORTAL_HOME: the relay keeps its identity and TLS certificate in <home>/relay, their sealing key in
   * <home>/keys.
   */
  readonly home: string;
  readonly ticket?: string;
  /** host:port to listen on (port 0 picks one). */
  readonly listen: { readonly host: string; readonly port: number };
  /** host:port nodes dial, announced to the controller. @default the listening address */
  readonly publicAddress?: string;
  /** host:port of the controller, when nodes reach it by another address than the ticket's. */
  readonly controller?: string;
  readonly logger: Logger;
  /** Heartbeat on the controller channel. @default heartbeatIntervalMs */
  readonly heartbeatMs?: number;
  /** Splice no new session while the list of revoked members is older than this. @default no bound */
  readonly revocationMaxAgeMs?: number;
  /** Where GET /metrics and GET /healthz are served (`flag`: the address as given); none when undefined. */
  readonly status?: { readonly host: string; readonly port: number; readonly flag: string };
}

/** Draining: takes no new members or splices, while the splices carried go on until stop(). */
export interface RunningRelayNode extends Draining {
  readonly nodeId: string;
  readonly projectId: string;
  /** Where it listens, and the address it announced. */
  readonly listening: string;
  readonly address: string;
  readonly fingerprint: string;
  readonly server: RelayServer;
  /** Its Prometheus metrics, with the process's own. */
  readonly registry: Registry;
  /** What the audit trail counts here (records kept until the controller takes them). */
  readonly tally: OperationsTally;
  /** host:port of its status server, when it serves one. */
  readonly status?: string;
  stop(): Promise<void>;
}

export const relayDirectory = (home: string) => join(home, 'relay');
/** The key that seals the relay's identity (named by its directory, as for every identity) and its TLS key. */
export const relaySealingKeyFile = (home: string) => join(keysDirectory(home), 'relay-seal.key');

export async function startRelayNode(options: RelayNodeOptions): Promise<RunningRelayNode> {
  const claim = { file: join(relayDirectory(options.home), 'runtime.json'), what: 'a relay', home: options.home };
  return startClaimed(claim, (held) => startOnClaim(options, held));
}

async function startOnClaim(options: RelayNodeOptions, claim: HomeClaim): Promise<RunningRelayNode> {
  const directory = relayDirectory(options.home);
  const warn = (line: string) => options.logger.warn(line);
  const stored = await loadIdentity(directory, { warn });
  let current: StoredIdentity;
  if (stored) {
    current = stored;
    if (options.ticket)
      options.logger.info(
        `already enrolled as relay ${current.record.nodeId}; the enrollment ticket is not needed and was not used`,
      );
  } else {
    if (!options.ticket) {
      throw new InputError(
        'NO_IDENTITY',
        `this relay has no identity in ${directory} yet, and no enrollment ticket was given`,
        {
          hint: 'give --enrollment-ticket-file or ENROLLMENT_TICKET: a ticket from portal project ticket --relay-node',
        },
      );
    }
    // Checked before the ticket is used: a refused start spends nothing.
    if (decodeTicket(options.ticket).grants?.relayNode !== true) {
      throw new InputError('NOT_A_RELAY_TICKET', 'this enrollment ticket does not grant the relay role', {
        hint: 'issue one with portal project ticket --relay-node',
      });
    }
    // Where this machine reaches the controller, when not at the ticket's address (inside a cluster, say).
    const ticket = options.controller
      ? encodeTicket({ ...decodeTicket(options.ticket), controller: options.controller })
      : options.ticket;
    current = await enrollWithTicket(directory, ticket);
    options.logger.info(`enrolled as relay ${current.record.nodeId} in project ${current.record.projectId}`);
  }
  if (!identityOf(current.certificate)?.relayNode) {
    throw new InputError('NOT_A_RELAY', `the identity in ${directory} is not a relay node's`, {
      hint: 'enroll the relay with a ticket from portal project ticket --relay-node, under its own PORTAL_HOME',
    });
  }
  const tls = await serverCertificate(options.home, directory, options.logger);
  const fingerprint = fingerprintOf(tls.certificate);
  const authority = new X509Certificate(current.authority);
  const projectId = current.record.projectId;
  const log = (line: string) => options.logger.info(line);
  const revocations = new RevocationList({
    file: join(directory, 'revoked.json'),
    logger: options.logger,
    ...(options.revocationMaxAgeMs !== undefined ? { maxAgeMs: options.revocationMaxAgeMs } : {}),
  });
  await revocations.restore();
  // Members wait for the list the controller gives (briefly): the one on disk may miss revocations.
  revocations.fetchStarted();
  // Made once the controller channel is (below); a refusal before that is not recorded.
  const audit: { sink?: AuditSink } = {};
  const registry = new Registry();
  collectProcessMetrics(registry, 'portal_relay_');
  const tally = new OperationsTally();
  registerTally(registry, tally, ['pending']);
  const server = new RelayServer({
    stale: () => revocations.stale(),
    relay: {
      onRefused: (peer, reason, relay, detail) => audit.sink?.forPortal(relay).refused(reason, peer.nodeId, detail),
    },
    registry,
    // Named by no relay yet: the member is refused at its connection, before it asks for one.
    onRevokedRefused: (nodeId) =>
      audit.sink?.refusedMember('revoked', nodeId, 'its certificate was revoked from the project'),
    // Members of this relay's project only.
    verifyPeer: async (certificate) => {
      const member = verifyMember(certificate, authority);
      if (member?.projectId !== projectId) return undefined;
      // A relay that is fetching its list of revoked members takes no member before it is in.
      await revocations.ready();
      return member;
    },
    log,
  });
  // Revoked members are refused from the list kept on disk, before the first connection is taken.
  for (const { nodeId } of revocations.revoked()) server.cutMember(nodeId);
  revocations.on('revoked', (nodeId: string) => {
    const cut = server.cutMember(nodeId);
    if (cut > 0) audit.sink?.revokedCut(nodeId, cut);
  });
  const { address: bound } = await server.listen(options.listen.host, options.listen.port, {
    key: tls.privateKey,
    certificate: tls.certificate,
  });
  const host = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address;
  const listening = `${host}:${bound.port}`;
  const address =
    options.publicAddress ?? `${host === '0.0.0.0' || host === '[::]' ? '127.0.0.1' : host}:${bound.port}`;

  const pin = options.controller ? { ...current.record, controller: options.controller } : current.record;
  const health = new RelayHealth(pin.controller);
  health.register(registry);
  let status: RunningStatusServer | undefined;
  try {
    status = options.status
      ? await serveStatus({
          listen: options.status,
          flag: options.status.flag,
          process: 'relay',
          registries: [registry],
          health: () => health.problem(),
        })
      : undefined;
  } catch (error) {
    await server.close();
    throw error;
  }
  if (status) await claim.update({ statusPort: status.port, statusAddress: status.address });
  const control = new StandingChannel<ControllerOperations>({
    target: controllerTarget(pin),
    credentials: () => ({ key: current.privateKey, certificate: current.certificate }),
    logger: options.logger,
    heartbeatMs: options.heartbeatMs ?? heartbeatIntervalMs,
    backoff: new Backoff(),
  });
  followRevocations(control, revocations, options.logger);
  reportSessions(control, () => server.openConnections(), options.heartbeatMs ?? heartbeatIntervalMs);
  control.on('up', () => {
    control.request('relay-announce', { address, fingerprint }).then(
      () => {
        health.announced();
        options.logger.info(
          `relay ${current.record.nodeId} announced at ${address} to the controller ${control.reached}`,
        );
      },
      (error: Error) => {
        health.refused(error.message);
        options.logger.warn(`the controller did not take the announcement: ${error.message}`);
      },
    );
  });
  control.on('down', () => health.lost());
  // Controller replicas say where they all are; kept unless --controller names where to go.
  const replicas = { directory, current: () => current, control, logger: options.logger };
  control.on('event', (event: ControllerEvent) => {
    if (event.event === 'controllers' && !options.controller)
      followControllers({ ...replicas, update: (next) => (current = next) }, event.addresses).catch((error: Error) =>
        options.logger.warn(`could not keep the controller replicas' addresses: ${error.message}`),
      );
  });
  const renewal = new Renewal({
    directory,
    current: () => current,
    update: (refreshed) => {
      current = refreshed.identity;
    },
    control,
    logger: options.logger,
    holder: 'this relay',
  });
  const outbox = new AuditOutbox({ file: join(directory, 'audit-outbox.jsonl'), control, logger: options.logger });
  audit.sink = new AuditSink(outbox, () => current.record.nodeId);
  tally.auditRecordsPendingFrom(() => outbox.stats().pending);
  await outbox.start();
  control.start();
  renewal.start();
  return {
    nodeId: current.record.nodeId,
    projectId,
    listening,
    address,
    fingerprint,
    server,
    registry,
    tally,
    ...(status ? { status: status.address } : {}),
    stopAccepting() {
      health.stop();
      renewal.stop();
      control.stop();
      server.stopAccepting();
    },
    openConnections: () => server.openConnections(),
    whenIdle: () => server.whenIdle(),
    async stop() {
      health.stop();
      renewal.stop();
      control.stop();
      await status?.close();
      await server.close();
      audit.sink?.close();
      await outbox.stop();
      await claim.release();
    },
  };
}

/**
 * The relay's own TLS certificate, made on first start and kept (nodes pin its fingerprint), its key
 * sealed under the key that seals the relay's identity, which loading or enrolling that identity made.
 */
async function serverCertificate(home: string, directory: string, logger: Logger): Promise<ServerCertificate> {
  const keyFile = relaySealingKeyFile(home);
  const warn = (line: string) => logger.warn(line);
  const sealingKey = await readSealingKey({ kind: 'file', path: keyFile }, warn);
  if (!sealingKey) {
    throw new RuntimeFailure(
      'SEALING_KEY_MISSING',
      `the sealing key file ${keyFile} of the relay in ${directory} does not exist`,
      {
        hint:
          `put the file back; without it this relay's identity cannot be used: ` +
          `remove ${directory} and enroll again with a new ticket`,
      },
    );
  }
  return loadServerCertificate({
    directory,
    commonName: 'portal-relay',
    sealingKey,
    sealingKeyName: keyFile,
    howToGiveKey: `put back the file ${keyFile}`,
    log: (line) => logger.info(line),
    warn,
  });
}
