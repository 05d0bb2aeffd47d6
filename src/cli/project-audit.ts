/**
 * `portal project audit`: reads the project's audit trail (filtered, as lines or as the JSON-lines
 * export, and followed as it grows) and verifies its hash chain, here, from the records themselves.
 */
import type { Command } from 'commander';
import { chainStart, checkChain, describeBreak, type ChainCursor } from '../shared/audit-chain.ts';
import { durationRanges } from '../shared/duration.ts';
import { InputError, RuntimeFailure } from '../shared/errors.ts';
import { auditLimits, type AuditQuery, type AuditRecordWire } from '../wire/protocol/audit.ts';
import { adminRequest } from './administrator.ts';
import { exportOf, lineOf } from './audit-format.ts';
import { durationFlag } from './duration-flag.ts';
import { portalHome } from './home.ts';
import { auditFollowPollMs } from './limits.ts';

export interface AuditOptions {
  readonly since?: string;
  readonly member?: string;
  readonly event?: string;
  readonly follow?: boolean;
  readonly json?: boolean;
  readonly verify?: boolean;
}

export function registerProjectAudit(project: Command): void {
  project
    .command('audit')
    .description("read the project's audit trail, or verify that nobody rewrote it (docs/audit.md)")
    .option('--since <duration|time>', 'only records from this long ago (1h, 7d) or since an ISO 8601 time')
    .option('--member <id>', 'only records that concern this member, or that it reported')
    .option('--event <kind>', 'only records of this kind, such as session or enrolled')
    .option('--follow', 'keep printing new records as they are appended (stop with Ctrl-C)')
    .option('--json', 'one JSON object per line: the export format')
    .option('--verify', 'check the hash chain of the whole trail; exit 1 and name the first broken record')
    .action(async (options: AuditOptions) => {
      if (options.verify) {
        if (options.since || options.member || options.event || options.follow || options.json)
          throw new InputError('BAD_FLAG', '--verify checks the whole trail and takes no other flag', {
            hint: 'run portal project audit --verify alone',
          });
        console.log(await verifyTrail(portalHome()));
        return;
      }
      await readTrail(portalHome(), queryOf(options), options);
    });
}

function queryOf(options: AuditOptions): AuditQuery {
  return {
    afterSeq: 0,
    limit: auditLimits.pageRecords,
    since: options.since === undefined ? 0 : sinceOf(options.since, Date.now()),
    ...(options.member ? { member: options.member } : {}),
    ...(options.event ? { event: options.event } : {}),
  };
}

/** --since as epoch milliseconds: an ISO 8601 time, or a duration back from `now`. */
export function sinceOf(text: string, now: number): number {
  if (/^\d{4}-\d{2}-\d{2}/.test(text)) {
    const time = Date.parse(text);
    if (Number.isNaN(time))
      throw new InputError('BAD_FLAG', `--since ${text} is not a time`, {
        hint: 'give an ISO 8601 time such as 2026-11-25T10:00:00Z, or a duration such as 1h',
      });
    return time;
  }
  return now - durationFlag('--since', text, durationRanges.auditSince);
}

async function readTrail(home: string, query: AuditQuery, options: AuditOptions): Promise<void> {
  const print = (record: AuditRecordWire) =>
    console.log(options.json ? JSON.stringify(exportOf(record)) : lineOf(record));
  let after = 0;
  for (;;) {
    const page = await adminRequest(home, 'audit', { ...query, afterSeq: after });
    page.records.forEach(print);
    after = page.records.at(-1)?.seq ?? after;
    if (page.records.length < query.limit) {
      if (!options.follow) return;
      // Records filtered out still move the start of the next page to the head.
      after = Math.max(after, page.head);
      await new Promise((resolve) => setTimeout(resolve, auditFollowPollMs));
    }
  }
}

/** One line saying the chain is whole, with its head (note it: a later check can compare); throws when broken. */
async function verifyTrail(home: string): Promise<string> {
  let cursor: ChainCursor = chainStart;
  let project = '';
  for (;;) {
    const page = await adminRequest(home, 'audit', {
      afterSeq: cursor.seq,
      limit: auditLimits.pageRecords,
      since: 0,
    });
    project ||= page.records[0]?.project ?? '';
    const checked = checkChain(page.records, cursor);
    if ('broken' in checked)
      throw new RuntimeFailure('AUDIT_CHAIN_BROKEN', `the audit trail is broken: ${describeBreak(checked.broken)}`, {
        hint:
          `compare record ${checked.broken.seq} with a backup or an earlier export; ` +
          'the records before it verify, the trail from it on cannot be trusted',
      });
    cursor = checked.cursor;
    if (page.records.length < auditLimits.pageRecords) {
      if (cursor.seq < page.head)
        throw new RuntimeFailure(
          'AUDIT_CHAIN_BROKEN',
          `the audit trail is broken: record ${cursor.seq + 1} is missing (the trail goes up to ${page.head})`,
          { hint: 'compare the trail with a backup or an earlier export' },
        );
      return cursor.seq === 0
        ? 'the audit trail is whole: it holds no record yet'
        : `the audit trail of project ${project} is whole: ${cursor.seq} records, the last one's hash ${cursor.hash}`;
    }
  }
}
