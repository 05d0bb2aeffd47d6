/**
 * What an administrator sees of the project's members and tickets: `portal project members`,
 * `portal project tickets`, and cancelling a ticket before it is used. A ticket's secret is stored only
 * hashed and is never part of what is shown.
 */
import type { PeerIdentity } from '../pki/identity.ts';
import { InputError } from '../shared/errors.ts';
import type { MemberInfo, TicketInfo } from '../wire/protocol.ts';
import { attributesOfRow } from './member-attributes.ts';
import { requireAdmin } from './projects.ts';
import { relaysOfGrant } from './relay-grant.ts';
import type { Store } from './store/open.ts';

const isoOrNull = (time: number | null) => (time === null ? null : new Date(Number(time)).toISOString());

/** What the controller knows of a member's connections now: the server's part of the listing. */
export interface MemberPresence {
  readonly connected: boolean;
  readonly liveSessions: number | null;
}

/** Every member of the administrator's project, in the order they enrolled, revoked ones included. */
export async function membersOf(
  store: Store,
  admin: PeerIdentity,
  presence: (nodeId: string) => MemberPresence,
  now = Date.now(),
): Promise<MemberInfo[]> {
  requireAdmin(admin);
  const rows = await store
    .selectFrom('members')
    .leftJoin('revocations', 'revocations.node_id', 'members.node_id')
    .select([
      'members.node_id as id',
      'members.attribute',
      'members.attributes',
      'members.relay',
      'members.tls',
      'members.admin',
      'members.relay_node',
      'members.enrolled_at',
      'members.certificate_expires_at',
      'members.last_seen',
      'revocations.revoked_at',
      'revocations.revoked_by',
      'revocations.reason',
    ])
    .where('members.project_id', '=', admin.projectId)
    .orderBy('members.seq')
    .execute();
  return rows.map((row) => {
    const { connected, liveSessions } = presence(row.id);
    return {
      id: row.id,
      kind: row.admin === 1 ? 'administrator' : row.relay_node === 1 ? 'relay' : 'node',
      attributes: attributesOfRow(row),
      relays: relaysOfGrant(row.relay),
      tls: row.tls === 1,
      enrolledAt: new Date(Number(row.enrolled_at)).toISOString(),
      certificateExpiresAt: isoOrNull(row.certificate_expires_at),
      lastSeen: connected ? new Date(now).toISOString() : isoOrNull(row.last_seen),
      connected,
      liveSessions,
      revoked:
        row.revoked_at === null
          ? null
          : { at: new Date(Number(row.revoked_at)).toISOString(), by: row.revoked_by ?? '', reason: row.reason ?? '' },
    };
  });
}

/** Records that a member opened or closed a connection to the controller. */
export async function noteSeen(store: Store, nodeId: string, now = Date.now()): Promise<void> {
  await store.updateTable('members').set({ last_seen: now }).where('node_id', '=', nodeId).execute();
}

/** Records the expiry of the certificate just signed for a member. */
export async function noteCertificate(store: Store, nodeId: string, expiresAt: number): Promise<void> {
  await store.updateTable('members').set({ certificate_expires_at: expiresAt }).where('node_id', '=', nodeId).execute();
}

/** The tickets of the administrator's project that can still enroll someone: not expired, used up or cancelled. */
export async function ticketsOf(store: Store, admin: PeerIdentity, now = Date.now()): Promise<TicketInfo[]> {
  requireAdmin(admin);
  const rows = await store
    .selectFrom('tickets')
    .select([
      'id',
      'attribute',
      'attributes',
      'relay',
      'tls',
      'relay_node',
      'admin',
      'uses_left',
      'expires_at',
      'created_at',
      'issued_by',
    ])
    .where('project_id', '=', admin.projectId)
    .where('uses_left', '>', 0)
    .where('expires_at', '>', now)
    .where('cancelled_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((row) => ({
    id: row.id,
    grants: {
      attribute: row.attribute,
      attributes: attributesOfRow(row),
      relays: relaysOfGrant(row.relay),
      tls: row.tls === 1,
      relayNode: row.relay_node === 1,
      admin: row.admin === 1,
    },
    usesLeft: row.uses_left,
    expiresAt: new Date(Number(row.expires_at)).toISOString(),
    issuedAt: new Date(Number(row.created_at)).toISOString(),
    issuedBy: row.issued_by,
  }));
}

/** A ticket cancelled: the one place that records it (and where an audit trail hears of it). */
export interface Cancellation {
  readonly projectId: string;
  readonly ticketId: string;
  readonly cancelledBy: string;
  readonly at: number;
}

/**
 * Cancels a ticket of the administrator's project that can still enroll someone: from then on it
 * enrolls nobody. A ticket used up, expired or cancelled already is refused, so the administrator
 * learns that there was nothing left to cancel.
 */
export async function cancelTicket(
  store: Store,
  admin: PeerIdentity,
  ticketId: string,
  now = Date.now(),
): Promise<Cancellation> {
  requireAdmin(admin);
  const cancelled = await store
    .updateTable('tickets')
    .set({ cancelled_at: now, uses_left: 0 })
    .where('id', '=', ticketId)
    .where('project_id', '=', admin.projectId)
    .where('cancelled_at', 'is', null)
    .where('uses_left', '>', 0)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  if (cancelled.numUpdatedRows === 0n)
    throw new InputError('TICKET_UNKNOWN', `the project has no ticket ${ticketId} that can still be used`, {
      hint: 'see the tickets that can with portal project tickets',
    });
  return { projectId: admin.projectId, ticketId, cancelledBy: admin.nodeId, at: now };
}
