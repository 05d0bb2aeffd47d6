/**
 * `portal controller backup`: a backup of a controller's data directory, taken while it runs (or not),
 * without its sealing key, under which it is authenticated, and which it names (see
 * src/controller/backup.ts).
 */
import type { Command } from 'commander';
import { backupController, counted } from '../controller/backup.ts';
import { describeSealingKey } from '../shared/sealing-key.ts';
import { requiredSealingKey } from './backup-sealing-key.ts';
import { controllerSealingKey } from './controller-sealing-key.ts';
import { embeddedControllerDirectory, portalHome } from './home.ts';

export interface ControllerBackupOptions {
  readonly output: string;
  /** @default "$PORTAL_HOME/controller" */
  readonly dataDir?: string;
  readonly store?: string;
  readonly sealingKeyFile?: string;
}

export function registerControllerBackup(controller: Command): void {
  controller
    .command('backup')
    .description("back up a controller's data directory (running or not) to one file, without its sealing key")
    .requiredOption('--output <file>', 'the backup to write (mode 0600; replaced whole if it exists)')
    .option(
      '--data-dir <dir>',
      'the data directory the controller runs with (default: $PORTAL_HOME/controller, the embedded one)',
    )
    .option('--store <url>', 'sqlite:PATH, when the controller was given --store')
    .option(
      '--sealing-key-file <path>',
      'the sealing key the controller runs with: the backup is authenticated under it ' +
        '(found as portal controller start finds it)',
    )
    .action(async (options: ControllerBackupOptions) => {
      const dataDir = options.dataDir ?? embeddedControllerDirectory(portalHome());
      const { source } = controllerSealingKey(options.sealingKeyFile, process.env);
      const sealingKey = await requiredSealingKey(source, 'authenticate the backup');
      const manifest = await backupController({
        dataDir,
        output: options.output,
        sealingKey,
        sealingKeyName: describeSealingKey(source),
        ...(options.store ? { store: options.store } : {}),
      });
      console.log(
        `Backed up the controller data in ${manifest.data_dir} (${counted(manifest)}) ` +
          `to ${options.output} (mode 0600).`,
      );
      console.log(sealingKeyLine(describeSealingKey(source)));
    });
}

/** What the operator must keep besides the backup: the sealing key, never inside it. */
export function sealingKeyLine(where: string): string {
  return (
    `The sealing key is not in the backup: it is ${where}, which opens it and authenticates it; ` +
    'keep a copy of it apart from the backup (restoring needs both).'
  );
}
