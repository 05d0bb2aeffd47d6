/** `portal reset`: stops what `portal enroll` started and removes this machine's Portal state. */
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline/promises';
import type { Command } from 'commander';
import { InputError } from '../shared/errors.ts';
import { readEmbeddedController, stopEmbeddedController } from './embedded-controller.ts';
import { installationEntries, portalHome } from './home.ts';

export function registerReset(program: Command): void {
  program
    .command('reset')
    .description('stop the embedded controller and remove the Portal state under $PORTAL_HOME (the installed program stays)')
    .option('--yes', 'do not ask for confirmation')
    .action(async (options: { yes?: boolean }) => {
      const home = portalHome();
      if (!options.yes) {
        if (!process.stdin.isTTY) throw new InputError('CONFIRMATION_NEEDED', `portal reset removes the identities and projects under ${home}`, { hint: 'add --yes to confirm' });
        const prompt = createInterface({ input: process.stdin, output: process.stdout });
        const answer = await prompt.question(`Remove the Portal state under ${home}? [y/N] `);
        prompt.close();
        if (!/^y(es)?$/i.test(answer.trim())) return;
      }
      const controller = await readEmbeddedController(home);
      if (controller) await stopEmbeddedController(controller);
      const entries = await readdir(home).catch(() => [] as string[]);
      const keep = new Set<string>(installationEntries);
      await Promise.all(entries.filter((entry) => !keep.has(entry)).map((entry) => rm(join(home, entry), { recursive: true, force: true })));
      if (entries.every((entry) => !keep.has(entry))) await rm(home, { recursive: true, force: true });
      console.log(`Reset: removed the Portal state under ${home}.`);
    });
}
