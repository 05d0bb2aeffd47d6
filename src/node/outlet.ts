/**
 * The outlet: registers its relay name on every relay of the project (again after every reconnect),
 * answers each dial by joining the splice on that relay and accepting the inlet's end-to-end session,
 * and connects each stream of those sessions, and each warm stream, to its target. Inlets
 * that advertise a direct path (through the controller) are dialled directly as well; their sessions
 * then run on those connections, with the same mutual TLS and allow checks.
 *
 * This class holds the outlet's links to the relays and the controller, and puts the parts together:
 * the sessions and warm streams (outlet-sessions.ts), the target connections (outlet-targets.ts) and
 * the refusals (outlet-refusals.ts).
 */
import { PortalError } from '../shared/errors.ts';
import { describeAttributes, quotedPolicy } from '../shared/policy.ts';
import type { ControllerEvent, InletAdvert, PortalReport, RelayEvent } from '../wire/protocol.ts';
import { defaultConnectionBounds, type ConnectionBounds } from './connection-bounds.ts';
import { outletDials } from './direct-dialer.ts';
import { warningKeysKept } from './limits.ts';
import { LogThrottle } from './log-throttle.ts';
import { OutletRefusals } from './outlet-refusals.ts';
import { OutletSessions } from './outlet-sessions.ts';
import { TargetConnections } from './outlet-targets.ts';
import type { PartContext, PartStatus } from './part.ts';
import type { RelayLink } from './relay-links.ts';
import type { NodeControl } from './standing-channel.ts';
import { Subscriptions } from './subscriptions.ts';

export { outletLimits, targetConnectTimeoutMs } from './outlet-limits.ts';

export interface OutletOptions extends PartContext {
  /** The portal's name, as /show gives it. */
  readonly name: string;
  /** Where the configuration defines it (/tcp-outlet, /tcp-outlets/<name>), as /show gives it. */
  readonly configuredAt: string;
  readonly relay: string;
  readonly to: string;
  readonly allow: string;
  /** Connect to the target over TLS (SNI and verification against the system trust store). */
  readonly tls?: boolean;
  /** The controller, which tells the outlet the direct paths of its inlets. */
  readonly control?: NodeControl;
  /** Called once if a relay refuses the registration for good (a relay name the ticket does not grant). */
  readonly onFatal: (error: PortalError) => void;
  /** Target connections held at once, per inlet node and in all. @default defaultConnectionBounds */
  readonly connectionBounds?: ConnectionBounds;
}

export class Outlet {
  status: PartStatus = 'starting';
  readonly startedAt = Date.now();
  /** The relays this outlet is registered on, by relay id. */
  private readonly registeredOn = new Set<string>();
  /** Inlets whose direct path this outlet's allow refused, said once each. */
  private readonly declined = new Set<string>();
  private readonly targets: TargetConnections;
  private readonly refusals: OutletRefusals;
  private readonly sessions: OutletSessions;
  /** What it listens to on the node's relay links and controller channel: dropped when it stops accepting. */
  private readonly subscriptions = new Subscriptions();

  constructor(private readonly options: OutletOptions) {
    const { to, allow, logger, metrics } = options;
    // Warnings that a flood would repeat thousands of times a second.
    const throttled = new LogThrottle((line) => logger.warn(line));
    this.targets = new TargetConnections({
      to,
      tls: options.tls === true,
      bounds: options.connectionBounds ?? defaultConnectionBounds,
      metrics,
      throttled,
    });
    this.refusals = new OutletRefusals({ allow, logger, metrics, audit: options.audit });
    this.sessions = new OutletSessions({ ...options, targets: this.targets, refusals: this.refusals, throttled });
  }

  /**
   * Registers on every relay that is up (and again whenever one comes up) and learns the direct paths
   * of its inlets. The relays' dials and refusals reach it through onRelayEvent, from the node, which
   * knows which of its outlets each is for.
   */
  start(): void {
    const { relays } = this.options;
    this.subscriptions.on(relays, 'up', (link: RelayLink) => void this.register(link));
    this.subscriptions.on(relays, 'down', (link: RelayLink) => {
      this.registeredOn.delete(link.entry.id);
      if (this.registeredOn.size === 0 && this.status === 'up') this.status = 'waiting';
    });
    for (const link of relays.up()) void this.register(link);
    const { control } = this.options;
    if (control) {
      const { dialer } = this.sessions;
      const fetchAdverts = () =>
        control.request('inlets', {}).then(
          ({ inlets }) => inlets.filter((advert) => this.wants(advert)).forEach((advert) => dialer.set(advert)),
          (error: Error) =>
            this.options.logger.debug(`outlet: no direct paths from the controller yet: ${error.message}`),
        );
      this.subscriptions.on(control, 'up', () => void fetchAdverts());
      this.subscriptions.on(control, 'event', (event: ControllerEvent) => {
        if (event.event === 'inlet' && this.wants(event.advert)) dialer.set(event.advert);
        if (event.event === 'inlet-gone' && dialer.knows(event.inlet)) {
          dialer.gone(event.inlet);
          // A node advertises one direct path per relay name, and the event names the node only: the
          // one for this outlet's relay name may still stand.
          void fetchAdverts();
        }
      });
      if (control.connected) void fetchAdverts();
    }
  }

