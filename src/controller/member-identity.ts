/**
 * An identity as the store holds it: what a certificate says, read from a member's row, or from the row
 * of the ticket that grants it. Pure.
 */
import type { PeerIdentity } from '../pki/identity.ts';
import { attributesOfRow, type AttributeColumns } from './member-attributes.ts';
import { relaysOfGrant } from './relay-grant.ts';

/** The columns of `members` (and of `tickets`) an identity is read from. */
export interface IdentityColumns extends AttributeColumns {
  readonly relay: string | null;
  readonly admin: number;
  readonly tls: number;
  readonly relay_node: number;
}

export function identityOfRow(projectId: string, nodeId: string, row: IdentityColumns): PeerIdentity {
  return {
    projectId,
    nodeId,
    attributes: attributesOfRow(row),
    relays: relaysOfGrant(row.relay),
    admin: row.admin === 1,
    tls: row.tls === 1,
    relayNode: row.relay_node === 1,
  };
}
