/**
 * Which members and tickets `portal project retire` takes out: those whose grants are exactly the ones
 * given, as one `portal project ticket` line of a use case's tickets.sh issued them. Exact, not "carries
 * the attribute": a member enrolled with a wider ticket, or with another use case's, is not this use
 * case's. Pure: the controller's listings in, the ones to revoke and cancel out.
 */
import type { MemberInfo, TicketInfo } from '../wire/protocol.ts';

/** What one ticket line grants: `--attribute` (each), `--relay` (each) and `--tls`. */
export interface Grants {
  readonly attributes: readonly string[];
  readonly relays: readonly string[];
  /** @default false */
  readonly tls: boolean;
}

const sameSet = (a: readonly string[], b: readonly string[]) => {
  const left = new Set(a);
  const right = new Set(b);
  return left.size === right.size && [...left].every((item) => right.has(item));
};

const sameGrants = (carried: Grants, wanted: Grants) =>
  carried.tls === wanted.tls &&
  sameSet(carried.attributes, wanted.attributes) &&
  sameSet(carried.relays, wanted.relays);

/** The active nodes enrolled with exactly `grants`; relays, administrators and revoked members never. */
export function membersToRevoke(members: readonly MemberInfo[], grants: Grants): MemberInfo[] {
  return members.filter((member) => member.kind === 'node' && member.revoked === null && sameGrants(member, grants));
}

/** The tickets that can still enroll a node with exactly `grants`. */
export function ticketsToCancel(tickets: readonly TicketInfo[], grants: Grants): TicketInfo[] {
  return tickets.filter(
    (ticket) =>
      ticket.usesLeft > 0 && !ticket.grants.admin && !ticket.grants.relayNode && sameGrants(ticket.grants, grants),
  );
}

/** The grants as the command line gave them: "attribute a, b; relay r; tls". */
export function grantsText(grants: Grants): string {
  return [
    `attribute ${grants.attributes.join(', ')}`,
    ...(grants.relays.length > 0 ? [`relay ${grants.relays.join(', ')}`] : []),
    ...(grants.tls ? ['tls'] : []),
  ].join('; ');
}
