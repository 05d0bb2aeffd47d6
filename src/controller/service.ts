/**
 * What the controller does, independent of how requests reach it: projects and their certificate
 * authorities, one-time admin codes, enrollment tickets (stored hashed, consumed atomically), members
 * and their certificates. Each concept has its module (enrollment.ts, renewal.ts, projects.ts, and
 * member-certificates.ts for what they share); this is the one face the server and the CLI use.
 */
import type { X509Certificate } from 'node:crypto';
import type { Authority } from '../pki/authority.ts';
import type { PeerIdentity } from '../pki/identity.ts';
import { OperationsTally } from '../shared/operations-tally.ts';
import type { EnrollmentAnswer as Enrollment, ProjectInfo, TicketBody as TicketRequest } from '../wire/protocol.ts';
import { Enrollments } from './enrollment.ts';
import { MemberCertificates, type ControllerSettings } from './member-certificates.ts';
import { projectCount, projectOf } from './projects.ts';
import { Renewals } from './renewal.ts';
import type { Store } from './store/open.ts';

export type { ControllerSettings } from './member-certificates.ts';

export class ControllerService {
  /** What revocation and the audit trail count, for the metrics: fed in one line where each happens. */
  readonly tally = new OperationsTally();
  private settingsNow: ControllerSettings;
  private readonly certificates: MemberCertificates;
  private readonly enrollments: Enrollments;
  private readonly renewals: Renewals;

  constructor(
    private readonly store: Store,
    settings: ControllerSettings,
  ) {
    this.settingsNow = settings;
    this.certificates = new MemberCertificates(store, () => this.settingsNow);
    this.enrollments = new Enrollments(store, this.certificates, () => this.settingsNow);
    this.renewals = new Renewals(store, this.certificates);
  }

  get settings(): ControllerSettings {
    return this.settingsNow;
  }

  /** The address written into tickets, once the listening port is known. */
  bindAddress(publicAddress: string): void {
    this.settingsNow = { ...this.settingsNow, publicAddress };
  }

  /** How many projects the controller hosts. */
  projectCount(): Promise<number> {
    return projectCount(this.store);
  }

  /** A one-time code that lets its holder create a project and become its administrator. */
  createAdminCode(lifetimeMs: number, now = Date.now()): Promise<string> {
    return this.enrollments.createAdminCode(lifetimeMs, now);
  }

  adminEnroll(code: string, request: string, projectName: string | undefined, now = Date.now()): Promise<Enrollment> {
    return this.enrollments.adminEnroll(code, request, projectName, now);
  }

  issueTicket(admin: PeerIdentity, request: TicketRequest, now = Date.now()): Promise<string> {
    return this.enrollments.issueTicket(admin, request, now);
  }

  /** Enrolls the holder of a ticket: see Enrollments.enroll. */
  enroll(ticketId: string, secret: string, request: string, now = Date.now()): Promise<Enrollment> {
    return this.enrollments.enroll(ticketId, secret, request, now);
  }

  /** A fresh certificate for a member authenticated by a valid certificate: see Renewals.renew. */
  renew(peer: PeerIdentity, request: string, now = Date.now()): Promise<Enrollment> {
    return this.renewals.renew(peer, request, now);
  }

  /** A one-time challenge for re-issuing an expired certificate: see Renewals.reissueChallenge. */
  reissueChallenge(source: string, now = Date.now()): { challenge: string } {
    return this.renewals.reissueChallenge(source, now);
  }

  /** A new certificate for a member whose certificate expired: see Renewals.reissue. */
  reissue(certificatePem: string, request: string, now = Date.now()): Promise<Enrollment> {
    return this.renewals.reissue(certificatePem, request, now);
  }

  project(admin: PeerIdentity): Promise<ProjectInfo> {
    return projectOf(this.store, admin, this.settings.publicAddress);
  }

  /**
   * The identity of a TLS peer, if its certificate chains to its project's CA and is valid now;
   * undefined otherwise.
   */
  verifyPeer(certificate: X509Certificate | undefined, now = Date.now()): Promise<PeerIdentity | undefined> {
    return this.certificates.verifyPeer(certificate, now);
  }

  authorityOf(projectId: string): Promise<Authority> {
    return this.certificates.authorityOf(projectId);
  }
}
