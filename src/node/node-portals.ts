/**
 * The portals a node carries now: one Outlet per outlet portal and one Inlet per inlet portal, all on
 * the node's relay links, controller channel, credentials and metrics. The relays' dials and refusals
 * reach the outlet of the relay name they name. A reload changes the set in place (portal-changes.ts);
 * what it takes away drains as a stopping node does, and counts as the node's until it is closed.
 */
import type { PortalError } from '../shared/errors.ts';
import type { SessionCredentials } from '../wire/e2e-session.ts';
import type { PortalReport, RelayEvent } from '../wire/protocol.ts';
import { Backoff } from './backoff.ts';
import type { ConnectionBounds } from './connection-bounds.ts';
import { Inlet } from './inlet.ts';
import { LogThrottle } from './log-throttle.ts';
import { portalMetrics, type NodeMetrics } from './metrics.ts';
import type { InletListeners } from './node-listeners.ts';
import type { NodeOptions } from './node-options.ts';
import { Outlet } from './outlet.ts';
import type { AuditSink } from './audit-sink.ts';
import { portalLogger } from './portal-logger.ts';
import { isNamed, portalLabel, type InletPortal, type NodePortals, type OutletPortal } from './portals.ts';
import type { RelayLink, RelayLinks } from './relay-links.ts';
import type { InletShow, OutletShow } from './show.ts';
import type { NodeControl } from './standing-channel.ts';

export interface NodePortalsOptions {
  readonly node: NodeOptions;
  readonly relays: RelayLinks;
  readonly control: NodeControl;
  readonly credentials: () => SessionCredentials;
  readonly metrics: NodeMetrics;
  readonly heartbeat: { readonly intervalMs: number; readonly timeoutMs: number };
  /** Target connections each outlet holds at once, under the descriptor limit (read when first needed). */
  readonly connectionBounds: () => Promise<ConnectionBounds>;
  /** A relay refused an outlet's registration for good. */
  readonly onFatal: (error: PortalError) => void;
  /** The node's audit records; none: nothing recorded. */
  readonly audit?: AuditSink;
}

/** A part the node no longer carries new work on, while what it carries finishes. */
export interface DrainingPart {
  openConnections(): number;
  whenIdle(): Promise<void>;
  stop(): Promise<void> | void;
}

export class NodePortalSet {
  /** By portal name, in the configuration's order. */
  outlets = new Map<string, { readonly portal: OutletPortal; readonly outlet: Outlet }>();
  inlets = new Map<string, { readonly portal: InletPortal; readonly inlet: Inlet }>();
  /** Parts a reload took away, until their connections finish or the drain time runs out. */
  readonly draining = new Set<DrainingPart>();
  private accepting = true;
  private readonly unrouted: LogThrottle;

  constructor(readonly options: NodePortalsOptions) {
    const { logger } = options.node;
    this.unrouted = new LogThrottle((line) => logger.warn(line));
    // One listener for every outlet: each dial goes to the outlet of the relay name it names.
    options.relays.on('event', (link: RelayLink, event: RelayEvent) => this.route(link, event));
  }

  /** The portals carried now. */
  portals(): NodePortals {
    return {
      outlets: [...this.outlets.values()].map(({ portal }) => portal),
      inlets: [...this.inlets.values()].map(({ portal }) => portal),
    };
  }

  /** Starts the portals of the configuration the node started with, the inlets' listeners bound already. */
  async start(portals: NodePortals, listeners: ReadonlyMap<string, InletListeners>): Promise<void> {
    const bounds = portals.outlets.length > 0 ? await this.options.connectionBounds() : undefined;
    for (const portal of portals.inlets) {
      const bound = listeners.get(portal.name);
      if (bound) this.startInlet(portal, bound);
    }
    for (const portal of portals.outlets) this.startOutlet(portal, bounds);
  }

  startOutlet(portal: OutletPortal, bounds: ConnectionBounds | undefined): Outlet {
    const outlet = new Outlet({
      ...this.partContext('outlet', portal),
      name: portal.name,
      configuredAt: portal.pointer,
      relay: portal.relay,
      to: portal.to,
      allow: portal.allow,
      tls: portal.tls,
      control: this.options.control,
      onFatal: this.options.onFatal,
      ...(bounds ? { connectionBounds: bounds } : {}),
    });
    this.outlets.set(portal.name, { portal, outlet });
    outlet.start();
    return outlet;
  }

  startInlet(portal: InletPortal, bound: InletListeners): Inlet {
    const { node, control } = this.options;
    const inlet = new Inlet({
      ...this.partContext('inlet', portal),
      name: portal.name,
      configuredAt: portal.pointer,
      listener: bound.listener,
      from: portal.from,
      via: portal.via,
      allow: portal.allow,
      tls: portal.tls,
      backoff: new Backoff(node.backoff ?? {}),
      control,
      ...(bound.direct ? { direct: bound.direct } : {}),
      ...(node.warmStreams === undefined ? {} : { warmStreams: node.warmStreams }),
    });
    this.inlets.set(portal.name, { portal, inlet });
    inlet.start();
    return inlet;
  }

  /** New credentials reach every inlet's sessions (outlets take them at their next handshake). */
  rotate(): void {
    for (const { inlet } of this.inlets.values()) inlet.rotate();
  }

