/**
 * `portal controller migrate-store`: a controller's SQLite store moved to PostgreSQL, with its TLS
 * identity, so that controller replicas take over every project and every enrolled node keeps working
 * (see src/controller/store/move-store.ts).
 */
import { join } from 'node:path';
import type { Command } from 'commander';
import { moveStore } from '../controller/store/move-store.ts';
import { embeddedControllerDirectory, portalHome } from './home.ts';

export interface ControllerMigrateStoreOptions {
  readonly to: string;
  readonly from?: string;
  /** @default "$PORTAL_HOME/controller" */
  readonly dataDir?: string;
  readonly storePasswordFile?: string;
}

export function registerControllerMigrateStore(controller: Command): void {
  controller
    .command('migrate-store')
    .description(
      "copy a stopped controller's SQLite store and TLS identity to an empty PostgreSQL database, for replicas, " +
        'and retire the SQLite store (<store>.moved): no controller starts on it again',
    )
    .requiredOption('--to <url>', 'postgres://USER@HOST:PORT/DATABASE, empty (the password as for controller start)')
    .option('--from <url>', 'sqlite:PATH (default: controller.db in the data directory)')
    .option('--data-dir <dir>', 'the data directory the controller ran with (default: $PORTAL_HOME/controller)')
    .option(
      '--store-password-file <path>',
      "file whose first line is the database user's password (also PORTAL_STORE_PASSWORD_FILE, or PGPASSWORD)",
    )
    .action(async (options: ControllerMigrateStoreOptions) => {
      const dataDir = options.dataDir ?? embeddedControllerDirectory(portalHome());
      const from = options.from ?? `sqlite:${join(dataDir, 'controller.db')}`;
      const passwordFile = options.storePasswordFile ?? process.env.PORTAL_STORE_PASSWORD_FILE;
      const moved = await moveStore({
        from,
        to: options.to,
        dataDir,
        ...(passwordFile ? { passwordFile } : {}),
      });
      const { rows } = moved;
      console.log(
        `Copied ${rows.projects} projects, ${rows.members} members, ${rows.tickets} tickets, ` +
          `${rows.revocations} revocations and ${rows.audit_records} audit records, ` +
          `and the controller's TLS identity (fingerprint ${moved.fingerprint}), from ${from}.`,
      );
      for (const [project, head] of Object.entries(moved.heads))
        console.log(`The audit trail of ${project} ends at the same record in both stores: ${head}.`);
      console.log(
        `The SQLite store is retired: ${moved.marker} says where it moved, and no controller starts on it again ` +
          '(remove that file to go back to it on purpose).',
      );
      console.log(
        'Start each replica with --store set to the new database, --public-address once per replica and the ' +
          'sealing key this controller ran with.',
      );
    });
}
