/**
 * `portal enroll`: creates a project and makes this machine its administrator. With no --controller it
 * starts the embedded default controller in the background, its state under $PORTAL_HOME.
 */
import type { Command } from 'commander';
import { parseHostPort } from '../shared/address.ts';
import { InputError } from '../shared/errors.ts';
import { enrollAdministrator } from '../node/enrollment.ts';
import { loadIdentity } from '../node/identity-store.ts';
import { decodeAdminCode, encodeAdminCode } from '../wire/ticket.ts';
import { readEmbeddedController, startEmbeddedController } from './embedded-controller.ts';
import { adminDirectory, portalHome } from './home.ts';

export interface EnrollOptions {
  readonly controller?: string;
  readonly code?: string;
  readonly project?: string;
}

export function registerEnroll(program: Command): void {
  program
    .command('enroll')
    .description('create a project and enroll this machine as its administrator')
    .option('--controller <host:port>', 'a self-hosted controller (default: start the embedded one)')
    .option('--code <code>', 'the one-time admin code that portal controller start printed')
    .option('--project <name>', 'a name for the project', 'default')
    .action(async (options: EnrollOptions) => {
      const home = portalHome();
      const existing = await loadIdentity(adminDirectory(home));
      if (existing) {
        console.log(`Already enrolled: administrator of project ${existing.record.projectId} on ${existing.record.controller}.`);
        return;
      }
      const code = await adminCode(home, options);
      const identity = await enrollAdministrator(adminDirectory(home), code, options.project);
      console.log(`Enrolled: administrator of project ${identity.record.projectId} on controller ${identity.record.controller}.`);
    });
}

async function adminCode(home: string, options: EnrollOptions): Promise<string> {
  if (options.controller || options.code) {
    if (!options.controller || !options.code) {
      throw new InputError('BAD_FLAG', '--controller and --code go together', { hint: 'give both, as portal controller start printed them, or neither for the embedded controller' });
    }
    if (!parseHostPort(options.controller).ok) throw new InputError('BAD_FLAG', `--controller ${options.controller} is not host:port`, { hint: 'give the address the controller printed' });
    // The code pins the controller's certificate; --controller says where to reach it from here.
    return encodeAdminCode({ ...decodeAdminCode(options.code), controller: options.controller });
  }
  if (await readEmbeddedController(home)) {
    throw new InputError('ALREADY_RUNNING', 'the embedded controller runs already but this machine holds no administrator identity', {
      hint: 'run portal reset --yes to start over',
    });
  }
  const started = await startEmbeddedController(home);
  if (!started.adminCode) throw new Error('the embedded controller gave no admin code');
  return started.adminCode;
}
