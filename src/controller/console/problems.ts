/**
 * What the overview lists as problems, from what the controller knows now: a node or relay that is not
 * connected, a certificate that expired or is about to with nobody connected to renew it, a project
 * that no relay serves, an outlet no relay has registered, an inlet with no outlet to carry its
 * clients. Each says what to do. Pure: the clock is a parameter.
 */
import type { MemberInfo, RelayEntry } from '../../wire/protocol.ts';
import type { NodePortalReport } from '../portal-reports.ts';
import type { ChainState } from './chain-watch.ts';

export interface ConsoleProblem {
  /** The member it is about, if any. */
  readonly member?: string;
  readonly what: string;
  readonly fix: string;
}

/** A certificate this close to its end, with its member away, is a problem before it is one. */
const soonMs = 10 * 60_000;

export interface ProjectState {
  readonly members: readonly MemberInfo[];
  readonly relays: readonly RelayEntry[];
  readonly portals: readonly NodePortalReport[];
  /** What the background check of the audit chain found so far. */
  readonly chain?: ChainState;
}

export function problemsOf({ members, relays, portals, chain }: ProjectState, now: number): ConsoleProblem[] {
  const problems: ConsoleProblem[] = [];
  if (chain?.kind === 'broken')
    problems.push({
      what: `The audit trail does not verify: ${chain.what}.`,
      fix:
        'open Audit, then Verify the whole chain, for the whole report; docs/audit.md says what each break ' +
        'means and how to restore the trail from a backup',
    });
  problems.push(...portalProblems(portals));
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

/** Portals that carry nothing: an outlet no relay registered, an inlet whose pool has no open session. */
function portalProblems(reports: readonly NodePortalReport[]): ConsoleProblem[] {
  const problems: ConsoleProblem[] = [];
  for (const { node, portals } of reports)
    for (const portal of portals) {
      if (portal.part === 'outlet' && portal.status !== 'up')
        problems.push({
          member: node,
          what: `Outlet ${portal.name} of node ${node} is not registered on any relay (${portal.status}).`,
          fix: `on its machine, portal node show says why; a relay must serve the project and grant ${portal.relay}`,
        });
      if (portal.part === 'inlet' && !portal.peers.some((peer) => peer.path !== ''))
        problems.push({
          member: node,
          what:
            `Inlet ${portal.name} of node ${node} has no session to an outlet of ${portal.relay}: ` +
            'its clients are refused.',
          fix:
            `start an outlet with relay ${portal.relay} whose attributes the inlet allows ` +
            '(the Policies page tries an allow)',
        });
    }
  return problems;
}
