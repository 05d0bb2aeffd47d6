/**
 * `portal project ticket FLAGS` for tests whose subject is not that command: its own flags parser and
 * request, sent by this process as the administrator of `adminHome`, without starting a program (a
 * start costs a quarter of a CPU second, and the suite issues over a hundred tickets). The command
 * itself is tested as a program in test/cli.
 */
import { adminRequest } from '../../src/cli/administrator.ts';
import { buildProgram, registrationsFor } from '../../src/cli/program.ts';
import { ticketRequest, type TicketOptions } from '../../src/cli/project.ts';

const projectCommand = await registrationsFor(['project']);

export async function ticketInProcess(adminHome: string, flags: readonly string[]): Promise<string> {
  const program = buildProgram(projectCommand);
  const ticket = program.commands
    .find((command) => command.name() === 'project')
    ?.commands.find((command) => command.name() === 'ticket');
  if (!ticket) throw new Error('portal project ticket is not a command');
  let parsed: TicketOptions | undefined;
  ticket.action((options: TicketOptions) => {
    parsed = options;
  });
  await program.parseAsync(['project', 'ticket', ...flags], { from: 'user' });
  if (!parsed) throw new Error(`portal project ticket ${flags.join(' ')} ran no action`);
  const answer = await adminRequest(adminHome, 'ticket', ticketRequest(parsed));
  return String(answer.ticket);
}
