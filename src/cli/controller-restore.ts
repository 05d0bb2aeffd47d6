/**
 * `portal controller restore`: a backup from `portal controller backup` into a new data directory,
 * authenticated and checked before it is moved into place; a data directory with anything in it is
 * refused. What happened since the backup is kept (src/controller/restore-continuity.ts).
 */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { counted } from '../controller/backup.ts';
import { restoreController } from '../controller/restore.ts';
import { parsePreviousHead, type ContinuityReport } from '../controller/restore-continuity.ts';
import { shellQuote } from '../compile/quote.ts';
import type { ChainCursor } from '../shared/audit-verify.ts';
import { InputError } from '../shared/errors.ts';
import { describeSealingKey } from '../shared/sealing-key.ts';
import { requiredSealingKey } from './backup-sealing-key.ts';
import { controllerSealingKey } from './controller-sealing-key.ts';
import { adminDirectory, embeddedControllerDirectory, portalHome } from './home.ts';
import { restoreNextSteps } from './restore-next-steps.ts';

export interface ControllerRestoreOptions {
  readonly input: string;
  /** @default "$PORTAL_HOME/controller" */
  readonly dataDir?: string;
  readonly sealingKeyFile?: string;
  readonly keepTickets?: boolean;
  readonly acceptUnauthenticated?: boolean;
  readonly replaces?: string;
  readonly previousHead?: readonly string[];
}

export function registerControllerRestore(controller: Command): void {
  controller
    .command('restore')
    .description('restore a backup from portal controller backup into a new, empty data directory')
    .requiredOption('--input <file>', 'the backup portal controller backup wrote')
    .option(
      '--data-dir <dir>',
      'the data directory to create (default: $PORTAL_HOME/controller); refused if it holds anything',
    )
    .option(
      '--sealing-key-file <path>',
      'the sealing key the controller ran with: the backup must be authentic under it ' +
        '(found as portal controller start finds it)',
    )
    .option(
      '--replaces <dir>',
      'the data directory the controller ran with until now, if it can still be read: its revocations, ' +
        'spent tickets and audit head are kept',
    )
    .option(
      '--previous-head <[project=]seq:hash>',
      'the last audit record known of the trail this restore replaces, when --replaces cannot be given',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option('--keep-tickets', 'keep the tickets issued before the backup usable (by default all are retired)')
    .option(
      '--accept-unauthenticated',
      'restore a backup written before backups were authenticated (nothing proves it unchanged)',
    )
    .action(async (options: ControllerRestoreOptions) => {
      const dataDir = options.dataDir ?? embeddedControllerDirectory(portalHome());
      const { source } = controllerSealingKey(options.sealingKeyFile, process.env);
      const where = describeSealingKey(source);
      const sealingKey = await requiredSealingKey(source, 'authenticate the backup');
      const restored = await restoreController({
        input: options.input,
        dataDir,
        sealingKey,
        sealingKeyName: where,
        keepTickets: options.keepTickets === true,
        acceptUnauthenticated: options.acceptUnauthenticated === true,
        ...(options.replaces !== undefined ? { replaces: options.replaces } : {}),
        ...(options.previousHead?.length ? { previousHeads: previousHeads(options.previousHead) } : {}),
      });
      const { manifest } = restored;
      if (!restored.authenticated)
        console.error(
          `portal: WARN ${options.input} carries no authentication (a backup of an earlier Portal): ` +
            'it was restored as --accept-unauthenticated asked, and nothing proves it unchanged',
        );
      console.log(
        `Restored ${options.input} (taken ${manifest.created_at} of ${manifest.data_dir} by Portal ` +
          `${manifest.portal}: ${counted(manifest)}) into ${dataDir}.`,
      );
      console.log(
        restored.authenticated
          ? `The sealing key ${where} opens it and proves every byte of it unchanged.`
          : `The sealing key ${where} opens it.`,
      );
      for (const report of restored.continuity) console.log(continuityLine(report, options.keepTickets === true));
      const embedded =
        restored.embeddedSettings !== undefined &&
        resolve(dataDir) === resolve(embeddedControllerDirectory(portalHome()));
      if (embedded) {
        console.log(
          `It is the embedded controller of ${portalHome()}: once ${adminDirectory(portalHome())} holds its ` +
            'administrator identity again, the next portal project command starts it where it listened.',
        );
      } else {
        console.log(
          'Start it at the address it had, which every ticket and node names: ' +
            `${startCommand(dataDir, restored.embeddedSettings)}`,
        );
      }
      const steps = restoreNextSteps({
        takenAt: manifest.created_at,
        keptTickets: options.keepTickets === true,
        continuity: restored.continuity,
        startCommand: embedded ? undefined : startCommand(dataDir, restored.embeddedSettings),
      });
      for (const line of steps) console.log(line);
    });
}

/** The heads --previous-head named, by project ('' for the only one); one per project. */
function previousHeads(values: readonly string[]): Map<string, ChainCursor> {
  const heads = new Map<string, ChainCursor>();
  for (const value of values) {
    const { projectId, head } = parsePreviousHead(value);
    if (heads.has(projectId))
      throw new InputError('BAD_FLAG', `--previous-head names ${projectId || 'the project'} twice`, {
        hint: 'give one head per project, as PROJECT=SEQ:HASH',
      });
    heads.set(projectId, head);
  }
  return heads;
}

/** What the restore did to one project so as not to undo what happened since the backup. */
function continuityLine(report: ContinuityReport, keptTickets: boolean): string {
  const head = (cursor: ChainCursor) => `${cursor.seq}:${cursor.hash.slice(0, 12)}…`;
  const tickets = keptTickets
    ? 'its tickets were kept as --keep-tickets asked'
    : `${report.ticketsRetired} ticket${report.ticketsRetired === 1 ? '' : 's'} issued before the backup ` +
      `${report.ticketsRetired === 1 ? 'was' : 'were'} retired`;
  return (
    `Project ${report.projectId}: the trail records the restore at ${report.restoredSeq} (backup head ` +
    `${head(report.backupHead)}, replaced head ${report.previousHead ? head(report.previousHead) : 'unknown'}); ` +
    `${tickets}; ${report.revocationsTakenBack} revocation${report.revocationsTakenBack === 1 ? '' : 's'} ` +
    'taken back from the replaced data directory (nodes and relays return the others as they connect).'
  );
}

/** The start command: the embedded controller's own settings when the backup kept them. */
function startCommand(dataDir: string, embeddedSettings: string | undefined): string {
  let listen = '0.0.0.0:PORT';
  let publicAddress: string | undefined = 'HOST:PORT';
  if (embeddedSettings) {
    try {
      const settings = JSON.parse(embeddedSettings) as { listen?: unknown; publicAddress?: unknown };
      if (typeof settings.listen === 'string') {
        listen = settings.listen;
        publicAddress = typeof settings.publicAddress === 'string' ? settings.publicAddress : undefined;
      }
    } catch {
      // The placeholders stand.
    }
  }
  return (
    `portal controller start --data-dir ${shellQuote(dataDir)} --listen ` +
    `${listen}${publicAddress ? ` --public-address ${publicAddress}` : ''}`
  );
}
