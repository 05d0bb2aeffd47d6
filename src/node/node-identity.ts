/**
 * The identity a node starts with: the one stored under its home, or none yet when it has a ticket
 * to enroll with. A node that may not start with them (no ticket and no identity, a configuration the
 * identity or ticket does not grant) fails here, before anything is bound or spent.
 */
import { InputError } from '../shared/errors.ts';
import { decodeTicket } from '../wire/ticket.ts';
import { refreshCertificate } from './enrollment.ts';
import { fitWithFreshGrants } from './grant-refresh.ts';
import { loadIdentity, type StoredIdentity } from './identity-store.ts';
import type { NodeOptions } from './node-options.ts';
import { identityMisfit } from './ticket-fit.ts';

/** The stored identity, or undefined when the node is to enroll with its ticket. */
export async function identityToStart(
  directory: string,
  options: Pick<NodeOptions, 'config' | 'ticket' | 'logger'>,
): Promise<StoredIdentity | undefined> {
  const { config, logger } = options;
  const stored = await loadIdentity(directory, { warn: (line) => logger.warn(line) });
  // Everything that can be checked is checked before a ticket is used: a refused start spends nothing.
  const ticket = stored || !options.ticket ? undefined : decodeTicket(options.ticket);
  if (!stored && !ticket) {
    throw new InputError(
      'NO_IDENTITY',
      `this node has no identity in ${directory} yet, and no enrollment ticket was given`,
      {
        hint:
          // The ways that keep the ticket out of ps and shell history come first; --enrollment-ticket does not.
          'give --enrollment-ticket-file FILE (the .ticket file; - for standard input) or ENROLLMENT_TICKET',
      },
    );
  }
  if (stored) {
    const enrolled = (identity: StoredIdentity) =>
      identityMisfit(
        config,
        { relays: identity.record.relays, tls: identity.record.tls, relayNode: false },
        {
          kind: 'enrolled',
          nodeId: identity.record.nodeId,
          projectId: identity.record.projectId,
          ticketGiven: options.ticket !== undefined,
        },
      );
    // A relay name granted since the last certificate is fetched now, rather than refused.
    const fit = await fitWithFreshGrants(enrolled, stored, async () => {
      const { identity } = await refreshCertificate(directory, stored);
      const added = identity.record.relays.filter((relay) => !stored.record.relays.includes(relay));
      if (added.length > 0)
        logger.info(
          `relay names granted since this node's last certificate: ${quotedList(added)}; ` +
            `it holds ${quotedList(identity.record.relays)}`,
        );
      return identity;
    });
    if (fit.misfit) throw fit.misfit;
    return fit.identity;
  }
  const misfit = ticket?.grants
    ? identityMisfit(
        config,
        {
          // A ticket granting several relay names carries them comma-joined.
          relays: ticket.grants.relay ? ticket.grants.relay.split(',') : [],
          tls: ticket.grants.tls === true,
          relayNode: ticket.grants.relayNode === true,
        },
        { kind: 'ticket' },
      )
    : undefined;
  if (misfit) throw misfit;
  return undefined;
}

const quotedList = (names: readonly string[]) =>
  names.length === 0 ? 'none' : names.map((name) => `"${name}"`).join(', ');
