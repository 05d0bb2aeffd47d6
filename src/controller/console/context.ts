/** What the console's routes are given: the controller's answers, and the session of the request. */
import type { PeerIdentity } from '../../pki/identity.ts';
import type { MemberInfo, ProjectInfo, RelayEntry, TicketBody, TicketInfo } from '../../wire/protocol.ts';
import type { AuditDetails, AuditPage, AuditRequest } from '../../wire/protocol/audit.ts';
import type { NodePortalReport } from '../portal-reports.ts';
import type { Revocation } from '../revocations.ts';
import type { ConsoleSession } from './access.ts';

/** What the pages show, read from the controller for the session's administrator. */
export interface ConsoleData {
  project(admin: PeerIdentity): Promise<ProjectInfo>;
  members(admin: PeerIdentity): Promise<MemberInfo[]>;
  relays(admin: PeerIdentity): RelayEntry[];
  /** Takes a member out, as `portal project revoke` does (its connections cut, every holder told). */
  revoke(admin: PeerIdentity, member: string, reason: string): Promise<Revocation>;
  /** The tickets that can still enroll someone. */
  tickets(admin: PeerIdentity): Promise<TicketInfo[]>;
  /** Issues a ticket as `portal project ticket` does; its text, which is shown once. */
  issueTicket(admin: PeerIdentity, body: TicketBody): Promise<string>;
  cancelTicket(admin: PeerIdentity, ticket: string): Promise<unknown>;
  /** Records a sign-in or sign-out in the audit trail, naming the administrator. */
  note(admin: PeerIdentity, event: 'console-signed-in' | 'console-signed-out', details: AuditDetails): Promise<void>;
  /** A page of the audit trail, as `portal project audit` reads it. */
  audit(admin: PeerIdentity, query: AuditRequest): Promise<AuditPage>;
  /** What the project's nodes report their portals carry now (every replica's). */
  portals(admin: PeerIdentity): NodePortalReport[];
  /** The addresses of the controller replicas serving the project (one without replicas). */
  controllers(admin: PeerIdentity): readonly string[];
}

/** A signed-in request carries its session. */
export type ConsoleEnv = { Variables: { session: ConsoleSession } };
