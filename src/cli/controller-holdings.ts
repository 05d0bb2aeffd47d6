/**
 * What the embedded controller under a PORTAL_HOME holds, read from its store before `portal reset`
 * deletes it: a controller that other members, projects or pending tickets still depend on is
 * deleted only when the administrator confirms (see reset.ts). Read straight from the store, so the
 * answer covers every project, not only the one this administrator can ask about.
 */
import { existsSync } from 'node:fs';
import { storeBusyTimeoutMs } from '../controller/limits.ts';
import { KeptSqlite } from '../controller/store/sqlite.ts';
import { readIdentityRecord } from '../node/identity-store.ts';
import { nodeDirectory } from '../node/runtime-file.ts';
import { relayDirectory } from '../relay/relay-node.ts';
import { adminDirectory, embeddedControllerStore } from './home.ts';

export interface ControllerHoldings {
  /** Every project the controller hosts. */
  readonly projects: number;
  /** Projects other than this home's administrator's. */
  readonly otherProjects: number;
  /** Every member of every project, revoked ones included. */
  readonly members: number;
  readonly revokedMembers: number;
  /** Active members other than this home's own identities (its administrator, node and relay). */
  readonly othersActive: number;
  /** Tickets that can still enroll someone. */
  readonly unusedTickets: number;
  readonly auditRecords: number;
}

/** Undefined when the home has no embedded controller store; `unreadable` says why it could not be read. */
export type HoldingsReading = { readonly holdings: ControllerHoldings } | { readonly unreadable: string };

export async function readControllerHoldings(home: string, now = Date.now()): Promise<HoldingsReading | undefined> {
  const path = embeddedControllerStore(home);
  if (!existsSync(path)) return undefined;
  const own = await ownIdentities(home);
  try {
    const database = await KeptSqlite.open(path, { fileMustExist: true });
    // Beside a running controller, which may be writing: wait for it as the controller waits for itself.
    database.exec(`PRAGMA busy_timeout = ${storeBusyTimeoutMs}`);
    const one = (sql: string, ...parameters: unknown[]) =>
      Number(database.all<{ n: number }>(sql, ...parameters)[0]?.n ?? 0);
    const ownIds = own.nodeIds.length > 0 ? own.nodeIds : [''];
    const marks = ownIds.map(() => '?').join(', ');
    return {
      holdings: {
        projects: one('SELECT COUNT(*) AS n FROM projects'),
        otherProjects: one('SELECT COUNT(*) AS n FROM projects WHERE id <> ?', own.projectId ?? ''),
        members: one('SELECT COUNT(*) AS n FROM members'),
        revokedMembers: one('SELECT COUNT(*) AS n FROM members WHERE node_id IN (SELECT node_id FROM revocations)'),
        othersActive: one(
          'SELECT COUNT(*) AS n FROM members WHERE node_id NOT IN (SELECT node_id FROM revocations) ' +
            `AND node_id NOT IN (${marks})`,
          ...ownIds,
        ),
        unusedTickets: one(
          'SELECT COUNT(*) AS n FROM tickets WHERE uses_left > 0 AND expires_at > ? AND cancelled_at IS NULL',
          now,
        ),
        auditRecords: one('SELECT COUNT(*) AS n FROM audit_records'),
      },
    };
  } catch (error) {
    return { unreadable: (error as Error).message };
  }
}

/** This home's identities: reset removes them anyway, so they are not "others". */
async function ownIdentities(home: string): Promise<{ projectId: string | undefined; nodeIds: string[] }> {
  const records = await Promise.all(
    [adminDirectory(home), nodeDirectory(home), relayDirectory(home)].map((directory) =>
      readIdentityRecord(directory).catch(() => undefined),
    ),
  );
  const [admin] = records;
  return {
    projectId: admin?.projectId,
    nodeIds: records.flatMap((record) => (record ? [record.nodeId] : [])),
  };
}

/**
 * Why deleting the controller would take more than this home's own use of it, in words; undefined when
 * it would not (one project, this administrator's, whose other members are all revoked and whose
 * tickets are all used, expired or cancelled: what a use case's cleanup leaves).
 */
export function othersHosted(reading: HoldingsReading): string | undefined {
  if ('unreadable' in reading) return `its store cannot be read (${reading.unreadable}), so what it hosts is unknown`;
  const { otherProjects, othersActive, unusedTickets } = reading.holdings;
  const others = [
    ...(otherProjects > 0 ? [count(otherProjects, 'other project')] : []),
    ...(othersActive > 0 ? [`${count(othersActive, 'active member')} besides this machine's own`] : []),
    ...(unusedTickets > 0 ? [count(unusedTickets, 'unused ticket')] : []),
  ];
  return others.length > 0 ? `it hosts ${listed(others)}` : undefined;
}

/** Everything that goes with the controller, counted. */
export function whatIsLost(holdings: ControllerHoldings): string {
  const revoked = holdings.revokedMembers > 0 ? ` (${holdings.revokedMembers} revoked)` : '';
  return listed([
    count(holdings.projects, 'project'),
    `${count(holdings.members, 'member')}${revoked}`,
    count(holdings.auditRecords, 'audit record'),
    'the sealing key without which its backups cannot be restored',
  ]);
}

const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;

const listed = (items: readonly string[]) =>
  items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
