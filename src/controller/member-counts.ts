/** How many members the controller's projects have, by kind, as its metrics read them. */
import type { Store } from './store/open.ts';

/** A revoked member counts as revoked, whatever it was. */
export type MemberKind = 'admin' | 'node' | 'relay' | 'revoked';

export async function memberCounts(store: Store): Promise<Record<MemberKind, number>> {
  const rows = await store
    .selectFrom('members')
    .leftJoin('revocations', 'revocations.node_id', 'members.node_id')
    .select([
      'members.admin',
      'members.relay_node',
      (eb) => eb('revocations.node_id', 'is not', null).as('revoked'),
      (eb) => eb.fn.countAll<number | string>().as('count'),
    ])
    .groupBy(['members.admin', 'members.relay_node', 'revoked'])
    .execute();
  const counts: Record<MemberKind, number> = { admin: 0, node: 0, relay: 0, revoked: 0 };
  for (const row of rows) {
    const kind: MemberKind = Number(row.revoked)
      ? 'revoked'
      : row.admin === 1
        ? 'admin'
        : row.relay_node === 1
          ? 'relay'
          : 'node';
    counts[kind] += Number(row.count);
  }
  return counts;
}

/** Undefined when the store answers a query within `limitMs`; why not, otherwise. */
export async function storeProblem(store: Store, limitMs: number): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`the store did not answer within ${limitMs} ms`), limitMs);
  });
  const query = store
    .selectFrom('projects')
    .select('id')
    .limit(1)
    .execute()
    .then(
      () => undefined,
      (error: Error) => `the store cannot be read: ${error.message}`,
    );
  try {
    return await Promise.race([query, late]);
  } finally {
    clearTimeout(timer);
  }
}