  /** What the node tells the controller of its portals (portal-reporter.ts). */
  report(): PortalReport[] {
    return [
      ...[...this.inlets.values()].map(({ inlet }) => inlet.report()),
      ...[...this.outlets.values()].map(({ outlet }) => outlet.report()),
    ];
  }

  describe(): { outlets: OutletShow[]; inlets: InletShow[] } {
    return {
      outlets: [...this.outlets.values()].map(({ outlet }) => outlet.describe()),
      inlets: [...this.inlets.values()].map(({ inlet }) => inlet.describe()),
    };
  }

  /**
   * Lets `part`, which takes nothing new any more, finish what it carries for up to the drain time
   * (PORTAL_DRAIN_TIMEOUT), then closes it; `name` is how the log calls it ("outlet db").
   */
  drain(name: string, why: 'removed' | 'replaced', part: DrainingPart): void {
    const { logger, drainMs = 0 } = this.options.node;
    this.draining.add(part);
    const open = part.openConnections();
    const startedAt = Date.now();
    if (open > 0)
      logger.info(
        `${name} was ${why}: it takes no new connections and gives its ${open} open ` +
          `connection${open === 1 ? '' : 's'} up to ${Math.round(drainMs / 100) / 10}s to finish`,
      );
    let timer: NodeJS.Timeout | undefined;
    void Promise.race([part.whenIdle(), new Promise<void>((resolve) => (timer = setTimeout(resolve, drainMs)))])
      .then(async () => {
        clearTimeout(timer);
        const cut = part.openConnections();
        if (!this.draining.delete(part)) return;
        await part.stop();
        if (open > 0)
          logger.info(
            `${name} is closed, ${((Date.now() - startedAt) / 1000).toFixed(1)}s after it was ${why}: ` +
              `${open - cut} of ${open} connection${open === 1 ? '' : 's'} finished, ${cut} cut`,
          );
      })
      .catch((error: Error) => logger.debug(`${name} did not close cleanly: ${error.message}`));
  }

  /** The outlets leave their pools (Outlet.leave): settles once their inlets have heard, or after `withinMs`. */
  async leavePools(withinMs: number): Promise<void> {
    await Promise.all([...this.outlets.values()].map(({ outlet }) => outlet.leave(withinMs)));
  }

  stopAccepting(): void {
    this.accepting = false;
    for (const { outlet } of this.outlets.values()) outlet.stopAccepting();
    for (const { inlet } of this.inlets.values()) inlet.stopAccepting();
  }

  get stopped(): boolean {
    return !this.accepting;
  }

  /** Client connections (inlets) and target connections (outlets), those of draining parts included. */
  openConnections(): number {
    let open = 0;
    for (const { outlet } of this.outlets.values()) open += outlet.openConnections();
    for (const { inlet } of this.inlets.values()) open += inlet.openConnections();
    for (const part of this.draining) open += part.openConnections();
    return open;
  }

  async whenIdle(): Promise<void> {
    await Promise.all([
      ...[...this.outlets.values()].map(({ outlet }) => outlet.whenIdle()),
      ...[...this.inlets.values()].map(({ inlet }) => inlet.whenIdle()),
      ...[...this.draining].map((part) => part.whenIdle()),
    ]);
  }

  /** Closes everything at once: every part, draining ones included. */
  async stop(): Promise<void> {
    this.stopAccepting();
    const draining = [...this.draining];
    this.draining.clear();
    for (const { outlet } of this.outlets.values()) outlet.stop();
    await Promise.all([
      ...[...this.inlets.values()].map(({ inlet }) => inlet.stop()),
      ...draining.map((part) => part.stop()),
    ]);
  }

  /** What a part of `portal` shares with the others, its log lines and series named as the portal is. */
  private partContext(kind: 'outlet' | 'inlet', portal: OutletPortal | InletPortal) {
    const { node, relays, credentials, metrics, heartbeat, audit } = this.options;
    return {
      relays,
      credentials,
      logger: portalLogger(node.logger, portalLabel(kind, portal)),
      metrics: portalMetrics(metrics, isNamed(portal) ? portal.name : undefined),
      heartbeat,
      ...(audit ? { audit: audit.forPortal(isNamed(portal) ? portal.name : kind) } : {}),
    };
  }

  /**
   * A relay's event goes to the outlet of the relay name it names. A relay of an earlier version names
   * none: a node of one outlet answers it; one of several cannot tell which, and says so.
   */
  private route(link: RelayLink, event: RelayEvent): void {
    // The inlets hear of their pools themselves (inlet-pool.ts).
    if (event.event === 'outlets') return;
    const outlets = [...this.outlets.values()];
    const target =
      event.relay === undefined
        ? outlets.length === 1
          ? outlets[0]
          : undefined
        : outlets.find(({ portal }) => portal.relay === event.relay);
    if (target) {
      target.outlet.onRelayEvent(link, event);
      return;
    }
    if (event.relay === undefined && outlets.length > 1)
      this.unrouted.note(
        `unnamed ${link.entry.id}`,
        (count) =>
          `relay ${link.entry.id} at ${link.entry.address} sent ` +
          `${count === 1 ? 'a dial that names' : `${count} dials that name`} no relay name ` +
          "(an earlier Portal version), which this node's outlets cannot tell apart; " +
          'run the same Portal version on the relays and every node',
      );
    else this.options.node.logger.debug(`relay ${link.entry.id} sent an event for no outlet of this node`);
  }
}
