/**
 * What an operator must do after `portal controller restore`, as lines: what the restore cannot do
 * by itself (start the controller, enroll again the members the backup does not know, issue the
 * tickets it retired, revoke again what it could not take back), and what happens without them
 * (nodes and relays reconnect and renew). Pure: the restore's outcome in, the lines out.
 */
import type { ContinuityReport } from '../controller/restore-continuity.ts';

export interface RestoreOutcome {
  /** When the backup was taken (its manifest's created_at). */
  readonly takenAt: string;
  readonly keptTickets: boolean;
  readonly continuity: readonly ContinuityReport[];
  /** The command that starts the restored controller, or undefined when the next portal command starts it. */
  readonly startCommand: string | undefined;
}

export function restoreNextSteps(outcome: RestoreOutcome): string[] {
  const steps: string[] = [];
  steps.push(
    outcome.startCommand
      ? `Start it: ${outcome.startCommand}. Nodes and relays reconnect by themselves and renew with it.`
      : 'Run any portal project command to start it. Nodes and relays reconnect by themselves and renew with it.',
  );
  steps.push(
    `Members enrolled after the backup was taken (${outcome.takenAt}) are unknown to it and stop at their next ` +
      'renewal: give each a new ticket (portal project ticket) and enroll it again ' +
      '(portal reset --yes where it runs, then start it with the ticket).',
  );
  const retired = outcome.continuity.reduce((sum, report) => sum + report.ticketsRetired, 0);
  if (!outcome.keptTickets && retired > 0)
    steps.push(
      `The ${retired} ticket${retired === 1 ? '' : 's'} issued before the backup enroll${retired === 1 ? 's' : ''} ` +
        'nobody now: issue a new one for each node that had not used its own.',
    );
  if (outcome.continuity.some((report) => report.previousHead === null))
    steps.push(
      `Revocations made since ${outcome.takenAt} come back only as the nodes and relays that learned them ` +
        'connect: revoke again every member you revoked since then (portal project revoke MEMBER).',
    );
  steps.push('Take a new backup once it runs: portal controller backup --output FILE.');
  return ['What to do now:', ...steps.map((step, index) => `  ${index + 1}. ${step}`)];
}
