/**
 * A relay's service: members of a project connect with their project certificate over TLS (ALPN
 * portal-relay) to register outlets and ask for splices, and dial in raw halves of those splices. It
 * runs on a port of its own (a standalone relay, `portal relay start`) or shares the controller's port
 * (the embedded default), in which case the controller's listener hands it its connections. Only
 * members may speak to it; what each may cost is bounded as on the controller.
 */
import type { X509Certificate } from 'node:crypto';
import type { AddressInfo, Socket } from 'node:net';
import type { Registry } from 'prom-client';
import type { PeerIdentity } from '../pki/identity.ts';
import type { AdmissionLimits, AdmissionStats } from '../wire/admission.ts';
import { MemberService, type MemberConnection, type Session } from '../wire/member-service.ts';
import { PortalPort, type PortHandlers, type SpliceHalf } from '../wire/portal-port.ts';
import { relayFields, type RelayEvent, type RelayOperations } from '../wire/protocol.ts';
import { registerRelayMetrics } from './metrics.ts';
import { Relay, type RelayOptions, type RelayStats } from './relay.ts';
import { InputError, RuntimeFailure } from '../shared/errors.ts';
import { watchesPerConnection } from './limits.ts';
import { SplicedBytes } from './spliced-bytes.ts';
import { repeatedWarningMs } from '../shared/limits.ts';
import { memberConnections, memberInFlight, queuedBytesPerPeer } from '../wire/limits.ts';

export interface RelayServerLimits {
  /** Requests a member's connection may have in flight. @default memberInFlight */
  readonly memberInFlight: number;
  /** Connections one member may hold at once. @default memberConnections */
  readonly memberConnections: number;
  /**
   * Unread answers and events a member may leave queued before its connection is closed.
   * @default queuedBytesPerPeer
   */
  readonly maxQueuedBytes: number;
}

export const defaultRelayServerLimits: RelayServerLimits = {
  memberInFlight,
  memberConnections,
  maxQueuedBytes: queuedBytesPerPeer,
};

export interface RelayServerOptions {
  /** The member a client certificate proves (chains to its project's CA, valid now), or undefined. */
  readonly verifyPeer: (certificate: X509Certificate | undefined) => Promise<PeerIdentity | undefined>;
  readonly relay?: RelayOptions;
  readonly limits?: RelayServerLimits;
  readonly log?: (line: string) => void;
  /** True while the relay's list of revoked members is older than its bound: it splices no new session. */
  readonly stale?: () => boolean;
  /** Where the relay's metrics are registered (src/relay/metrics.ts). */
  readonly registry?: Registry;
  /** A revoked member presented its (unexpired) certificate and was refused. */
  readonly onRevokedRefused?: (nodeId: string) => void;
}

export class RelayServer {
  readonly relay: Relay;
  private readonly members: MemberService<RelayOperations, RelayEvent>;
  /** The port of its own, when it serves on one. */
  private ownPort: PortalPort | undefined;
  private versionWarnedAt = 0;
  /** Members revoked from the project: refused from now on. */
  private readonly revoked = new Set<string>();
  private readonly bytes = new SplicedBytes();
  private halvesRefused = 0;

  constructor(private readonly options: RelayServerOptions) {
    this.relay = new Relay(options.relay);
    const observe = options.registry ? registerRelayMetrics(options.registry, () => this.figures()) : undefined;
    this.members = new MemberService({
      service: 'relay',
      fields: relayFields,
      // A revoked member's certificate proves nothing here, though it has not expired.
      verifyPeer: async (certificate) => {
        const peer = await options.verifyPeer(certificate);
        if (!peer || !this.revoked.has(peer.nodeId)) return peer;
        options.onRevokedRefused?.(peer.nodeId);
        return undefined;
      },
      limits: options.limits ?? defaultRelayServerLimits,
      open: (connection) => this.open(connection),
      // A relay serves members only: there is nothing an anonymous peer may ask of it.
      anonymous: { refusal: 'this relay serves members of its projects only, with a valid certificate' },
      ...(options.log ? { log: options.log } : {}),
      ...(observe ? { observe } : {}),
    });
  }

  /** What a Portal port needs to serve this relay: its TLS service and the raw splice halves. */
  get handlers(): PortHandlers {
    return {
      secure: { relay: (socket, release) => void this.members.serve(socket, release) },
      splice: (socket, half) => this.acceptSplice(socket, half),
      invalidSplice: (reason) => this.warnVersion(reason),
    };
  }

