/**
 * `portal project grant <member> --relay NAME`: an enrolled node gains relay names without enrolling
 * again, keeping the ones it holds. The node picks them up with its next certificate, which it asks for
 * as soon as a reload or start needs a name it lacks.
 */
import type { Command } from 'commander';
import { InputError, printable } from '../shared/errors.ts';
import { adminRequest } from './administrator.ts';
import { portalHome } from './home.ts';
import { memberIdPattern } from './project-members.ts';
import { relayFlags } from './ticket-flags.ts';

export function registerGrant(project: Command): void {
  project
    .command('grant')
    .description('grant an enrolled node more relay names (it keeps the ones it has), so it can add outlets for them')
    .argument('<member>', 'the id of the node, as portal project members shows it')
    .option(
      '--relay <name>',
      'a relay name the node may register from now on; repeat it for several',
      (name: string, names: readonly string[]) => [...names, name],
      [] as readonly string[],
    )
    .action(async (member: string, options: { relay: readonly string[] }) => {
      if (!memberIdPattern.test(member))
        throw new InputError('BAD_FLAG', `${printable(member)} is not a member id`, {
          hint: 'give an id as portal project members shows it, such as n0123456789abcdef',
        });
      if (options.relay.length === 0)
        throw new InputError('BAD_FLAG', 'no --relay was given', {
          hint: `give the relay names to grant: portal project grant ${member} --relay NAME`,
        });
      const answer = await adminRequest(portalHome(), 'grant', { member, relay: relayFlags(options.relay) });
      const held = answer.relays.join(', ');
      console.log(
        answer.added.length === 0
          ? `${answer.member} holds these relay names already (${held}): nothing changed.`
          : `Granted ${answer.member} the relay name${answer.added.length === 1 ? '' : 's'} ` +
              `${answer.added.join(', ')}; it holds ${held}. Its next certificate carries them: ` +
              'reload or start the node to use them now.',
      );
    });
}
