/**
 * What the controller does, independent of how requests reach it: projects and their certificate
 * authorities, one-time admin codes, enrollment tickets (stored hashed, consumed atomically), members
 * and their certificates. Each concept has its module (enrollment.ts, renewal.ts, projects.ts, and
 * member-certificates.ts for what they share); this is the one face the server and the CLI use.
 */
import type { X509Certificate } from 'node:crypto';
import type { Authority } from '../pki/authority.ts';
import type { PeerIdentity } from '../pki/identity.ts';
import type {
  EnrollmentAnswer as Enrollment,
  MemberInfo,
  ProjectInfo,
  RevokedEntry,
  TicketBody as TicketRequest,
  TicketInfo,
} from '../wire/protocol.ts';
import type { BudgetFigures } from './audit-budget.ts';
import { ReportIntake } from './audit-intake.ts';
import { AuditTrail } from './audit-trail.ts';
import { auditSignerOf } from '../shared/audit-signature.ts';
import { OperationsTally } from '../shared/operations-tally.ts';
import { Enrollments } from './enrollment.ts';
import { MemberCertificates, type ControllerSettings } from './member-certificates.ts';
import {
  cancelTicket,
  membersOf,
  noteSeen,
  ticketsOf,
  type Cancellation,
  type MemberPresence,
} from './project-members.ts';
import { projectCount, projectOf } from './projects.ts';
import { grantRelays, type RelayGrant } from './relay-grants.ts';
import { Renewals } from './renewal.ts';
import { revocationProofKey } from './revocation-proof.ts';
import { Revocations, type Revocation } from './revocations.ts';
import type { Store } from './store/open.ts';

export type { ControllerSettings } from './member-certificates.ts';

export class ControllerService {
  /** What revocation and the audit trail count, for the metrics: fed in one line where each happens. */
  readonly tally = new OperationsTally();
  private settingsNow: ControllerSettings;
  private readonly certificates: MemberCertificates;
  private readonly enrollments: Enrollments;
  private readonly renewals: Renewals;
  private readonly revocations: Revocations;
  /** The project's audit trail: every part of the controller records its events here. */
  readonly audit: AuditTrail;
  /** What members report to the trail, checked and budgeted. */
  readonly reports: ReportIntake;

  constructor(
    private readonly store: Store,
    settings: ControllerSettings,
    options: { readonly log?: (line: string) => void; readonly auditBudget?: BudgetFigures } = {},
  ) {
    this.settingsNow = settings;
    this.audit = new AuditTrail(store, {
      ...options,
      onWritten: (count) => this.tally.auditRecordsWritten(count),
      // The trail key comes from the sealing key, which is never beside the store it signs.
      signer: auditSignerOf(settings.sealingKey),
    });
    this.reports = new ReportIntake({
      store,
      trail: this.audit,
      ...(options.auditBudget ? { budget: options.auditBudget } : {}),
    });
    this.revocations = new Revocations(
      store,
      () => this.settingsNow.credentialLifetimeMs,
      revocationProofKey(settings.sealingKey),
    );
    this.certificates = new MemberCertificates(store, () => this.settingsNow, this.revocations);
    this.enrollments = new Enrollments(store, this.certificates, () => this.settingsNow, this.audit);
    this.renewals = new Renewals(store, this.certificates, this.revocations, this.audit);
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

  /** Every member of the administrator's project; `presence` adds what the server knows of its connections. */
  members(admin: PeerIdentity, presence: (nodeId: string) => MemberPresence, now = Date.now()): Promise<MemberInfo[]> {
    return membersOf(this.store, admin, presence, now);
  }

  /** Takes a member out of the project (see Revocations.revoke); the server closes its connections, tells the rest. */
  revoke(admin: PeerIdentity, nodeId: string, reason: string, now = Date.now()): Promise<Revocation> {
    return this.revocations.revoke(admin, nodeId, reason, now);
  }

  /**
   * Grants a node more relay names, keeping the ones it holds (see grantRelays); a grant that added
   * any is in the audit trail.
   */
  async grantRelays(admin: PeerIdentity, nodeId: string, relay: string, now = Date.now()): Promise<RelayGrant> {
    const grant = await grantRelays(this.store, admin, nodeId, relay, (id) => this.revocations.isRevoked(id), now);
    if (grant.added.length > 0)
      await this.audit.record(grant.projectId, 'relay-granted', [grant.nodeId, grant.grantedBy], {
        relays: grant.added.join(','),
        by: grant.grantedBy,
      });
    return grant;
  }

  /** Revocations a member returns that this store lacks (see Revocations.takeBack). */
  takeBackRevocations(
    reporter: PeerIdentity,
    entries: readonly RevokedEntry[],
    now = Date.now(),
  ): Promise<Revocation[]> {
    return this.revocations.takeBack(reporter, entries, now);
  }

  isRevoked(nodeId: string): Promise<boolean> {
    return this.revocations.isRevoked(nodeId);
  }

  /** A revocation another replica made: `nodeId` is refused here from now on. */
  noteRevokedElsewhere(nodeId: string): Promise<void> {
    return this.revocations.noteRevoked(nodeId);
  }

  /** Catches up with the revocations other replicas made while this one was not listening. */
  reloadRevocations(): Promise<void> {
    return this.revocations.reload();
  }

  /** What the nodes and relays of `projectId` refuse. */
  revocationsOf(projectId: string, now = Date.now()): Promise<RevokedEntry[]> {
    return this.revocations.listOf(projectId, now);
  }

  tickets(admin: PeerIdentity, now = Date.now()): Promise<TicketInfo[]> {
    return ticketsOf(this.store, admin, now);
  }

  async cancelTicket(admin: PeerIdentity, ticketId: string, now = Date.now()): Promise<Cancellation> {
    const cancellation = await cancelTicket(this.store, admin, ticketId, now);
    await this.audit.record(admin.projectId, 'ticket-cancelled', [admin.nodeId], {
      ticket: ticketId,
      by: admin.nodeId,
    });
    return cancellation;
  }

  /** A member opened or closed a connection to the controller. */
  noteSeen(nodeId: string, now = Date.now()): Promise<void> {
    return noteSeen(this.store, nodeId, now);
  }
}
