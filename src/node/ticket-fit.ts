/**
 * Whether an identity fits a node configuration, checked before anything is used: a ticket's grants
 * before the ticket is spent, or the grants of the identity a home holds already. A misfit is one
 * line that says which of the two is wrong and, for a home enrolled already, that a ticket given now
 * was not used.
 */
import type { ErrorCode } from '../shared/error-codes.ts';
import { InputError } from '../shared/errors.ts';
import type { NodeConfig } from '../shared/types/node-config.ts';

export interface Grants {
  readonly relays: readonly string[];
  readonly tls: boolean;
  readonly relayNode: boolean;
}

/** Where the grants come from: a ticket about to be used, or the identity enrolled already. */
export type GrantsOrigin =
  | { readonly kind: 'ticket' }
  | { readonly kind: 'enrolled'; readonly nodeId: string; readonly projectId: string; readonly ticketGiven: boolean };

export function identityMisfit(config: NodeConfig, grants: Grants, origin: GrantsOrigin): InputError | undefined {
  const misfit = misfitOf(config, grants, origin.kind === 'ticket');
  if (!misfit) return undefined;
  if (origin.kind === 'ticket')
    return new InputError(misfit.code, `this ticket ${misfit.what}; it was not used`, { hint: misfit.fix });
  const unused = origin.ticketGiven
    ? '; the ticket given was not used, because an enrolled home keeps its identity'
    : '';
  const again = origin.ticketGiven
    ? 'to enroll with the new ticket, run portal reset --yes or use another PORTAL_HOME; or '
    : '';
  return new InputError(
    misfit.code,
    `this home is enrolled already as node ${origin.nodeId} of project ${origin.projectId}, ` +
      `whose identity ${misfit.what.replace(/^was issued/, 'was enrolled')}${unused}`,
    {
      hint: `${again}${misfit.keep}`,
    },
  );
}

interface Misfit {
  readonly code: ErrorCode;
  readonly what: string;
  /** What to do about a ticket. */
  readonly fix: string;
  /** What to do to keep an enrolled identity. */
  readonly keep: string;
}

/**
 * `ticket`: an outlet's ticket is refused for an inlet-only configuration (an enrolled identity may serve
 * less than it may).
 */
function misfitOf(config: NodeConfig, grants: Grants, ticket: boolean): Misfit | undefined {
  const outlet = config['tcp-outlet'];
  const inlet = config['tcp-inlet'];
  if (grants.relayNode) {
    return {
      code: 'WRONG_TICKET',
      what: 'was issued for a relay (--relay-node), not for a node',
      fix: 'run it with portal relay start, or issue a node ticket with portal project ticket --attribute NAME',
      keep: 'run this home with portal relay start',
    };
  }
  if (outlet && config.relay && !grants.relays.includes(config.relay)) {
    const granted = grants.relays.map((relay) => `"${relay}"`).join(', ');
    return grants.relays.length === 0
      ? {
          code: 'RELAY_NOT_GRANTED',
          what:
            'was issued for an inlet (it grants no relay), ' +
            `but this configuration has an outlet for the relay "${config.relay}"`,
          fix: `issue the outlet's ticket with --relay ${config.relay}`,
          keep: 'remove tcp-outlet from the configuration',
        }
      : {
          code: 'RELAY_NOT_GRANTED',
          what: `grants the relay ${granted}, but this configuration's outlet is for "${config.relay}"`,
          fix: `set relay to ${granted}, or issue the outlet's ticket with --relay ${config.relay}`,
          keep: `set relay to ${granted}`,
        };
  }
  if (ticket && !outlet && grants.relays.length > 0) {
    return {
      code: 'WRONG_TICKET',
      what:
        `was issued for an outlet (it grants the relay "${grants.relays.join('", "')}"), ` +
        'but this configuration has no tcp-outlet',
      fix:
        'give this inlet its own ticket (portal project ticket --attribute NAME, with --tls for a TLS inlet), ' +
        'and the outlet this one',
      keep: `add tcp-outlet for the relay "${grants.relays[0]}"`,
    };
  }
  if (inlet?.tls && !grants.tls) {
    return {
      code: 'TLS_NOT_GRANTED',
      what: "grants no TLS server certificate, but this configuration's inlet serves TLS (tcp-inlet.tls)",
      fix: "issue the inlet's ticket with --tls, or remove tls from tcp-inlet",
      keep: 'remove tls from tcp-inlet',
    };
  }
  return undefined;
}
