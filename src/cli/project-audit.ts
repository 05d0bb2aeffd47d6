/**
 * `portal project audit`: reads the project's audit trail (filtered, as lines or as the JSON-lines
 * export, and followed as it grows) and verifies its hash chain and signatures, here, from the records
 * themselves (src/cli/audit-verify.ts). Whatever it does, it does on one connection to the controller.
 */
import type { Command } from 'commander';
import { durationRanges } from '../shared/duration.ts';
import { InputError, PortalError } from '../shared/errors.ts';
import type { ControlChannel } from '../wire/control-channel.ts';
import {
  auditLimits,
  eventKindsHint,
  isAuditEventKind,
  type AuditQuery,
  type AuditRecordWire,
} from '../wire/protocol/audit.ts';
import { openAdminChannel } from './administrator.ts';
import { exportOf, lineOf } from './audit-format.ts';
import { auditPages } from './audit-pages.ts';
import { checkpointOf, readCheckpoint, verifyTrail } from './audit-verify.ts';
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
  /** true: print the head as a checkpoint; a path (with --verify): hold the trail to the checkpoint kept there. */
  readonly checkpoint?: string | boolean;
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
    .option('--verify', 'check the hash chain and signatures of the whole trail; exit 1 and name the first break')
    .option(
      '--checkpoint [file]',
      'alone: print the signed head of the trail, to keep where the controller cannot write; ' +
        'with --verify: check that the trail still holds the head kept in FILE',
    )
    .action(async (options: AuditOptions) => {
      const checkpointFile = typeof options.checkpoint === 'string' ? options.checkpoint : undefined;
      if (options.verify || options.checkpoint) {
        if (options.since || options.member || options.event || options.follow || options.json)
          throw new InputError('BAD_FLAG', '--verify and --checkpoint read the whole trail and take no filter', {
            hint: 'run portal project audit --verify [--checkpoint FILE] or portal project audit --checkpoint alone',
          });
        if (options.verify && options.checkpoint === true)
          throw new InputError('BAD_FLAG', '--verify --checkpoint needs the file a checkpoint was kept in', {
            hint: 'run portal project audit --verify --checkpoint FILE',
          });
        if (!options.verify && checkpointFile !== undefined)
          throw new InputError('BAD_FLAG', `--checkpoint ${checkpointFile} checks a checkpoint only with --verify`, {
            hint: `run portal project audit --verify --checkpoint ${checkpointFile}`,
          });
      }
      const checkpoint = checkpointFile === undefined ? undefined : await readCheckpoint(checkpointFile);
      if (!options.verify && !options.checkpoint) return readTrail(portalHome(), queryOf(options), options);
      const channel = await openAdminChannel(portalHome());
      try {
        console.log(options.verify ? await verifyTrail(channel, checkpoint) : await checkpointOf(channel));
      } finally {
        channel.close();
      }
    });
}

function queryOf(options: AuditOptions): AuditQuery {
  // Refused here as well as by the controller: a mistyped kind costs no connection.
  if (options.event !== undefined && !isAuditEventKind(options.event))
    throw new InputError('BAD_FLAG', `--event ${options.event.slice(0, 80)} is not an event kind`, {
      hint: eventKindsHint,
    });
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

/**
 * Prints the records `query` keeps, on one connection. Following, it asks again every
 * auditFollowPollMs on the same connection, and opens another where it left off when the controller
 * closed it (a restart).
 */
async function readTrail(home: string, query: AuditQuery, options: AuditOptions): Promise<void> {
  const print = (record: AuditRecordWire) =>
    console.log(options.json ? JSON.stringify(exportOf(record)) : lineOf(record));
  let after = 0;
  let channel: ControlChannel | undefined;
  try {
    for (;;) {
      channel ??= await openAdminChannel(home);
      try {
        for await (const page of auditPages(channel, { ...query, afterSeq: after })) {
          page.records.forEach(print);
          // Records filtered out still move the start of the next page on, up to the head.
          after = page.more ? page.next : Math.max(page.next, page.head);
        }
      } catch (error) {
        if (!options.follow || !(error instanceof PortalError) || error.code !== 'CONTROLLER_LOST') throw error;
        channel = undefined;
      }
      if (!options.follow) return;
      await new Promise((resolve) => setTimeout(resolve, auditFollowPollMs));
    }
  } finally {
    channel?.close();
  }
}
