/**
 * Taking a member out of its project. A revoked member is never certified again (renewal, re-issue),
 * its certificate authenticates nothing on the controller, and the list of revoked members whose
 * certificates may still be valid is what nodes and relays refuse. An entry lasts until the member's
 * last certificate has expired (at most one credential lifetime after the revocation): past that the
 * certificate is refused for its date, so the list stays as short as the members revoked lately.
 */
import type { PeerIdentity } from '../pki/identity.ts';
import { InputError } from '../shared/errors.ts';
import type { RevokedEntry } from '../wire/protocol.ts';
import { revocationsReturnedPerRequest } from '../wire/limits.ts';
import { requireAdmin } from './projects.ts';
import { isProven, proven } from './revocation-proof.ts';
import type { Transaction } from 'kysely';
import { notifyWith } from './store/notices.ts';
import { storeEngine, type Store } from './store/open.ts';
import type { Database } from './store/schema.ts';

/** A revocation as it happened: the one place that records it (and where an audit trail hears of it). */
export interface Revocation {
  readonly projectId: string;
  readonly entry: RevokedEntry;
  readonly revokedBy: string;
  readonly reason: string;
  readonly at: number;
}

/** The longest reason kept. */
const maxReasonLength = 500;

export class Revocations {
  /** Node ids revoked, read from the store once and kept as revocations happen. */
  private revoked: Promise<Set<string>> | undefined;

  constructor(
    private readonly store: Store,
    /** The lifetime of the certificates the controller signs now. */
    private readonly credentialLifetimeMs: () => number,
    /** The key of the proofs each entry carries (revocation-proof.ts). */
    private readonly proofKey: Buffer,
  ) {}

  /** Whether `nodeId` was revoked: one set lookup once the store has been read. */
  async isRevoked(nodeId: string): Promise<boolean> {
    return (await this.known()).has(nodeId);
  }

  /**
   * Revokes `nodeId`, a member of the administrator's project: refused when it is not one, when it was
   * revoked already, and when it is the project's last administrator (checked in the transaction that
   * records the revocation, so two administrators revoking each other leave one).
   */
  async revoke(admin: PeerIdentity, nodeId: string, reason: string, now = Date.now()): Promise<Revocation> {
    requireAdmin(admin);
    if (reason.length > maxReasonLength)
      throw new InputError('BAD_FLAG', `--reason is ${reason.length} characters long`, {
        hint: `give a reason of at most ${maxReasonLength} characters`,
      });
    // Its own connection would close before the answer: another administrator does it, knowingly.
    if (nodeId === admin.nodeId)
      throw new InputError('SELF_REVOCATION', 'an administrator cannot revoke itself', {
        hint: 'ask another administrator to run portal project revoke with your id',
      });
    const revocation = await this.store.transaction().execute(async (trx) => {
      const member = await trx.selectFrom('members').selectAll().where('node_id', '=', nodeId).executeTakeFirst();
      if (!member || member.project_id !== admin.projectId) throw unknownMember(nodeId);
      const earlier = await trx
        .selectFrom('revocations')
        .select('revoked_at')
        .where('node_id', '=', nodeId)
        .executeTakeFirst();
      if (earlier)
        throw new InputError(
          'MEMBER_REVOKED',
          `the member ${nodeId} was revoked already, at ${new Date(earlier.revoked_at).toISOString()}`,
          { hint: 'see portal project members' },
        );
      if (member.admin === 1) {
        const others = await trx
          .selectFrom('members')
          .leftJoin('revocations', 'revocations.node_id', 'members.node_id')
          .select('members.node_id')
          .where('members.project_id', '=', admin.projectId)
          .where('members.admin', '=', 1)
          .where('revocations.node_id', 'is', null)
          .where('members.node_id', '!=', nodeId)
          .execute();
        if (others.length === 0)
          throw new InputError('LAST_ADMINISTRATOR', `${nodeId} is the last administrator of the project`, {
            hint: 'enroll another administrator first (portal project ticket --admin, then portal enroll --ticket)',
          });
      }
      // Any certificate signed before this moment has expired by `until`.
      const until = Math.max(member.certificate_expires_at ?? 0, now + this.credentialLifetimeMs());
      await trx
        .insertInto('revocations')
        .values({
          node_id: nodeId,
          project_id: admin.projectId,
          revoked_at: now,
          revoked_by: admin.nodeId,
          reason,
          certificate_expires_at: until,
        })
        .execute();
      const entry = proven(this.proofKey, admin.projectId, { nodeId, until });
      const made = { projectId: admin.projectId, entry, revokedBy: admin.nodeId, reason, at: now };
      await this.tellReplicas(trx, made);
      return made;
    });
    (await this.known()).add(nodeId);
    return revocation;
  }

