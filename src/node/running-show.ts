/**
 * What a running node says of itself: the facts its status is assessed from (show.ts), and the
 * whole of GET /show.
 */
import { X509Certificate } from 'node:crypto';
import type { StoredIdentity } from './identity-store.ts';
import type { NodePortalSet } from './node-portals.ts';
import type { RelayLinks } from './relay-links.ts';
import type { Renewal } from './renewal.ts';
import { nodeState } from './portal-health.ts';
import { assessNode, type NodeFacts, type NodeShowRunning, type ReloadShow } from './show.ts';
import type { NodeControl } from './standing-channel.ts';
import { version } from './version.ts';

export interface RunningShowOptions {
  /** The node's identity now: it changes on renewal. */
  readonly identity: () => StoredIdentity;
  /** When the node started (epoch ms). */
  readonly startedAt: number;
  readonly control: NodeControl;
  readonly relays: RelayLinks;
  readonly renewal: Renewal;
  readonly portals: NodePortalSet;
  /** The reloads so far. */
  readonly reloads: () => ReloadShow;
}

export class RunningShow {
  /** The expiry of the certificate last read, so that each /show parses a certificate only once renewed. */
  private validity = { certificate: '', until: 0 };

  constructor(private readonly options: RunningShowOptions) {}

  facts(): NodeFacts {
    const { identity, renewal, control, relays, portals } = this.options;
    const current = identity();
    if (this.validity.certificate !== current.certificate)
      this.validity = {
        certificate: current.certificate,
        until: Date.parse(new X509Certificate(current.certificate).validTo),
      };
    return {
      now: Date.now(),
      validUntil: this.validity.until,
      renewalError: renewal.error,
      controller: current.record.controller,
      controllerConnected: control.connected,
      relays: relays.describe(),
      ...portals.describe(),
    };
  }

  /**
   * Up: able to carry traffic right now (every inlet has a session; every outlet is registered on a
   * relay or has inlets on the direct path), with nothing else in the way; degraded or down by the rule
   * of portal-health.ts otherwise. `announced`: it was up once, so that a node that cannot carry
   * traffic is down, not starting. `revoked`: why the node stopped for good, when it was revoked.
   */
  show(announced: boolean, revoked?: string): NodeShowRunning {
    const current = this.options.identity();
    const known = this.facts();
    const { now, validUntil } = known;
    const assessed = assessNode(known);
    const problems = revoked === undefined ? assessed.problems : [revoked];
    const portals =
      revoked === undefined
        ? assessed.portals
        : assessed.portals.map((portal) => ({ ...portal, state: 'down' as const, problems: [revoked] }));
    return {
      name: current.record.nodeId,
      status: nodeState({ revoked: revoked !== undefined, problems, portals, announced }),
      problems,
      warnings: assessed.warnings,
      version,
      uptime_seconds: Math.round((now - this.options.startedAt) / 1000),
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
      controller: this.options.control.connected ? 'connected' : 'reconnecting',
      portals,
      outlets: known.outlets,
      inlets: known.inlets,
      relays: known.relays,
      reload: this.options.reloads(),
    };
  }
}
