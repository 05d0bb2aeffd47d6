/**
 * The controller's Prometheus metrics (GET /metrics on its status server): members by kind, relays,
 * direct paths, enrollments, renewals and re-issues, the revocations and audit records the tally counts
 * (src/shared/operations-tally.ts), and the families every member service has (request latency by
 * operation, refusals by operation and reason, admission limits: src/wire/service-metrics.ts).
 */
import { Counter, type Registry } from 'prom-client';
import { readGauge, single } from '../shared/metric-families.ts';
import { registerTally, type OperationsTally } from '../shared/operations-tally.ts';
import type { EnrollmentAnswer } from '../wire/protocol.ts';
import type { AnsweredRequest } from '../wire/service-connection.ts';
import { registerServiceMetrics, type ServiceFigures } from '../wire/service-metrics.ts';
import type { MemberKind } from './member-counts.ts';

export interface ControllerSources {
  /** Members of every project, by kind (a store query, made when scraped). */
  readonly members: () => Promise<Record<MemberKind, number>>;
  /** Relays serving every project (the embedded one), and relay nodes announced now. */
  readonly relays: () => { readonly everywhere: number; readonly announced: number };
  readonly figures: () => ServiceFigures & {
    readonly directPaths: number;
    readonly reported: { readonly node: number; readonly relay: number };
  };
  readonly tally: OperationsTally;
}

/** Registers the controller's families; returns what its member service is told of each answered request. */
export function registerControllerMetrics(
  registry: Registry,
  sources: ControllerSources,
): (answered: AnsweredRequest) => void {
  readGauge({
    registry,
    name: 'portal_controller_members',
    help: 'Members of the projects this controller hosts, by kind: admin, node, relay, revoked (of any kind)',
    labelNames: ['kind'],
    read: async () => Object.entries(await sources.members()).map(([kind, count]) => [{ kind }, count] as const),
  });
  readGauge({
    registry,
    name: 'portal_controller_relays',
    help: 'Relays members are told of: embedded (in the controller, serving every project) and announced relay nodes',
    labelNames: ['kind'],
    read: () => {
      const { everywhere, announced } = sources.relays();
      return [
        [{ kind: 'embedded' }, everywhere],
        [{ kind: 'node' }, announced],
      ];
    },
  });
  readGauge({
    registry,
    name: 'portal_controller_direct_paths',
    help: 'Direct paths inlets advertise now (one per inlet and relay name)',
    read: () => single(sources.figures().directPaths),
  });
  readGauge({
    registry,
    name: 'portal_controller_reported_connections',
    help:
      'What connected members reported carrying at their last heartbeat, by kind: node (end-to-end connections, ' +
      'so a session counts at both its nodes), relay (splices)',
    labelNames: ['kind'],
    read: () => {
      const { node, relay } = sources.figures().reported;
      return [
        [{ kind: 'node' }, node],
        [{ kind: 'relay' }, relay],
      ];
    },
  });
  const enrollments = new Counter({
    name: 'portal_controller_enrollments_total',
    help: 'Members enrolled, by kind: admin (with an admin code), node, relay (with a ticket)',
    labelNames: ['kind'],
    registers: [registry],
  });
  const renewals = new Counter({
    name: 'portal_controller_renewals_total',
    help: 'Certificates renewed for members whose certificate was still valid',
    registers: [registry],
  });
  const reissues = new Counter({
    name: 'portal_controller_reissues_total',
    help: 'Certificates re-issued to members whose certificate had expired (on proof of the enrolled key)',
    registers: [registry],
  });
  const tickets = new Counter({
    name: 'portal_controller_tickets_issued_total',
    help: 'Enrollment tickets issued by administrators',
    registers: [registry],
  });
  registerTally(registry, sources.tally, ['revocations', 'written', 'pending']);
  const service = registerServiceMetrics(registry, 'portal_controller', sources.figures);
  return (answered) => {
    service(answered);
    if (answered.code !== undefined) return;
    if (answered.op === 'admin-enroll') enrollments.inc({ kind: 'admin' });
    else if (answered.op === 'enroll')
      enrollments.inc({ kind: (answered.answer as EnrollmentAnswer).identity.relayNode ? 'relay' : 'node' });
    else if (answered.op === 'renew') renewals.inc();
    else if (answered.op === 'reissue') reissues.inc();
    else if (answered.op === 'ticket') tickets.inc();
  };
}
