/**
 * One set of migrations for every store engine: portable column types and constraints, and where an
 * engine spells something its own way (a column numbered by the database), the one place that says so.
 *
 * Controller replicas of two versions run side by side during a rolling upgrade, so a migration only
 * expands the schema (new tables, new nullable or defaulted columns) while a previous version may still
 * run; what it replaces is dropped by a later migration, once no replica of that version is left.
 */
import { sql, type ColumnDefinitionBuilder, type Kysely, type Migration } from 'kysely';

export type StoreEngine = 'sqlite' | 'postgres';

/** The migrations of `engine`, by name (Kysely runs them in name order, each once). */
export function migrationsFor(engine: StoreEngine): Record<string, Migration> {
  const numbered = (column: ColumnDefinitionBuilder) =>
    engine === 'postgres' ? column.primaryKey().generatedByDefaultAsIdentity() : column.primaryKey().autoIncrement();
  return { '0001-initial': initial(numbered), ...later };
}

const initial = (numbered: (column: ColumnDefinitionBuilder) => ColumnDefinitionBuilder): Migration => ({
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('projects')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('network_domain', 'text', (c) => c.notNull())
      .addColumn('ca_certificate', 'text', (c) => c.notNull())
      .addColumn('ca_private_key', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('admin_codes')
      .addColumn('code_hash', 'text', (c) => c.primaryKey())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('used_at', 'bigint')
      .execute();
    await db.schema
      .createTable('tickets')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
      .addColumn('secret_hash', 'text', (c) => c.notNull())
      .addColumn('attribute', 'text', (c) => c.notNull())
      .addColumn('relay', 'text')
      .addColumn('tls', 'integer', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('uses_left', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('members')
      .addColumn('seq', 'integer', numbered)
      .addColumn('node_id', 'text', (c) => c.notNull().unique())
      .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
      .addColumn('attribute', 'text')
      .addColumn('relay', 'text')
      .addColumn('tls', 'integer', (c) => c.notNull())
      .addColumn('admin', 'integer', (c) => c.notNull())
      .addColumn('ticket_id', 'text')
      .addColumn('enrolled_at', 'bigint', (c) => c.notNull())
      .execute();
  },
});

const later: Record<string, Migration> = {
  // The key each member enrolled with: an expired certificate is re-issued only to that key. Members
  // enrolled before this have none until their next renewal or re-issue records it.
  '0002-member-keys': {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('members').addColumn('public_key_sha256', 'text').execute();
    },
  },
  // Relay nodes: a ticket may grant the relay role instead of an attribute; the member keeps it.
  '0003-relay-nodes': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable('tickets')
        .addColumn('relay_node', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .alterTable('members')
        .addColumn('relay_node', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
    },
  },
  // Revocation: a member can be taken out (the list nodes and relays keep), several administrators
  // (admin tickets), tickets that say who issued them and can be cancelled, and what `project members`
  // shows (the certificate's expiry, when the member was last seen).
  '0004-revocation': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('revocations')
        .addColumn('node_id', 'text', (c) => c.primaryKey())
        .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
        .addColumn('revoked_at', 'bigint', (c) => c.notNull())
        .addColumn('revoked_by', 'text', (c) => c.notNull())
        .addColumn('reason', 'text', (c) => c.notNull())
        .addColumn('certificate_expires_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.alterTable('tickets').addColumn('issued_by', 'text').execute();
      await db.schema
        .alterTable('tickets')
        .addColumn('admin', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.alterTable('tickets').addColumn('cancelled_at', 'bigint').execute();
      await db.schema.alterTable('members').addColumn('certificate_expires_at', 'bigint').execute();
      await db.schema.alterTable('members').addColumn('last_seen', 'bigint').execute();
    },
  },
  // The audit trail: one row per event, append-only, hash-chained per project (src/shared/audit-chain.ts).
  // A reporter's id for its record is unique within the project, so a report sent twice is written once.
  '0005-audit': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('audit_records')
        .addColumn('project_id', 'text', (c) => c.notNull())
        .addColumn('seq', 'bigint', (c) => c.notNull())
        .addColumn('occurred_at', 'bigint', (c) => c.notNull())
        .addColumn('recorded_at', 'bigint', (c) => c.notNull())
        .addColumn('event', 'text', (c) => c.notNull())
        .addColumn('seen_by', 'text', (c) => c.notNull())
        .addColumn('report_id', 'text', (c) => c.notNull())
        .addColumn('members', 'text', (c) => c.notNull())
        .addColumn('details', 'text', (c) => c.notNull())
        .addColumn('prev_hash', 'text', (c) => c.notNull())
        .addColumn('hash', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('audit_records_pk', ['project_id', 'seq'])
        .addUniqueConstraint('audit_records_report', ['project_id', 'seen_by', 'report_id'])
        .execute();
      await db.schema
        .createIndex('audit_records_time')
        .on('audit_records')
        .columns(['project_id', 'occurred_at'])
        .execute();
    },
  },
  // Several attributes per member (NAME or KEY=VALUE), comma-joined (neither holds a comma). The single
  // attribute column keeps the first, so every existing row reads the same; each existing row's list is
  // its one attribute.
  '0006-attributes': {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('tickets').addColumn('attributes', 'text').execute();
      await db.schema.alterTable('members').addColumn('attributes', 'text').execute();
      await sql`update tickets set attributes = attribute where attribute <> ''`.execute(db);
      await sql`update members set attributes = attribute where attribute is not null and attribute <> ''`.execute(db);
    },
  },
  // Signed audit records (src/shared/audit-signature.ts): each row names the encoding it was hashed in
  // (1 for every row written before), and the last row of each append carries the trail key's signature.
  '0007-audit-signatures': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable('audit_records')
        .addColumn('encoding', 'integer', (c) => c.notNull().defaultTo(1))
        .execute();
      await db.schema.alterTable('audit_records').addColumn('signature', 'text').execute();
    },
  },
  // Controller replicas on one database present one certificate, so that every ticket and node pins one
  // fingerprint whichever replica answers: the pair lives here, the key sealed (src/controller/replica-identity.ts).
  // A controller on SQLite keeps its pair in its data directory and leaves this table empty.
  '0008-controller-identity': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('controller_identity')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('certificate', 'text', (c) => c.notNull())
        .addColumn('sealed_key', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
    },
  },
  // Controller replicas on one database: each holds a lease (its row, renewed while it runs), and what
  // members announced to it for as long as their connections last (relay nodes, inlets' direct paths),
  // so that the others tell their own members (src/controller/replica-live-state.ts). A replica that stops
  // renewing is swept by the others, with what it held.
  '0009-replica-leases': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('controller_replicas')
        .addColumn('id', 'text', (c) => c.primaryKey())
        // Comma-joined: every --public-address it was given.
        .addColumn('addresses', 'text', (c) => c.notNull())
        .addColumn('started_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('live_entries')
        .addColumn('replica', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('project_id', 'text', (c) => c.notNull())
        .addColumn('key', 'text', (c) => c.notNull())
        .addColumn('body', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('live_entries_pk', ['replica', 'kind', 'project_id', 'key'])
        .execute();
    },
  },
  // The web console's one-time sign-in links and its browsers' sessions, both by the hash of their
  // secret; in the database, so that any replica serves a session another signed in.
  '0010-console-access': {
    async up(db: Kysely<unknown>) {
      for (const table of ['console_links', 'console_sessions']) {
        let create = db.schema
          .createTable(table)
          .addColumn('secret_sha256', 'text', (c) => c.primaryKey())
          .addColumn('project_id', 'text', (c) => c.notNull())
          .addColumn('member', 'text', (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('expires_at', 'bigint', (c) => c.notNull());
        if (table === 'console_links') create = create.addColumn('used_at', 'bigint');
        await create.execute();
      }
    },
  },
};
