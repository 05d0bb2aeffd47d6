import assert from 'node:assert/strict';
import { othersHosted, whatIsLost, type ControllerHoldings } from '../../src/cli/controller-holdings.ts';

const alone: ControllerHoldings = {
  projects: 1,
  otherProjects: 0,
  members: 3,
  revokedMembers: 2,
  othersActive: 0,
  unusedTickets: 0,
  auditRecords: 41,
};

describe('portal reset: what the embedded controller serves besides this machine', () => {
  it('serves nobody else once every other member is revoked and every ticket used, expired or cancelled', () => {
    assert.equal(othersHosted({ holdings: alone }), undefined);
  });

  it('names each kind of other use: projects, active members, unused tickets', () => {
    assert.equal(othersHosted({ holdings: { ...alone, unusedTickets: 1 } }), 'it hosts 1 unused ticket');
    assert.equal(
      othersHosted({ holdings: { ...alone, otherProjects: 2, othersActive: 1, unusedTickets: 3 } }),
      "it hosts 2 other projects, 1 active member besides this machine's own and 3 unused tickets",
    );
  });

  it('takes a store it cannot read as serving others: what it holds is unknown', () => {
    assert.equal(
      othersHosted({ unreadable: 'file is not a database' }),
      'its store cannot be read (file is not a database), so what it hosts is unknown',
    );
  });

  it('counts what goes with it, the sealing key last', () => {
    assert.equal(
      whatIsLost(alone),
      '1 project, 3 members (2 revoked), 41 audit records and the sealing key without which its backups ' +
        'cannot be restored',
    );
    assert.equal(
      whatIsLost({ ...alone, projects: 2, members: 1, revokedMembers: 0, auditRecords: 1 }),
      '2 projects, 1 member, 1 audit record and the sealing key without which its backups cannot be restored',
    );
  });
});