  /** The revoked members of `projectId` whose certificates may still be valid at `now`. */
  async listOf(projectId: string, now = Date.now()): Promise<RevokedEntry[]> {
    const rows = await this.store
      .selectFrom('revocations')
      .select(['node_id', 'certificate_expires_at'])
      .where('project_id', '=', projectId)
      .where('certificate_expires_at', '>', now)
      .orderBy('node_id')
      .execute();
    return rows.map((row) =>
      proven(this.proofKey, projectId, { nodeId: row.node_id, until: Number(row.certificate_expires_at) }),
    );
  }

  /**
   * Takes back the revocations a member of the project returns that this store lacks (it was restored
   * from a backup taken before them): only entries that carry this controller's proof for the
   * reporter's project, still in force, at most revocationsReturnedPerRequest of them. Each is recorded
   * as made now, by the reporter's return; what was taken back.
   */
  async takeBack(reporter: PeerIdentity, entries: readonly RevokedEntry[], now = Date.now()): Promise<Revocation[]> {
    const known = await this.known();
    const taken: Revocation[] = [];
    for (const entry of entries.slice(0, revocationsReturnedPerRequest)) {
      if (known.has(entry.nodeId) || entry.until <= now || !isProven(this.proofKey, reporter.projectId, entry))
        continue;
      const reason = `revoked before the controller was restored; returned by ${reporter.nodeId}`;
      const revocation = {
        projectId: reporter.projectId,
        entry: proven(this.proofKey, reporter.projectId, entry),
        revokedBy: reporter.nodeId,
        reason,
        at: now,
      };
      const inserted = await this.store.transaction().execute(async (trx) => {
        const row = await trx
          .insertInto('revocations')
          .values({
            node_id: entry.nodeId,
            project_id: reporter.projectId,
            revoked_at: now,
            revoked_by: reporter.nodeId,
            reason,
            certificate_expires_at: entry.until,
          })
          .onConflict((conflict) => conflict.column('node_id').doNothing())
          .executeTakeFirst();
        const added = Number(row.numInsertedOrUpdatedRows ?? 0n) > 0;
        if (added) await this.tellReplicas(trx, revocation);
        return added;
      });
      known.add(entry.nodeId);
      if (!inserted) continue;
      taken.push(revocation);
    }
    return taken;
  }

  /** A revocation another replica made (its notice): refused here too from now on. */
  async noteRevoked(nodeId: string): Promise<void> {
    (await this.known()).add(nodeId);
  }

  /**
   * Reads the revoked members from the store again and adds them: what notices missed while this
   * replica was not listening. A revocation is never taken back, so adding is all there is to do.
   */
  async reload(): Promise<void> {
    const [known, stored] = await Promise.all([this.known(), this.read()]);
    for (const nodeId of stored) known.add(nodeId);
  }

  /** Replicas on one PostgreSQL store hear of it when `trx` commits (store/notices.ts). */
  private async tellReplicas(trx: Transaction<Database>, revocation: Revocation): Promise<void> {
    if (storeEngine(this.store) === 'postgres') await notifyWith(trx, revocationNotices, JSON.stringify(revocation));
  }

  private read(): Promise<Set<string>> {
    return this.store
      .selectFrom('revocations')
      .select('node_id')
      .execute()
      .then((rows) => new Set(rows.map((row) => row.node_id)));
  }

  private known(): Promise<Set<string>> {
    this.revoked ??= this.read();
    return this.revoked;
  }
}

/** The channel of revocation notices between replicas. */
export const revocationNotices = 'portal_revoked';

/** A revocation notice's payload, or undefined when it is none. */
export function revocationOfNotice(payload: string): Revocation | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload);
  } catch {
    return undefined;
  }
  const notice = parsed as Partial<Revocation> | null;
  const entry = notice?.entry;
  const texts = [notice?.projectId, notice?.revokedBy, notice?.reason, entry?.nodeId];
  if (!texts.every((text) => typeof text === 'string') || typeof entry?.until !== 'number') return undefined;
  if (typeof notice?.at !== 'number') return undefined;
  return notice as Revocation;
}

export function unknownMember(nodeId: string): InputError {
  return new InputError('MEMBER_UNKNOWN', `the project has no member ${nodeId}`, {
    hint: 'see the ids with portal project members',
  });
}

export function memberRevoked(nodeId: string): InputError {
  return new InputError('MEMBER_REVOKED', `the member ${nodeId} was revoked from the project`, {
    hint: 'an administrator revoked it (portal project members says when and why); enroll a new node with a new ticket',
  });
}
