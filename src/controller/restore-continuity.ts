/**
 * What a restore must not undo. A backup is a moment of the past: revocations made since, tickets
 * cancelled or used since, and the records the trail gained since are not in it. So a restored store is
 * changed before the controller serves from it:
 *
 * - every ticket it holds is retired (cancelled now, recorded as `ticket-cancelled` with the reason),
 *   unless the operator keeps them knowingly: a ticket cancelled or used up after the backup would
 *   enroll again otherwise;
 * - the revocations of the data directory it replaces are taken back, when that store can be read
 *   (nodes and relays return the rest when they connect: see revocation-proof.ts);
 * - each project's trail gets a `restored` record that names the backup's head and the head of the
 *   trail it replaces, with a seq past both, so no seq is used twice for two different records.
 */
import { randomBytes } from 'node:crypto';
import { canonicalJson, chainEncodingVersion, recordHash } from '../shared/audit-chain.ts';
import type { ChainCursor } from '../shared/audit-verify.ts';
import type { AuditSigner } from '../shared/audit-signature.ts';
import { InputError } from '../shared/errors.ts';
import { controllerWitness } from '../wire/protocol/audit.ts';
import { AuditTrail, chainHead } from './audit-trail.ts';
import type { Store } from './store/open.ts';
import type { RevocationTable } from './store/schema.ts';
import { KeptSqlite } from './store/sqlite.ts';

/** What the data directory being replaced still says, read before the restore writes anything. */
export interface ReplacedState {
  /** The head of each project's trail. */
  readonly heads: ReadonlyMap<string, ChainCursor>;
  readonly revocations: readonly RevocationTable[];
  /** Tickets cancelled or used up there: kept so when the operator keeps tickets. */
  readonly spentTickets: ReadonlyMap<string, { readonly cancelledAt: number | null; readonly usesLeft: number }>;
}

export interface ContinuityOptions {
  /** Keep the backup's tickets as they were (only what the replaced store says of them changes). */
  readonly keepTickets: boolean;
  readonly replaced?: ReplacedState;
  /** Heads the operator names, by project ('' for the only project): used when no store is replaced. */
  readonly previousHeads?: ReadonlyMap<string, ChainCursor>;
  /** Signs the records the restore appends, as the controller signs its own (src/shared/audit-signature.ts). */
  readonly signer: AuditSigner;
  /** @default Date.now */
  readonly now?: number;
}

/** What the restore changed, per project, for its report. */
export interface ContinuityReport {
  readonly projectId: string;
  readonly backupHead: ChainCursor;
  readonly previousHead: ChainCursor | null;
  /** The seq of the `restored` record. */
  readonly restoredSeq: number;
  readonly ticketsRetired: number;
  readonly revocationsTakenBack: number;
}

