/**
 * `portal project members | revoke | tickets | ticket cancel`: who belongs to the project, taking a
 * member out, and the tickets that can still enroll someone.
 */
import type { Command } from 'commander';
import { InputError, printable } from '../shared/errors.ts';
import { adminRequest } from './administrator.ts';
import { portalHome } from './home.ts';
import { requirePolicy } from '../shared/policy.ts';
import { jsonLines, membersAdmitted, membersTable, poolLines, ticketsTable } from './member-tables.ts';

/** A member's id as portal project members shows it: a node (n…) or an administrator (a…). */
export const memberIdPattern = /^[an][0-9a-f]{16}$/;
const ticketId = /^t[0-9a-f]{16}$/;

export function registerMembers(project: Command): void {
  project
    .command('members')
    .description('every member of the project: nodes, relays and administrators, revoked ones included')
    .option('--json', 'one JSON object per member and line')
    .option(
      '--admitted-by <allow>',
      'only the members an allow admits (an attribute name or an expression), to try one before it is deployed',
    )
    .action(async (options: { json?: boolean; admittedBy?: string }) => {
      // Read before asking the controller: a bad expression costs no request.
      const policy = options.admittedBy === undefined ? undefined : requirePolicy(options.admittedBy, '--admitted-by');
      const { members } = await adminRequest(portalHome(), 'members', {});
      const shown = policy ? membersAdmitted(members, policy) : members;
      process.stdout.write(options.json ? jsonLines(shown) : membersTable(shown) + poolLines(shown));
    });
  project
    .command('revoke')
    .description(
      'take a member out of the project: refused everywhere from now on, its sessions closed within a second',
    )
    .argument('<member>', 'the id of the member, as portal project members shows it')
    .option('--reason <text>', 'why, kept with the revocation', '')
    .action(async (member: string, options: { reason: string }) => {
      if (!memberIdPattern.test(member))
        throw new InputError('BAD_FLAG', `${printable(member)} is not a member id`, {
          hint: 'give an id as portal project members shows it, such as n0123456789abcdef',
        });
      const { revoked } = await adminRequest(portalHome(), 'revoke', { member, reason: options.reason });
      console.log(
        `Revoked ${revoked.nodeId}: its connections are closed and every node and relay of the project was told; ` +
          `its last certificate expires by ${new Date(revoked.until).toISOString()}.`,
      );
    });
  project
    .command('tickets')
    .description('the tickets that can still enroll someone (never their secrets)')
    .option('--json', 'one JSON object per ticket and line')
    .action(async (options: { json?: boolean }) => {
      const { tickets } = await adminRequest(portalHome(), 'tickets', {});
      process.stdout.write(options.json ? jsonLines(tickets) : ticketsTable(tickets));
    });
  const ticket = project.commands.find((command) => command.name() === 'ticket');
  if (!ticket) throw new Error('portal project ticket must be registered before its cancel command');
  ticket
    .command('cancel')
    .description('cancel a ticket before it is used: it enrolls nobody from now on')
    .argument('<id>', 'the id of the ticket, as portal project tickets shows it')
    .action(async (id: string) => {
      if (!ticketId.test(id))
        throw new InputError('BAD_FLAG', `${printable(id)} is not a ticket id`, {
          hint: 'give an id as portal project tickets shows it, such as t0123456789abcdef',
        });
      await adminRequest(portalHome(), 'ticket-cancel', { ticket: id });
      console.log(`Cancelled ${id}: it enrolls nobody from now on.`);
    });
}
