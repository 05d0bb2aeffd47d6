/**
 * What a node says when its project revoked it, and what the administrator does about it. Pure.
 *
 * A revoked member is refused by the controller, every relay and every peer for good, and is never
 * certified again: retrying would only fill its log. The node says so once, with what serves again (a
 * new enrollment), and stops trying.
 */
import { join } from 'node:path';
import type { IdentityRecord } from './identity-store.ts';

/**
 * Where a node that learnt it was revoked notes so, beside its identity: `portal reset` then does not
 * tell the administrator to revoke it.
 */
export const revokedNoteFile = (directory: string) => join(directory, 'revoked-by-project.json');

/** The flags of `portal project ticket` that enroll a node with the same grants as `record`. */
export function ticketFlagsFor(record: Pick<IdentityRecord, 'attributes' | 'relays' | 'tls'>): string {
  return [
    ...record.attributes.map((attribute) => `--attribute ${shellWord(attribute)}`),
    ...record.relays.map((relay) => `--relay ${shellWord(relay)}`),
    ...(record.tls ? ['--tls'] : []),
  ].join(' ');
}

/** The one line a revoked node logs, and gives as its problem from then on. */
export function revokedLine(record: IdentityRecord, why: string): string {
  return (
    `this node ${record.nodeId} was revoked from project ${record.projectId} (${why}); it carries no traffic ` +
    'and retries nothing. To serve here again, an administrator issues a new ticket ' +
    `(portal project ticket ${ticketFlagsFor(record)}); then run portal reset --yes with this PORTAL_HOME ` +
    'and start the node with the new ticket'
  );
}

/**
 * What `portal reset` says of a member identity it removed: the member stays in its project until an
 * administrator revokes it (or says it was revoked already).
 */
export function identityLeftLine(what: 'node' | 'relay', record: IdentityRecord, revokedAt?: string): string {
  const member = `The ${what} ${record.nodeId} of project ${record.projectId} (controller ${record.controller})`;
  if (revokedAt !== undefined) return `${member} was revoked from its project at ${revokedAt}: nothing is left to do.`;
  return `${member} stays an active member until an administrator runs: portal project revoke ${record.nodeId}`;
}

/** A word as a shell reads it: bare when it is safe, else in single quotes. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_.,:=@%+/-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