/** Reads the trail heads, revocations and spent tickets of the store at `path` (read-only). */
export async function readReplacedState(path: string): Promise<ReplacedState> {
  let database: KeptSqlite;
  try {
    database = await KeptSqlite.open(path, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw new InputError('NO_CONTROLLER_DATA', `cannot open the replaced store ${path} (${(error as Error).message})`, {
      hint: 'give --replaces the data directory the controller ran with until now, or leave it out',
    });
  }
  try {
    const heads = new Map<string, ChainCursor>();
    const headRows = database.all<{ project_id: string; seq: number; hash: string }>(
      'SELECT a.project_id, a.seq, a.hash FROM audit_records a JOIN ' +
        '(SELECT project_id, max(seq) AS seq FROM audit_records GROUP BY project_id) m ' +
        'ON a.project_id = m.project_id AND a.seq = m.seq',
    );
    for (const row of headRows) heads.set(row.project_id, { seq: Number(row.seq), hash: row.hash });
    const revocations = database.all<RevocationTable>('SELECT * FROM revocations');
    const spentTickets = new Map<string, { cancelledAt: number | null; usesLeft: number }>();
    for (const row of database.all<{ id: string; cancelled_at: number | null; uses_left: number }>(
      'SELECT id, cancelled_at, uses_left FROM tickets',
    ))
      spentTickets.set(row.id, { cancelledAt: row.cancelled_at, usesLeft: Number(row.uses_left) });
    return { heads, revocations, spentTickets };
  } catch (error) {
    throw new InputError(
      'NO_CONTROLLER_DATA',
      `the replaced store ${path} cannot be read (${(error as Error).message})`,
      { hint: 'give --previous-head SEQ:HASH from the last portal project audit instead, or leave --replaces out' },
    );
  } finally {
    database.close();
  }
}

/** Makes the restored `store` keep what its backup cannot know (see the file's comment). */
export async function keepContinuity(store: Store, options: ContinuityOptions): Promise<ContinuityReport[]> {
  const now = options.now ?? Date.now();
  const trail = new AuditTrail(store, { now: () => now, signer: options.signer });
  const projects = await store.selectFrom('projects').select('id').orderBy('id').execute();
  if (projects.length > 1 && options.previousHeads?.has(''))
    throw new InputError('BAD_FLAG', `the backup holds ${projects.length} projects, and --previous-head names none`, {
      hint: 'give one --previous-head PROJECT=SEQ:HASH per project',
    });
  const reports: ContinuityReport[] = [];
  for (const { id: projectId } of projects) {
    const previousHead =
      options.replaced?.heads.get(projectId) ??
      options.previousHeads?.get(projectId) ??
      (projects.length === 1 ? options.previousHeads?.get('') : undefined) ??
      null;
    const { backupHead, restoredSeq } = await appendRestored(store, projectId, previousHead, now, options.signer);
    const revocationsTakenBack = await takeBackRevocations(store, trail, projectId, options.replaced, now);
    const ticketsRetired = await settleTickets(store, trail, projectId, options, now);
    reports.push({ projectId, backupHead, previousHead, restoredSeq, ticketsRetired, revocationsTakenBack });
  }
  return reports;
}

/** The `restored` record: prev is the backup's head, seq one past the later of the two heads. */
async function appendRestored(
  store: Store,
  projectId: string,
  previousHead: ChainCursor | null,
  now: number,
  signer: AuditSigner,
): Promise<{ backupHead: ChainCursor; restoredSeq: number }> {
  const backupHead = await chainHead(store, projectId);
  const seq = Math.max(backupHead.seq, previousHead?.seq ?? 0) + 1;
  const record = {
    project: projectId,
    seq,
    time: now,
    recorded: now,
    event: 'restored',
    seenBy: controllerWitness,
    reportId: randomBytes(12).toString('base64url'),
    members: canonicalJson([]),
    details: canonicalJson({ backupHead, previousHead }),
    prev: backupHead.hash,
    encoding: chainEncodingVersion,
  };
  // Signed like the last record of any append: it vouches for the jump in seq that it explains.
  const hash = recordHash(record);
  await store
    .insertInto('audit_records')
    .values({
      project_id: projectId,
      seq,
      occurred_at: now,
      recorded_at: now,
      event: record.event,
      seen_by: record.seenBy,
      report_id: record.reportId,
      members: record.members,
      details: record.details,
      prev_hash: record.prev,
      hash,
      encoding: chainEncodingVersion,
      signature: signer.sign(hash),
    })
    .execute();
  return { backupHead, restoredSeq: seq };
}

async function takeBackRevocations(
  store: Store,
  trail: AuditTrail,
  projectId: string,
  replaced: ReplacedState | undefined,
  now: number,
): Promise<number> {
  const known = new Set((await store.selectFrom('revocations').select('node_id').execute()).map((row) => row.node_id));
  let count = 0;
  for (const revocation of replaced?.revocations ?? []) {
    if (revocation.project_id !== projectId || known.has(revocation.node_id)) continue;
    await store.insertInto('revocations').values(revocation).execute();
    known.add(revocation.node_id);
    count += 1;
    await trail.append(projectId, [
      {
        event: 'revoked',
        seenBy: controllerWitness,
        reportId: randomBytes(12).toString('base64url'),
        time: now,
        members: [revocation.node_id],
        details: {
          by: revocation.revoked_by,
          reason: revocation.reason,
          revoked_at: new Date(Number(revocation.revoked_at)).toISOString(),
          taken_back_from: 'the replaced data directory',
        },
      },
    ]);
  }
  return count;
}

/** Retires the tickets (or, kept, applies what the replaced store says of their use); how many retired. */
async function settleTickets(
  store: Store,
  trail: AuditTrail,
  projectId: string,
  options: ContinuityOptions,
  now: number,
): Promise<number> {
  const tickets = await store
    .selectFrom('tickets')
    .select(['id', 'uses_left', 'cancelled_at', 'expires_at'])
    .where('project_id', '=', projectId)
    .orderBy('id')
    .execute();
  let retired = 0;
  for (const ticket of tickets) {
    if (options.keepTickets) {
      const spent = options.replaced?.spentTickets.get(ticket.id);
      if (!spent) continue;
      await store
        .updateTable('tickets')
        .set({
          uses_left: Math.min(Number(ticket.uses_left), spent.usesLeft),
          cancelled_at: ticket.cancelled_at ?? spent.cancelledAt,
        })
        .where('id', '=', ticket.id)
        .execute();
      continue;
    }
    // Used up, expired or cancelled already: it enrolls nobody as it is.
    if (ticket.cancelled_at !== null || Number(ticket.uses_left) <= 0 || Number(ticket.expires_at) <= now) continue;
    await store.updateTable('tickets').set({ cancelled_at: now, uses_left: 0 }).where('id', '=', ticket.id).execute();
    retired += 1;
    await trail.append(projectId, [
      {
        event: 'ticket-cancelled',
        seenBy: controllerWitness,
        reportId: randomBytes(12).toString('base64url'),
        time: now,
        members: [],
        details: { ticket: ticket.id, by: 'restore', reason: 'issued before the backup that was restored' },
      },
    ]);
  }
  return retired;
}

/** `[PROJECT=]SEQ:HASH`, as --previous-head takes it. */
export function parsePreviousHead(text: string): { projectId: string; head: ChainCursor } {
  const match = /^(?:([^=\s]+)=)?(\d{1,15}):([0-9a-f]{64})$/.exec(text.trim());
  if (!match)
    throw new InputError('BAD_FLAG', `--previous-head ${JSON.stringify(text)} is not [PROJECT=]SEQ:HASH`, {
      hint: 'give the seq and hash of the last record portal project audit showed, such as 1234:9f86d0…(64 hex digits)',
    });
  return { projectId: match[1] ?? '', head: { seq: Number(match[2]), hash: match[3]! } };
}
