/**
 * What the store knows of the members a batch of audit reports names: whether each is a member of the
 * reporter's project, a relay, revoked. One statement per 50 ids, always of the same text (the ids are
 * padded), so that the store prepares it once.
 */
import type { NamedMember } from './report-rules.ts';
import type { Store } from './store/open.ts';

const lookupChunk = 50;

export async function namedMembers(
  store: Store,
  projectId: string,
  ids: readonly string[],
): Promise<Map<string, NamedMember>> {
  const known = new Map<string, NamedMember>();
  for (let index = 0; index < ids.length; index += lookupChunk) {
    const chunk = ids.slice(index, index + lookupChunk);
    // No member id is empty: the padding matches nothing.
    const padded = [...chunk, ...Array<string>(lookupChunk - chunk.length).fill('')];
    const rows = await store
      .selectFrom('members')
      .leftJoin('revocations', 'revocations.node_id', 'members.node_id')
      .select(['members.node_id as id', 'members.relay_node', 'revocations.revoked_at'])
      .where('members.project_id', '=', projectId)
      .where('members.node_id', 'in', padded)
      .execute();
    for (const row of rows) known.set(row.id, { relayNode: row.relay_node === 1, revoked: row.revoked_at !== null });
  }
  return known;
}
