/**
 * `portal console`: a one-time link that signs the administrator enrolled here in to the project's web
 * console, served by the controller it reaches (`portal controller start --console`, or the embedded
 * controller of `portal enroll`).
 */
import type { Command } from 'commander';
import { adminRequest } from './administrator.ts';
import { portalHome } from './home.ts';

export function registerConsole(program: Command): void {
  program
    .command('console')
    .description("print a one-time link that signs you in to the project's web console (valid minutes, used once)")
    .action(async () => {
      const { link, expiresAt } = await adminRequest(portalHome(), 'console-link', {});
      console.log(`Open this link to sign in to the console (once, before ${expiresAt}):`);
      console.log(link);
    });
}