  /** Serves on a port of its own, with the relay's own TLS certificate (pinned by nodes through the controller). */
  async listen(
    host: string,
    port: number,
    tls: { key: string; certificate: string },
    admission?: AdmissionLimits,
  ): Promise<{ address: AddressInfo; port: PortalPort }> {
    const portalPort = new PortalPort({ tls, handlers: this.handlers, ...(admission ? { admission } : {}) });
    const address = await portalPort.listen(host, port);
    this.ownPort = portalPort;
    return { address, port: portalPort };
  }

  stats(): RelayStats & { members: number } & Partial<AdmissionStats> {
    return { ...this.relay.stats(), members: this.members.openMemberConnections, ...(this.ownPort?.stats() ?? {}) };
  }

  openConnections(): number {
    return this.relay.openSplices();
  }

  whenIdle(): Promise<void> {
    return this.relay.whenIdle();
  }

  /**
   * Takes no new members or splices and closes member connections (their outlets are no longer
   * registered); splices carried go on.
   */
  stopAccepting(): void {
    this.ownPort?.stopAccepting();
    this.relay.stopAccepting();
    this.members.closeConnections();
  }

  async close(): Promise<void> {
    this.relay.close();
    this.members.closeConnections();
    await this.ownPort?.close();
  }

  /**
   * A member was revoked: it is refused from now on, its connections (and so its registrations) close,
   * and every splice it is part of is cut. Returns how many splices were.
   */
  cutMember(nodeId: string): number {
    this.revoked.add(nodeId);
    this.members.closeMember(nodeId);
    const cut = this.relay.cutMember(nodeId);
    if (cut > 0) this.options.log?.(`relay: cut ${cut} splice(s) of ${nodeId}, revoked`);
    return cut;
  }

  /** Whether `nodeId` was revoked (see cutMember). */
  refuses(nodeId: string): boolean {
    return this.revoked.has(nodeId);
  }

  acceptSplice(socket: Socket, half: SpliceHalf): boolean {
    const taken = this.relay.join(socket, half.splice, half.role, half.secret);
    if (taken) this.bytes.track(socket, half.role, half.rest.length);
    else this.halvesRefused += 1;
    return taken;
  }

  /** What the relay's metrics read. */
  private figures() {
    return {
      relay: this.relay.stats(),
      bytes: this.bytes.totals(),
      halvesRefused: this.halvesRefused,
      members: this.members.openMemberConnections,
      membersRefused: this.members.refusedMemberConnections,
      ...(this.ownPort ? { admission: this.ownPort.stats() } : {}),
    };
  }

  /** Serves one member's connection: its outlets stay registered while it lasts. */
  private open({ peer, push }: MemberConnection<RelayEvent>): Session<RelayOperations> {
    // One registration per relay name and connection: registering again replaces it. So with watches.
    const registrations = new Map<string, () => void>();
    const watches = new Map<string, () => void>();
    return {
      handlers: {
        ping: () => ({}),
        register: ({ relay: name, allow }) => {
          const earlier = registrations.get(name);
          // Its events name the relay name, so that a node of several outlets knows which one is asked.
          const named = (event: RelayEvent) => push({ ...event, relay: name });
          registrations.set(name, this.relay.register(peer, name, allow, named));
          earlier?.();
          if (!earlier) this.options.log?.(`relay: ${peer.nodeId} registered ${name}`);
          return {};
        },
        unregister: ({ relay: name }) => {
          const withdraw = registrations.get(name);
          registrations.delete(name);
          withdraw?.();
          if (withdraw) this.options.log?.(`relay: ${peer.nodeId} withdrew ${name}`);
          return {};
        },
        watch: ({ relay: name, allow }) => {
          if (!watches.has(name) && watches.size >= watchesPerConnection)
            throw new InputError('TOO_MANY_WATCHES', `this connection watches ${watches.size} relay names already`, {
              hint: 'a node watches one relay name per inlet; run the same Portal version on the relays and every node',
            });
          const { outlets, stop } = this.relay.watch(peer, name, allow, push);
          watches.get(name)?.();
          watches.set(name, stop);
          return { outlets };
        },
        connect: ({ relay: name, allow, outlet }) => {
          if (this.options.stale?.())
            throw new RuntimeFailure(
              'REVOCATIONS_STALE',
              'the relay splices no new session: its list of revoked members is older than its bound',
              { hint: 'the relay needs to reach the controller again; the node tries another relay' },
            );
          return this.relay.connect(peer, name, allow, outlet);
        },
      },
      closed: () => {
        registrations.forEach((withdraw) => withdraw());
        watches.forEach((stop) => stop());
      },
    };
  }

  /** Peers of another version are logged once a minute, not at every connection. */
  private warnVersion(reason: string): void {
    const now = Date.now();
    if (now - this.versionWarnedAt < repeatedWarningMs) return;
    this.versionWarnedAt = now;
    this.options.log?.(`relay: refused ${reason}: run the same Portal version on the relays and every node`);
  }
}
