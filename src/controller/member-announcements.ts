/**
 * What a member announces on its control connection, for as long as it lasts: a relay node the address
 * it serves at, an inlet the direct paths it accepts. Each is withdrawn when the connection closes.
 */
import { InputError } from '../shared/errors.ts';
import { requirePolicy } from '../shared/policy.ts';
import type { PeerIdentity } from '../pki/identity.ts';
import type { AnswerOf, ControllerOperations, RequestOf } from '../wire/protocol.ts';
import type { AuditTrail } from './audit-trail.ts';
import { hearsOf, type AdvertEntry, type InletAdverts } from './inlet-adverts.ts';
import { advertsPerConnection } from './limits.ts';
import type { PortalReports, ReportingConnection } from './portal-reports.ts';
import type { ProjectSubscribers } from './project-subscribers.ts';
import type { RelayDirectory } from './relay-directory.ts';

/** What a connection announced, as its closing withdraws it. */
export interface AnnouncingConnection extends ReportingConnection {
  /** Withdraws what a relay node announced on it. */
  withdraw: (() => void) | undefined;
  /** Withdraws each direct path an inlet advertised on it, by the relay name it wants. */
  readonly adverts: Map<string, () => void>;
}

/** The controller's registries an announcement lands in, and who hears of it. */
export interface AnnouncementContext {
  readonly adverts: InletAdverts;
  /** What nodes report their portals carry, for the web console. */
  readonly portals: PortalReports;
  readonly relays: RelayDirectory;
  readonly subscribers: ProjectSubscribers;
  readonly audit: AuditTrail;
  readonly log?: ((line: string) => void) | undefined;
}

/** What an announced or advertised address may hold: host characters and a port, nothing else. */
const hostPortText = /^[A-Za-z0-9.:[\]-]{1,300}$/;

/**
 * An inlet's direct path: the outlets it would accept (see hearsOf) hear of it now, and of its end
 * when this connection closes; no other member hears of it.
 */
export function advertise(
  context: AnnouncementContext,
  connection: AnnouncingConnection,
  peer: PeerIdentity,
  body: RequestOf<ControllerOperations, 'advertise'>,
): AnswerOf<ControllerOperations, 'advertise'> {
  const { adverts, subscribers } = context;
  if (body.allow === '') {
    throw new InputError('ALLOW_MISSING', 'the direct path advertised does not say which attribute the inlet allows', {
      hint: 'run the same Portal version on the controller and every node (portal --version)',
    });
  }
  // The inlet checked its allow at start; one that does not read is refused here with its column too.
  const policy = requirePolicy(body.allow, "the advertised inlet's allow");
  const name = /^[a-z0-9][a-z0-9-]{0,62}$/;
  const valid =
    name.test(body.via) &&
    /^[A-Za-z0-9_-]{16,64}$/.test(body.secret) &&
    Number.isInteger(body.warm) &&
    body.warm >= 0 &&
    body.warm <= 16;
  if (!valid || body.addresses.length === 0 || !body.addresses.every((address) => hostPortText.test(address))) {
    throw new InputError('BAD_REQUEST', 'the direct path advertised is not valid', {
      hint: 'check tcp-inlet.direct',
    });
  }
  const advert = {
    inlet: peer.nodeId,
    attributes: peer.attributes,
    via: body.via,
    addresses: body.addresses,
    secret: body.secret,
    warm: body.warm,
  };
  const entry: AdvertEntry = { advert, allow: body.allow, policy };
  if (!connection.adverts.has(body.via) && connection.adverts.size >= advertsPerConnection)
    throw new InputError('TOO_MANY_INLETS', `this connection advertises ${advertsPerConnection} direct paths already`, {
      hint: 'the inlet uses the relays',
    });
  const earlier = adverts.get(peer.projectId, peer.nodeId, body.via);
  if (!adverts.set(peer.projectId, entry))
    throw new InputError('TOO_MANY_INLETS', 'this project has as many direct paths advertised as it may have', {
      hint: 'the inlet uses the relays',
    });
  const hearers = (member: PeerIdentity) => hearsOf(member, entry);
  // An advert replaced by one with another relay name or allow is gone for those that hear only of the earlier.
  if (earlier)
    subscribers.tell(
      peer.projectId,
      { event: 'inlet-gone', inlet: advert.inlet },
      (member) => hearsOf(member, earlier) && !hearers(member),
    );
  connection.adverts.set(body.via, () => {
    if (adverts.withdraw(peer.projectId, entry))
      subscribers.tell(peer.projectId, { event: 'inlet-gone', inlet: advert.inlet }, hearers);
  });
  subscribers.tell(peer.projectId, { event: 'inlet', advert }, hearers);
  return {};
}

/** A relay node serves its project from `address` while this connection lasts. */
export function announceRelay(
  context: AnnouncementContext,
  connection: AnnouncingConnection,
  peer: PeerIdentity,
  body: RequestOf<ControllerOperations, 'relay-announce'>,
): AnswerOf<ControllerOperations, 'relay-announce'> {
  if (!peer.relayNode) {
    throw new InputError('NOT_A_RELAY', 'this member is not a relay node', {
      hint: 'enroll relays with a ticket from portal project ticket --relay-node',
    });
  }
  if (!/^[0-9a-f]{64}$/.test(body.fingerprint) || !hostPortText.test(body.address)) {
    throw new InputError('BAD_REQUEST', 'the relay announced an address or fingerprint that is not valid', {
      hint: 'give --public-address HOST:PORT',
    });
  }
  const withdraw = context.relays.announce(peer.projectId, {
    id: peer.nodeId,
    address: body.address,
    fingerprint: body.fingerprint,
  });
  if (!withdraw)
    throw new InputError('TOO_MANY_RELAYS', 'this project has as many relays as it may have', {
      hint: 'stop relays the project no longer needs',
    });
  connection.withdraw?.();
  const { audit } = context;
  connection.withdraw = () => {
    withdraw();
    void audit.record(peer.projectId, 'relay-lost', [peer.nodeId], { address: body.address });
  };
  void audit.record(peer.projectId, 'relay-announced', [peer.nodeId], { address: body.address });
  context.log?.(`controller: relay ${peer.nodeId} of project ${peer.projectId} serves at ${body.address}`);
  return {};
}