  /** A relay's event for this outlet's relay name: a dial to answer, or members it refused. */
  onRelayEvent(link: RelayLink, event: RelayEvent): void {
    if (this.sessions.stopped) return;
    if (event.event === 'dial') this.sessions.onDial(link, event.splice, event.secret, event.from.slice(0, 64));
    if (event.event === 'refused')
      this.refusals.byRelay(event.from.slice(0, 64), event.attributes.slice(0, 8), event.count);
  }

  /**
   * The first step of a drain: off every relay (inlets hear of it from them), and every inlet told to
   * open nothing more here while what it opened before it heard is still served; settles once they
   * have heard, or after `withinMs`.
   */
  leave(withinMs: number): Promise<void> {
    this.withdraw();
    return this.sessions.leave(withinMs);
  }

  /** Takes its relay name off every relay it is registered on (the name is no longer the node's). */
  withdraw(): void {
    for (const link of this.options.relays.up())
      void link.channel
        .request('unregister', { relay: this.options.relay })
        .catch((error: Error) =>
          this.options.logger.debug(`outlet: relay ${link.entry.id} kept the registration: ${error.message}`),
        );
    this.registeredOn.clear();
  }

  private wants(advert: InletAdvert | undefined): advert is InletAdvert {
    // Asked of a copy: the answer narrows what it is asked of, and the advert is read below either way.
    const asked: InletAdvert | undefined = advert;
    const dials = outletDials(asked, this.options.relay, this.options.allow);
    if (!dials && advert?.via === this.options.relay && !this.declined.has(advert.inlet)) {
      // Said once per inlet (the set is bounded): the inlet goes on to the relay, which refuses it too.
      if (this.declined.size >= warningKeysKept) this.declined.clear();
      this.declined.add(advert.inlet);
      this.options.logger.warn(
        `outlet: allow ${quotedPolicy(this.options.allow)} refuses inlet node ${advert.inlet.slice(0, 64)} ` +
          `(attributes ${describeAttributes(advert.attributes.slice(0, 16))}): its direct path is not dialled`,
      );
    }
    return dials;
  }

  /**
   * Stops taking sessions, warm streams and streams (a stream opened now is refused) and closes the
   * warm streams no client uses; the connections it carries go on until they finish or stop() cuts them.
   */
  stopAccepting(): void {
    this.subscriptions.clear();
    this.sessions.stopAccepting();
  }

  /** Target connections open right now. */
  openConnections(): number {
    return this.targets.openConnections();
  }

  /** Settles once no target connection is open. */
  whenIdle(): Promise<void> {
    return this.targets.whenIdle();
  }

  /** Closes everything: sessions, warm streams (used or waiting) and target connections. */
  stop(): void {
    this.stopAccepting();
    this.sessions.destroyAll();
    this.targets.destroyAll();
  }

  /** What the node tells the controller of this outlet, for the console. */
  report(): PortalReport {
    const { connections_active: open, connections_total: total } = this.targets.describe();
    return {
      part: 'outlet',
      name: this.options.name,
      relay: this.options.relay,
      status: this.status,
      since: this.startedAt,
      open,
      total,
      ...this.targets.carried(),
      peers: [],
    };
  }

  describe() {
    const sessions = this.sessions.describe();
    const targets = this.targets.describe();
    return {
      name: this.options.name,
      configured_at: this.options.configuredAt,
      relay: this.options.relay,
      registered_on: [...this.registeredOn],
      to: this.options.to,
      allow: this.options.allow,
      status: this.status,
      sessions: sessions.sessions,
      sessions_direct: sessions.sessions_direct,
      direct_paths: sessions.direct_paths,
      connections_total: targets.connections_total,
      connections_active: targets.connections_active,
      connections_failed: targets.connections_failed,
      /** Connections to the target that failed since the last one that connected. */
      target_failures: targets.target_failures,
      refusals: this.refusals.describe(),
      connections_over_bound: targets.connections_over_bound,
      handshakes_pending: sessions.handshakes_pending,
      dials_declined: sessions.dials_declined,
    };
  }

  private async register(link: RelayLink): Promise<void> {
    if (this.sessions.stopped) return;
    try {
      // The relay refuses on the outlet's behalf every inlet this allow would refuse.
      await link.channel.request('register', { relay: this.options.relay, allow: this.options.allow });
      if (!link.channel.connected || this.sessions.stopped) return;
      this.registeredOn.add(link.entry.id);
      this.options.logger.info(
        `outlet: relay name "${this.options.relay}" registered on relay ${link.entry.id} ` +
          `(${link.entry.address}); forwarding to ${this.options.to}`,
      );
      this.status = 'up';
    } catch (error) {
      if (error instanceof PortalError && error.code === 'RELAY_NOT_GRANTED') {
        this.status = 'failed';
        this.options.onFatal(error);
      }
      // Anything else: the connection dropped; 'up' will come again.
    }
  }
}
