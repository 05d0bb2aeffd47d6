/**
 * `portal project retire`: takes out of the project what one use case's tickets.sh issued (its
 * `cleanup` runs it once per ticket line): the unused tickets with exactly these grants are cancelled,
 * then the active nodes enrolled with exactly these grants are revoked. Members and tickets of other
 * use cases, relays and administrators stay.
 */
import type { Command } from 'commander';
import { InputError, PortalError } from '../shared/errors.ts';
import type { ControlChannel } from '../wire/control-channel.ts';
import { openAdminChannel } from './administrator.ts';
import { portalHome } from './home.ts';
import { attributeFlags, relayFlags } from './ticket-flags.ts';
import { grantsText, membersToRevoke, ticketsToCancel, type Grants } from './retire-matching.ts';

export interface RetireOptions {
  /** @default [] */
  readonly attribute: readonly string[];
  /** @default [] */
  readonly relay: readonly string[];
  readonly tls?: boolean;
  readonly reason: string;
}

const collect = (value: string, values: readonly string[]) => [...values, value];

export function registerRetire(project: Command): void {
  project
    .command('retire')
    .description(
      'cancel the unused tickets and revoke the active nodes whose grants are exactly these ' +
        '(what one portal project ticket line issued): one use case cleaned up, the others kept',
    )
    .option('--attribute <attribute>', 'an attribute the ticket line granted; repeat it for each', collect, [])
    .option('--relay <name>', 'a relay name the ticket line granted; repeat it for each', collect, [])
    .option('--tls', 'the ticket line granted --tls')
    .requiredOption('--reason <text>', 'why, kept with each revocation (such as the use case it ends)')
    .action(async (options: RetireOptions) => {
      if (options.attribute.length === 0)
        throw new InputError('BAD_FLAG', 'no --attribute was given', {
          hint: 'give the --attribute (and --relay, --tls) of the portal project ticket line whose nodes to retire',
        });
      // Checked as the ticket command checks them: a mistyped flag costs no connection.
      attributeFlags(options.attribute);
      relayFlags(options.relay);
      const grants: Grants = { attributes: options.attribute, relays: options.relay, tls: options.tls === true };
      const channel = await openAdminChannel(portalHome());
      try {
        const { cancelled, revoked } = await retire(channel, grants, options.reason);
        cancelled.forEach((id) => console.log(`Cancelled ticket ${id}: it enrolls nobody from now on.`));
        revoked.forEach((id) => console.log(`Revoked ${id}: its connections are closed and the project was told.`));
        console.log(
          `Retired ${grantsText(grants)}: ${count(revoked.length, 'node')} revoked, ` +
            `${count(cancelled.length, 'unused ticket')} cancelled.`,
        );
      } finally {
        channel.close();
      }
    });
}

/**
 * Tickets first: a node that enrolls with one while this runs is then a member, and revoked below. A
 * ticket used up between the listing and its cancellation is that case, so its refusal is not an error.
 */
async function retire(
  channel: ControlChannel,
  grants: Grants,
  reason: string,
): Promise<{ cancelled: string[]; revoked: string[] }> {
  const cancelled: string[] = [];
  const { tickets } = await channel.request('tickets', {});
  for (const ticket of ticketsToCancel(tickets, grants)) {
    try {
      await channel.request('ticket-cancel', { ticket: ticket.id });
      cancelled.push(ticket.id);
    } catch (error) {
      if (!(error instanceof PortalError) || error.code !== 'TICKET_UNKNOWN') throw error;
    }
  }
  const revoked: string[] = [];
  const { members } = await channel.request('members', {});
  for (const member of membersToRevoke(members, grants)) {
    await channel.request('revoke', { member: member.id, reason });
    revoked.push(member.id);
  }
  return { cancelled, revoked };
}

const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
