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
  /** Every attribute the ticket grants, comma-joined; null for a relay node's (and rows before 0006-attributes). */
  attributes: Generated<string | null>;
  expires_at: number;
  uses_left: number;
  created_at: number;
  /** The administrator who issued it; null for tickets issued before this was kept. */
  issued_by: Generated<string | null>;
  /** 1: the ticket enrolls another administrator. */
  admin: Generated<number>;
  /** Set when an administrator cancelled it: it enrolls nobody from then on. */
  cancelled_at: Generated<number | null>;
}

export interface MemberTable {
  node_id: string;
  project_id: string;
  attribute: string | null;
  relay: string | null;
  tls: number;
  admin: number;
  relay_node: Generated<number>;
  /** Every attribute the member carries, comma-joined; `attribute` holds the first. */
  attributes: Generated<string | null>;
  ticket_id: string | null;
  enrolled_at: number;
  /** SHA-256 (hex) of the public key the member enrolled with; null for members enrolled before it was kept. */
  public_key_sha256: Generated<string | null>;
  seq: Generated<number>;
  /** When the last certificate the controller signed for it expires. */
  certificate_expires_at: Generated<number | null>;
  /** When it last opened or closed a connection to the controller. */
  last_seen: Generated<number | null>;
}

/** A member taken out of its project: it is refused everywhere, and never certified again. */
export interface RevocationTable {
  node_id: string;
  project_id: string;
  revoked_at: number;
  /** The administrator who revoked it. */
  revoked_by: string;
  reason: string;
  /** After this its last certificate has expired: nodes may forget the entry. */
  certificate_expires_at: number;
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
  /** The encoding its hash was made in (src/shared/audit-chain.ts); 1 for rows written before signatures. */
  encoding: Generated<number>;
  /** The trail key's signature of `hash`, on the last row of each append; null on the others. */
  signature: string | null;
}

/** The TLS identity controller replicas share on a PostgreSQL store: one row, id "controller". */
export interface ControllerIdentityTable {
  id: string;
  certificate: string;
  /** Its private key, sealed under the sealing key every replica is given (base64). */
  sealed_key: string;
  created_at: number;
}

/** A controller replica on a PostgreSQL store, for as long as it renews its lease. */
export interface ControllerReplicaTable {
  id: string;
  /** Every --public-address it was given, comma-joined. */
  addresses: string;
  started_at: number;
  expires_at: number;
}

/** What a member announced to a replica (a relay node, an inlet's direct path), while it lasts. */
export interface LiveEntryTable {
  replica: string;
  /** "relay" or "advert". */
  kind: string;
  project_id: string;
  /** Its place: a relay node's id; an inlet's id and relay name. */
  key: string;
  /** JSON, as the kind's owner writes it. */
  body: string;
}

/**
 * A one-time sign-in link to the web console (`portal console`): stored hashed, used once, for minutes.
 * In the database, so that any replica signs in with a link another issued.
 */
export interface ConsoleLinkTable {
  /** SHA-256 (hex) of the link's secret. */
  secret_sha256: string;
  project_id: string;
  /** The administrator it signs in. */
  member: string;
  created_at: number;
  expires_at: number;
  /** Set when the link was used: it signs in nobody again. */
  used_at: Generated<number | null>;
}

/** A browser signed in to the web console: its cookie's secret, stored hashed, until it expires or signs out. */
export interface ConsoleSessionTable {
  /** SHA-256 (hex) of the cookie's secret. */
  secret_sha256: string;
  project_id: string;
  member: string;
  created_at: number;
  expires_at: number;
}

export interface Database {
  projects: ProjectTable;
  admin_codes: AdminCodeTable;
  tickets: TicketTable;
  members: MemberTable;
  revocations: RevocationTable;
  audit_records: AuditRecordTable;
  controller_identity: ControllerIdentityTable;
  controller_replicas: ControllerReplicaTable;
  live_entries: LiveEntryTable;
  console_links: ConsoleLinkTable;
  console_sessions: ConsoleSessionTable;
}
