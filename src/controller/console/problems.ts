/**
 * What the overview lists as problems, from what the controller knows now: a node or relay that is not
 * connected, a certificate that expired or is about to with nobody connected to renew it, and a
 * project that no relay serves. Each says what to do. Pure: the clock is a parameter.
 */
import type { MemberInfo, RelayEntry } from '../../wire/protocol.ts';

export interface ConsoleProblem {
  /** The member it is about, if any. */
  readonly member?: string;
  readonly what: string;
  readonly fix: string;
}

/** A certificate this close to its end, with its member away, is a problem before it is one. */
const soonMs = 10 * 60_000;

export function problemsOf(
  members: readonly MemberInfo[],
  relays: readonly RelayEntry[],
  now: number,
): ConsoleProblem[] {
  const problems: ConsoleProblem[] = [];
  if (relays.length === 0)
    problems.push({
      what: 'No relay serves the project: portals that cannot connect directly carry nothing.',
      fix: 'start the controller with its relay (the default), or a relay node: portal relay start',
    });
  for (const member of members) {
    if (member.revoked !== null || member.kind === 'administrator') continue;
    const expires = member.certificateExpiresAt === null ? undefined : Date.parse(member.certificateExpiresAt);
    const name = `${member.kind === 'relay' ? 'Relay node' : 'Node'} ${member.id}`;
    if (expires !== undefined && expires <= now)
      problems.push({
        member: member.id,
        what: `${name}'s certificate expired at ${member.certificateExpiresAt}.`,
        fix:
          'start the node again where it runs: it renews its certificate as it connects ' +
          '(portal node show says why it stopped)',
      });
    else if (!member.connected)
      problems.push({
        member: member.id,
        what:
          `${name} is not connected to the controller` +
          (member.lastSeen ? ` (last seen ${member.lastSeen})` : ' and never was') +
          (expires !== undefined && expires - now < soonMs
            ? `; its certificate expires at ${member.certificateExpiresAt}.`
            : '.'),
        fix: 'on its machine, portal node show says whether it runs and why it cannot reach the controller',
      });
  }
  return problems;
}
