/**
 * `portal project audit --verify` and `--checkpoint`: the whole trail checked here, not on the
 * controller, on one connection, page by page (src/shared/audit-verify.ts); and a signed head an
 * administrator keeps somewhere the controller cannot write, which a later check holds the trail to.
 */
import { readFile } from 'node:fs/promises';
import { auditPublicKey, signatureHolds } from '../shared/audit-signature.ts';
import { describeBreak, parseCheckpoint, TrailCheck, type AuditCheckpoint } from '../shared/audit-verify.ts';
import { InputError, RuntimeFailure } from '../shared/errors.ts';
import type { ControlChannel } from '../wire/control-channel.ts';
import { auditExchangeVersion, auditLimits, type AuditPage } from '../wire/protocol/audit.ts';
import { auditPages, progressLine } from './audit-pages.ts';

const everything = { afterSeq: 0, limit: auditLimits.pageRecords, since: 0 };

/** The checkpoint kept in `path`; an input error naming the file when it holds none. */
export async function readCheckpoint(path: string): Promise<AuditCheckpoint> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new InputError(
      'AUDIT_CHECKPOINT_INVALID',
      `cannot read the checkpoint ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
      { hint: 'give the file portal project audit --checkpoint wrote' },
    );
  }
  const checkpoint = parseCheckpoint(text);
  if (typeof checkpoint === 'string')
    throw new InputError('AUDIT_CHECKPOINT_INVALID', `the checkpoint ${path} is not valid: ${checkpoint}`, {
      hint: 'give the file portal project audit --checkpoint wrote, as it wrote it',
    });
  return checkpoint;
}

/** One line saying the chain is whole, with its head; throws AUDIT_CHAIN_BROKEN naming the first break. */
export async function verifyTrail(channel: ControlChannel, checkpoint?: AuditCheckpoint): Promise<string> {
  const progress = progressLine();
  let check: TrailCheck | undefined;
  let last: AuditPage | undefined;
  let project = '';
  try {
    for await (const page of auditPages(channel, everything)) {
      check ??= new TrailCheck(trailCheckOptions(page.key, page.records[0]?.project, checkpoint));
      project ||= page.records[0]?.project ?? '';
      const broken = check.page(page.records);
      if (broken) throw chainBroken(describeBreak(broken), broken.seq);
      last = page;
      progress.show(`checking the audit trail: record ${check.cursor.seq} of ${page.head}`);
    }
  } finally {
    progress.done();
  }
  if (!check || !last) throw new RuntimeFailure('CONTROLLER_ERROR', 'the controller gave no page of the trail');
  const broken = check.finish(last.head);
  if (broken) throw chainBroken(describeBreak(broken), broken.seq);
  if (check.records === 0) return 'the audit trail is whole: it holds no record yet';
  const notes = [
    check.signedFrom === undefined
      ? 'no record is signed (all were written before records were signed)'
      : `signed from record ${check.signedFrom} on by the trail key ${last.key ?? '(none named: not checked)'}`,
    ...check.restores.map((restore) => `restored from backup head ${restore.backupSeq} at seq ${restore.seq}`),
    ...(checkpoint ? [checkpointNote(check, checkpoint)] : []),
  ];
  return (
    `the audit trail of project ${project} is whole: ${check.records} records, ` +
    `the last one's hash ${check.cursor.hash}; ${notes.join('; ')}`
  );
}

function trailCheckOptions(key: string | null, project: string | undefined, checkpoint?: AuditCheckpoint) {
  const publicKey = key === null ? undefined : auditPublicKey(key);
  if (key !== null && !publicKey)
    throw new RuntimeFailure('CONTROLLER_ERROR', 'the controller named a trail key that is no Ed25519 key', {
      hint: 'run the same Portal version on the controller and here (portal --version)',
    });
  if (checkpoint) {
    if (project !== undefined && checkpoint.project !== project)
      throw new InputError(
        'AUDIT_CHECKPOINT_INVALID',
        `the checkpoint is of project ${checkpoint.project}, and this administrator's project is ${project}`,
        { hint: "give a checkpoint of this administrator's project" },
      );
    if (checkpoint.key !== key)
      throw chainBroken(
        `the checkpoint was signed by the trail key ${checkpoint.key}, and the controller's is ${key ?? 'none'} ` +
          '(another controller, or one started with another sealing key)',
        checkpoint.seq,
      );
  }
  return { ...(publicKey ? { key: publicKey } : {}), ...(checkpoint ? { checkpoint } : {}) };
}

function checkpointNote(check: TrailCheck, checkpoint: AuditCheckpoint): string {
  const lostTo = check.checkpointLostTo;
  return lostTo
    ? `the checkpoint's record ${checkpoint.seq} was lost by the restore from backup head ${lostTo.backupSeq} ` +
        `at seq ${lostTo.seq} (not tampering)`
    : `it holds the checkpoint's record ${checkpoint.seq}`;
}

function chainBroken(what: string, seq: number): RuntimeFailure {
  return new RuntimeFailure('AUDIT_CHAIN_BROKEN', `the audit trail is broken: ${what}`, {
    hint:
      `compare record ${seq} with a backup, an earlier export or a checkpoint; ` +
      'the records before it verify, the trail from it on cannot be trusted',
  });
}

/** The trail's head as a checkpoint (one JSON line), its signature checked first. */
export async function checkpointOf(channel: ControlChannel): Promise<string> {
  const first = await channel.request('audit', { ...everything, exchange: auditExchangeVersion, limit: 1 });
  if (first.head === 0)
    throw new InputError('AUDIT_CHECKPOINT_INVALID', 'the audit trail holds no record yet: there is no head to keep', {
      hint: 'make a checkpoint once something happened in the project',
    });
  const page = await channel.request('audit', {
    ...everything,
    exchange: auditExchangeVersion,
    afterSeq: first.head - 1,
    limit: 1,
  });
  const head = page.records[0];
  const key = page.key === null ? undefined : auditPublicKey(page.key);
  if (!head || head.seq !== page.head || !key || head.encoding < 2 || head.signature === null)
    throw new InputError(
      'AUDIT_CHECKPOINT_INVALID',
      `the last record of the trail (${page.head}) is not signed: it was written before records were signed`,
      { hint: 'once the controller records anything (a ticket issued, a renewal), make the checkpoint again' },
    );
  if (!signatureHolds(key, head.hash, head.signature))
    throw chainBroken(`record ${head.seq} was rewritten: the controller's trail key did not sign it`, head.seq);
  const checkpoint: AuditCheckpoint = {
    portal: 'audit-checkpoint',
    project: head.project,
    seq: head.seq,
    hash: head.hash,
    key: page.key ?? '',
    signature: head.signature,
    record: head,
  };
  return JSON.stringify(checkpoint);
}
