/**
 * An in-process controller with an administrator, for tests that need a project: tickets on demand.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { embeddedRelay } from '../../src/cli/controller.ts';
import { startController, type ControllerOptions, type RunningController } from '../../src/controller/controller.ts';
import { enrollAdministrator } from '../../src/node/enrollment.ts';
import type { StoredIdentity } from '../../src/node/identity-store.ts';
import { callController } from '../../src/wire/control-channel.ts';

export interface World {
  readonly dir: string;
  readonly controller: RunningController;
  readonly admin: StoredIdentity;
  ticket(flags: {
    attribute: string;
    relay?: string;
    tls?: boolean;
    usageCount?: number;
    expiresInMs?: number;
  }): Promise<string>;
  close(): Promise<void>;
}

export async function createWorld(options: Partial<ControllerOptions> = {}): Promise<World> {
  const dir = await mkdtemp(join(tmpdir(), 'portal-world-'));
  const controller = await startController({ dataDir: join(dir, 'controller'), relay: embeddedRelay(), ...options });
  const admin = await enrollAdministrator(join(dir, 'admin'), await controller.service.createAdminCode(60_000));
  return {
    dir,
    controller,
    admin,
    async ticket(flags) {
      const answer = await callController(
        admin.record,
        'ticket',
        {
          expiresInMs: flags.expiresInMs ?? 36_000_000,
          usageCount: flags.usageCount ?? 1,
          attribute: flags.attribute,
          relay: flags.relay,
          tls: flags.tls === true,
        },
        { key: admin.privateKey, certificate: admin.certificate },
      );
      return String(answer.ticket);
    },
    async close() {
      await controller.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
