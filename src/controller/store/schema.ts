/** The controller's tables, as Kysely sees them. Times are epoch milliseconds; booleans are 0/1. */
import type { Generated } from 'kysely';

export interface ProjectTable {
  id: string;
  name: string;
  network_domain: string;
  ca_certificate: string;
  /** The CA private key, sealed under the controller's sealing key (base64). */
  ca_private_key: string;
  created_at: number;
}

export interface AdminCodeTable {
  code_hash: string;
  expires_at: number;
  used_at: number | null;
}

export interface TicketTable {
  id: string;
  project_id: string;
  /** SHA-256 of the secret: the secret itself is never stored. */
  secret_hash: string;
  attribute: string;
  relay: string | null;
  tls: number;
  /** 1: the ticket enrolls a relay node. */
  relay_node: Generated<number>;
  expires_at: number;
  uses_left: number;
  created_at: number;
}

export interface MemberTable {
  node_id: string;
  project_id: string;
  attribute: string | null;
  relay: string | null;
  tls: number;
  admin: number;
  relay_node: Generated<number>;
  ticket_id: string | null;
  enrolled_at: number;
  /** SHA-256 (hex) of the public key the member enrolled with; null for members enrolled before it was kept. */
  public_key_sha256: Generated<string | null>;
  seq: Generated<number>;
}

/** One record of the audit trail: see src/shared/audit-chain.ts for what its hash covers. */
export interface AuditRecordTable {
  project_id: string;
  /** Its place in the project's chain, from 1. */
  seq: number;
  occurred_at: number;
  recorded_at: number;
  event: string;
  /** "controller", or the node id of the member that reported it. */
  seen_by: string;
  /** The reporter's id for the record (random for the controller's own). */
  report_id: string;
  /** Canonical JSON: an array of member ids. */
  members: string;
  /** Canonical JSON: an object of scalars. */
  details: string;
  prev_hash: string;
  hash: string;
}

export interface Database {
  projects: ProjectTable;
  admin_codes: AdminCodeTable;
  tickets: TicketTable;
  members: MemberTable;
  audit_records: AuditRecordTable;
}
