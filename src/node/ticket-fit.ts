/**
 * Whether an identity fits a node configuration, checked before anything is used: a ticket's grants
 * before the ticket is spent, or the grants of the identity a home holds already. A misfit is one
 * line that says which of the two is wrong and, for a home enrolled already, that a ticket given now
 * was not used.
 */
import type { ErrorCode } from '../shared/error-codes.ts';
import { InputError } from '../shared/errors.ts';
import type { NodeConfig } from '../shared/types/node-config.ts';
import { isNamed, portalsOf, type OutletPortal } from './portals.ts';

export interface Grants {
  readonly relays: readonly string[];
  readonly tls: boolean;
  readonly relayNode: boolean;
}

/**
 * Where the grants come from: a ticket about to be used, or the identity enrolled already. `retry` is
 * what the user does once a relay name is granted: 'start the node again', 'reload again'.
 */
export type GrantsOrigin =
  | { readonly kind: 'ticket' }
  | {
      readonly kind: 'enrolled';
      readonly nodeId: string;
      readonly projectId: string;
      readonly ticketGiven: boolean;
      /** @default 'start the node again' */
      readonly retry?: string;
    };

/** The command that grants `nodeId` the relay names `relays`, as an administrator runs it. */
export const grantCommand = (nodeId: string, relays: readonly string[]): string =>
  `portal project grant ${nodeId} ${relays.map((relay) => `--relay ${relay}`).join(' ')}`;

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
  // An enrolled node gains relay names without enrolling again: the command comes first, filled in.
  const grant =
    misfit.ungranted.length > 0
      ? `an administrator of the project runs ${grantCommand(origin.nodeId, misfit.ungranted)}, ` +
        `then ${origin.retry ?? 'start the node again'} (the node fetches the grant from the controller); or `
      : '';
  return new InputError(
    misfit.code,
    `this home is enrolled already as node ${origin.nodeId} of project ${origin.projectId}, ` +
      `whose identity ${misfit.what.replace(/^was issued/, 'was enrolled')}${unused}`,
    {
      hint: `${grant}${again}${misfit.keep}`,
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
  /** The relay names the configuration's outlets need that the grants lack. */
  readonly ungranted: readonly string[];
}

/**
 * `ticket`: an outlet's ticket is refused for an inlet-only configuration (an enrolled identity may serve
 * less than it may). A configuration of the single forms is told in the words of one outlet and one
 * inlet; one of named portals names the portals.
 */
function misfitOf(config: NodeConfig, grants: Grants, ticket: boolean): Misfit | undefined {
  const { outlets, inlets } = portalsOf(config);
  if (grants.relayNode) {
    return {
      code: 'WRONG_TICKET',
      what: 'was issued for a relay (--relay-node), not for a node',
      fix: 'run it with portal relay start, or issue a node ticket with portal project ticket --attribute NAME',
      keep: 'run this home with portal relay start',
      ungranted: [],
    };
  }
  const ungranted = outlets.filter((outlet) => !grants.relays.includes(outlet.relay));
  const names = [...new Set(ungranted.map((outlet) => outlet.relay))];
  const granted = quoted(grants.relays);
  const single = outlets.length === 1 && !isNamed(outlets[0] as OutletPortal);
  if (ungranted.length > 0 && single) {
    const relay = (ungranted[0] as OutletPortal).relay;
    return grants.relays.length === 0
      ? {
          code: 'RELAY_NOT_GRANTED',
          what:
            'was issued for an inlet (it grants no relay), ' +
            `but this configuration has an outlet for the relay "${relay}"`,
          fix: `issue the outlet's ticket with --relay ${relay}`,
          keep: 'remove tcp-outlet from the configuration',
          ungranted: names,
        }
      : {
          code: 'RELAY_NOT_GRANTED',
          what: `grants the relay ${granted}, but this configuration's outlet is for "${relay}"`,
          fix: `set relay to ${granted}, or issue the outlet's ticket with --relay ${relay}`,
          keep: `set relay to ${granted}`,
          ungranted: names,
        };
  }
  if (ungranted.length > 0) {
    const which = ungranted.map((outlet) => `"${outlet.name}" (relay "${outlet.relay}")`).join(', ');
    const needed = [...new Set(outlets.map((outlet) => outlet.relay))].map((relay) => `--relay ${relay}`).join(' ');
    return {
      code: 'RELAY_NOT_GRANTED',
      what:
        (grants.relays.length === 0 ? 'was issued for an inlet (it grants no relay)' : `grants the relay ${granted}`) +
        `, but this configuration has ${ungranted.length === 1 ? 'the outlet' : 'the outlets'} ${which}`,
      fix: `issue the outlet node's ticket with ${needed}`,
      keep:
        grants.relays.length === 0
          ? 'remove the outlets from the configuration'
          : `give each outlet a relay its identity grants (${granted}), or remove it`,
      ungranted: names,
    };
  }
  if (ticket && outlets.length === 0 && grants.relays.length > 0) {
    return {
      code: 'WRONG_TICKET',
      what:
        `was issued for an outlet (it grants the relay "${grants.relays.join('", "')}"), ` +
        'but this configuration has no tcp-outlet',
      fix:
        'give this inlet its own ticket (portal project ticket --attribute NAME, with --tls for a TLS inlet), ' +
        'and the outlet this one',
      keep: `add tcp-outlet for the relay "${grants.relays[0]}"`,
      ungranted: [],
    };
  }
  const serving = inlets.find((inlet) => inlet.tls);
  if (serving && !grants.tls) {
    const named = isNamed(serving);
    return {
      code: 'TLS_NOT_GRANTED',
      what: named
        ? `grants no TLS server certificate, but this configuration's inlet "${serving.name}" serves TLS ` +
          `(${serving.pointer.slice(1)}/tls)`
        : "grants no TLS server certificate, but this configuration's inlet serves TLS (tcp-inlet.tls)",
      fix: `issue the inlet's ticket with --tls, or remove tls from ${named ? `inlet "${serving.name}"` : 'tcp-inlet'}`,
      keep: `remove tls from ${named ? `inlet "${serving.name}"` : 'tcp-inlet'}`,
      ungranted: [],
    };
  }
  return undefined;
}

const quoted = (names: readonly string[]) => names.map((name) => `"${name}"`).join(', ');
