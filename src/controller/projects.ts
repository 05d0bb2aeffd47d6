/**
 * The projects a controller hosts, as their administrators see them. Only a project's administrator
 * may ask about it or issue its tickets.
 */
import type { PeerIdentity } from '../pki/identity.ts';
import { InputError } from '../shared/errors.ts';
import type { ProjectInfo } from '../wire/protocol.ts';
import type { Store } from './store/open.ts';

/** How many projects the controller hosts. */
export async function projectCount(store: Store): Promise<number> {
  const row = await store
    .selectFrom('projects')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** The administrator's project, with the address its nodes dial (`controller`). */
export async function projectOf(store: Store, admin: PeerIdentity, controller: string): Promise<ProjectInfo> {
  requireAdmin(admin);
  const row = await store
    .selectFrom('projects')
    .selectAll()
    .where('id', '=', admin.projectId)
    .executeTakeFirstOrThrow();
  return {
    id: row.id,
    name: row.name,
    controller,
    network_domain: row.network_domain,
    created_at: new Date(row.created_at).toISOString(),
  };
}

export function requireAdmin(peer: PeerIdentity): void {
  if (!peer.admin) {
    throw new InputError('NOT_ADMIN', 'only the project administrator may do this', {
      hint: 'run the command where portal enroll was run',
    });
  }
}
