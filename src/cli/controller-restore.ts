/**
 * `portal controller restore`: a backup from `portal controller backup` into a new data directory,
 * checked before it is moved into place; a data directory with anything in it is refused.
 */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { checkSealingKey, counted, restoreController } from '../controller/backup.ts';
import { shellQuote } from '../compile/quote.ts';
import { describeSealingKey, sealingKeyVariables } from '../shared/sealing-key.ts';
import { controllerSealingKey } from './controller-sealing-key.ts';
import { adminDirectory, embeddedControllerDirectory, portalHome } from './home.ts';

export interface ControllerRestoreOptions {
  readonly input: string;
  /** @default "$PORTAL_HOME/controller" */
  readonly dataDir?: string;
  readonly sealingKeyFile?: string;
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
      'the sealing key the restored controller will run with, to check that it opens the backup ' +
        '(found as portal controller start finds it)',
    )
    .action(async (options: ControllerRestoreOptions) => {
      const dataDir = options.dataDir ?? embeddedControllerDirectory(portalHome());
      const restored = await restoreController({ input: options.input, dataDir });
      const { manifest } = restored;
      console.log(
        `Restored ${options.input} (taken ${manifest.created_at} of ${manifest.data_dir} by Portal ` +
          `${manifest.portal}: ${counted(manifest)}) into ${dataDir}.`,
      );
      const { source } = controllerSealingKey(options.sealingKeyFile, process.env);
      const where = describeSealingKey(source);
      const check = await checkSealingKey(source, restored.sealedKey);
      const why =
        check === 'wrong' ? 'does not open it' : check === 'missing' ? 'does not exist' : 'cannot be read by this user';
      console.log(
        check === 'opens'
          ? `The sealing key ${where} opens it.`
          : `The sealing key is not in the backup, and ${where} ${why}: start the controller with the key that ` +
              `sealed it (--sealing-key-file, ${sealingKeyVariables.controllerFile}, ` +
              `${sealingKeyVariables.controllerMaterial} or the systemd credential controller-seal.key).`,
      );
      if (restored.embeddedSettings && resolve(dataDir) === resolve(embeddedControllerDirectory(portalHome()))) {
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
    });
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
