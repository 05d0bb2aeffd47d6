/** `portal project show | ticket | ca`: the administrator's view of the project. */
import type { Command } from 'commander';
import { isLoopbackHost, parseHostPort } from '../shared/address.ts';
import { durationRanges, durationSyntax } from '../shared/duration.ts';
import { InputError } from '../shared/errors.ts';
import { decodeTicket } from '../wire/ticket.ts';
import { adminRequest } from './administrator.ts';
import { durationFlag } from './duration-flag.ts';
import { portalHome } from './home.ts';
import { printable, selectPath } from './jq-path.ts';
import { registerGrant } from './project-grant.ts';
import { registerMembers } from './project-members.ts';
import { attributeFlags, relayFlags } from './ticket-flags.ts';
import { registerProjectAudit } from './project-audit.ts';
import { registerRetire } from './project-retire.ts';

export interface TicketOptions {
  /** @default "10h" */
  readonly expiresIn: string;
  /** @default "1" */
  readonly usageCount: string;
  /** One attribute (NAME or KEY=VALUE) per --attribute. @default [] */
  readonly attribute: readonly string[];
  /** One name per --relay. @default [] */
  readonly relay: readonly string[];
  readonly tls?: boolean;
  readonly relayNode?: boolean;
  readonly admin?: boolean;
}

export function registerProject(program: Command): void {
  const project = program.command('project').description('the project this machine administers');
  project
    .command('show')
    .description('the project as JSON (id, name, controller, network_domain)')
    .option('--jq <path>', 'print only this field, such as .id')
    .action(async (options: { jq?: string }) => {
      const answer = await adminRequest(portalHome(), 'project', {});
      console.log(
        options.jq ? printable(selectPath(answer.project, options.jq)) : JSON.stringify(answer.project, null, 2),
      );
    });
  project
    .command('ticket')
    .description('issue an enrollment ticket and print it')
    .option('--expires-in <duration>', `lifetime of the ticket: ${durationSyntax(durationRanges.ticket)}`, '10h')
    .option('--usage-count <n>', 'how many enrollments it allows', '1')
    .option(
      '--attribute <attribute>',
      'attribute given to the enrolled node, NAME or KEY=VALUE; peers match it with allow; ' +
        'repeat it for several (one at least, except with --relay-node)',
      (attribute: string, attributes: readonly string[]) => [...attributes, attribute],
      [] as readonly string[],
    )
    .option(
      '--relay <name>',
      'relay name the enrolled node may register (outlet tickets); repeat it for an outlet node of several portals',
      (name: string, names: readonly string[]) => [...names, name],
      [] as readonly string[],
    )
    .option('--tls', 'let the enrolled inlet obtain a TLS server certificate')
    .option('--relay-node', 'enroll a relay (portal relay start) instead of a node: no attribute, relay name or --tls')
    .option('--admin', 'enroll another administrator of the project (portal enroll --ticket) instead of a node')
    .action(async (options: TicketOptions) => {
      const answer = await adminRequest(portalHome(), 'ticket', ticketRequest(options));
      console.log(String(answer.ticket));
      const warning = loopbackWarning(String(answer.ticket));
      if (warning) console.error(warning);
    });
  registerMembers(project);
  registerGrant(project);
  registerRetire(project);
  project
    .command('ca')
    .description("print the project's certificate authority (PEM), for clients of TLS inlets")
    .action(async () => {
      const answer = await adminRequest(portalHome(), 'ca', {});
      process.stdout.write(String(answer.certificate));
    });
  registerProjectAudit(project);
}

/**
 * One line for standard error when the ticket names the controller by a loopback address: it enrolls
 * nodes on this machine only, which is fine for a try-out and a surprise on the second machine.
 */
export function loopbackWarning(ticket: string): string | undefined {
  const { controller } = decodeTicket(ticket);
  const parsed = parseHostPort(controller);
  if (!parsed.ok || !isLoopbackHost(parsed.address.host)) return undefined;
  return (
    `portal: warning: this ticket names the controller at ${controller}, a loopback address, ` +
    'so only nodes on this machine can use it; ' +
    'for nodes on other machines, run the controller where they reach it: ' +
    'portal enroll --listen 0.0.0.0:PORT --public-address HOST:PORT ' +
    '(in a new PORTAL_HOME, or after portal reset --yes), ' +
    'or portal controller start --listen 0.0.0.0:PORT --public-address HOST:PORT'
  );
}

/** What `portal project ticket` asks the controller for, from its flags; refuses flags that ask for nothing. */
export function ticketRequest(options: TicketOptions) {
  const expiresInMs = durationFlag('--expires-in', options.expiresIn, durationRanges.ticket);
  if (!/^[1-9][0-9]*$/.test(options.usageCount))
    throw new InputError('BAD_FLAG', `--usage-count ${options.usageCount} is not a whole number of 1 or more`, {
      hint: 'give --usage-count 1 for a one-time ticket',
    });
  if (!options.relayNode && !options.admin && options.attribute.length === 0)
    throw new InputError('BAD_FLAG', 'no --attribute was given', {
      hint:
        'give --attribute NAME or KEY=VALUE (peers match it with allow), --relay-node for a relay, ' +
        'or --admin for an administrator',
    });
  return {
    expiresInMs,
    usageCount: Number(options.usageCount),
    attribute: attributeFlags(options.attribute),
    ...(options.relay.length > 0 ? { relay: relayFlags(options.relay) } : {}),
    tls: options.tls === true,
    relayNode: options.relayNode === true,
    ...(options.admin ? { admin: true } : {}),
  };
}
