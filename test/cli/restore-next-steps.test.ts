import assert from 'node:assert/strict';
import { restoreNextSteps } from '../../src/cli/restore-next-steps.ts';
import type { ContinuityReport } from '../../src/controller/restore-continuity.ts';

const report = (ticketsRetired: number, previousHead: ContinuityReport['previousHead']): ContinuityReport => ({
  projectId: 'p0123456789',
  backupHead: { seq: 10, hash: 'a'.repeat(64) },
  previousHead,
  restoredSeq: 12,
  ticketsRetired,
  revocationsTakenBack: 0,
});

describe('portal controller restore: what it says to do next', () => {
  it('names only what is left: no tickets to issue with --keep-tickets, none to revoke with the head known', () => {
    const steps = restoreNextSteps({
      takenAt: '2026-11-28T09:00:00.000Z',
      keptTickets: true,
      continuity: [report(3, { seq: 11, hash: 'b'.repeat(64) })],
      startCommand: undefined,
    });
    assert.deepEqual(steps, [
      'What to do now:',
      '  1. Run any portal project command to start it. Nodes and relays reconnect by themselves and renew with it.',
      '  2. Members enrolled after the backup was taken (2026-11-28T09:00:00.000Z) are unknown to it and stop at ' +
        'their next renewal: give each a new ticket (portal project ticket) and enroll it again ' +
        '(portal reset --yes where it runs, then start it with the ticket).',
      '  3. Take a new backup once it runs: portal controller backup --output FILE.',
    ]);
  });

  it('asks for new tickets and revocations when the restore retired the one and could not take back the other', () => {
    const steps = restoreNextSteps({
      takenAt: '2026-11-28T09:00:00.000Z',
      keptTickets: false,
      continuity: [report(1, null)],
      startCommand: 'portal controller start --data-dir /d --listen 0.0.0.0:4000 --public-address c.example:4000',
    });
    assert.equal(
      steps[1],
      '  1. Start it: portal controller start --data-dir /d --listen 0.0.0.0:4000 --public-address c.example:4000. ' +
        'Nodes and relays reconnect by themselves and renew with it.',
    );
    assert.equal(
      steps[3],
      '  3. The 1 ticket issued before the backup enrolls nobody now: issue a new one for each node that had not ' +
        'used its own.',
    );
    assert.equal(
      steps[4],
      '  4. Revocations made since 2026-11-28T09:00:00.000Z come back only as the nodes and relays that learned ' +
        'them connect: revoke again every member you revoked since then (portal project revoke MEMBER).',
    );
    assert.equal(steps.length, 6);
  });
});
