/**
 * An administrator grants an enrolled node more relay names (`portal project grant`), so that it can
 * serve an outlet for another relay without enrolling again. The member keeps every grant it had; the
 * store is what renewal and re-issue certify from, so the node's next certificate carries the names,
 * and a node asks for one as soon as its configuration needs a name its certificate lacks.
 */
import type { PeerIdentity } from '../pki/identity.ts';
import { InputError } from '../shared/errors.ts';
import { relaysPerTicket } from '../shared/limits.ts';
import { requireAdmin } from './projects.ts';
import { relayNames, relaysOfGrant } from './relay-grant.ts';
import { memberRevoked, unknownMember } from './revocations.ts';
import type { Store } from './store/open.ts';

/** A grant as it happened: the one place that records it (and where an audit trail hears of it). */
export interface RelayGrant {
  readonly projectId: string;
  readonly nodeId: string;
  /** The names this grant added, in the order asked (none when the member held them all already). */
  readonly added: readonly string[];
  /** Every relay name the member holds now. */
  readonly relays: readonly string[];
  readonly grantedBy: string;
  readonly at: number;
}

/**
 * Adds the relay names `relay` (one, or several comma-joined) to `nodeId`, a node of the
 * administrator's project: refused for a member of another project or none, a revoked member, a relay
 * node or an administrator (neither registers outlets), and past relaysPerTicket names in all. Checked
 * and written in one transaction, so two grants at once keep both.
 */
export async function grantRelays(
  store: Store,
  admin: PeerIdentity,
  nodeId: string,
  relay: string,
  isRevoked: (nodeId: string) => Promise<boolean>,
  now = Date.now(),
): Promise<RelayGrant> {
  requireAdmin(admin);
  const asked = relayNames(relay);
  if (asked.length === 0)
    throw new InputError('BAD_FLAG', 'no relay name to grant', { hint: 'give --relay NAME, once per name' });
  if (await isRevoked(nodeId)) throw memberRevoked(nodeId);
  return store.transaction().execute(async (trx) => {
    const member = await trx
      .selectFrom('members')
      .select(['project_id', 'relay', 'admin', 'relay_node'])
      .where('node_id', '=', nodeId)
      .executeTakeFirst();
    if (!member || member.project_id !== admin.projectId) throw unknownMember(nodeId);
    if (member.relay_node === 1 || member.admin === 1)
      throw new InputError(
        'GRANT_REFUSED',
        `${nodeId} is ${member.relay_node === 1 ? 'a relay node' : 'an administrator'}, which registers no outlet`,
        { hint: 'grant the relay name to the node that runs the outlet (portal project members lists the nodes)' },
      );
    const held = relaysOfGrant(member.relay);
    const added = asked.filter((name) => !held.includes(name));
    const relays = [...held, ...added];
    if (relays.length > relaysPerTicket)
      throw new InputError(
        'BAD_FLAG',
        `${nodeId} holds ${held.length} relay names; ${added.length} more would pass the bound of ${relaysPerTicket}`,
        { hint: 'a node serves at most that many relay names: give another node the rest' },
      );
    if (added.length > 0)
      await trx
        .updateTable('members')
        .set({ relay: relays.join(',') })
        .where('node_id', '=', nodeId)
        .execute();
    return { projectId: admin.projectId, nodeId, added, relays, grantedBy: admin.nodeId, at: now };
  });
}
