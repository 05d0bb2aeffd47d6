import assert from 'node:assert/strict';
import { join } from 'node:path';
import { enrollWithTicket } from '../../src/node/enrollment.ts';
import type { StoredIdentity } from '../../src/node/identity-store.ts';
import { callController, openControlChannel } from '../../src/wire/control-channel.ts';
import { maxLiveSessions, type AuditRecordWire, type AuditReport } from '../../src/wire/protocol.ts';
import { auditExchangeVersion } from '../../src/wire/protocol/audit.ts';
import { sessionReport } from '../support/audit-flood.ts';
import { rejectsWith } from '../support/portal-errors.ts';
import { createWorld, type World } from '../support/portal-world.ts';

const as = (identity: StoredIdentity) => ({ key: identity.privateKey, certificate: identity.certificate });

describe('controller: what a member may report to the audit trail', () => {
  let world: World;
  let inlet: StoredIdentity;
  let outlet: StoredIdentity;

  before(async () => {
    world = await createWorld();
    inlet = await enrollWithTicket(join(world.dir, 'inlet'), await world.ticket({ attribute: 'db-inlet' }));
    outlet = await enrollWithTicket(join(world.dir, 'outlet'), await world.ticket({ attribute: 'db-outlet' }));
  });
  after(() => world.close());

  const report = async (records: readonly AuditReport[]) => {
    const { written, taken, retryAfterMs, overBudget } = await callController(
      inlet.record,
      'audit-report',
      { records },
      as(inlet),
    );
    return { written, taken, retryAfterMs, overBudget };
  };
  const trail = async (query: { since?: number; event?: string } = {}): Promise<readonly AuditRecordWire[]> =>
    (
      await callController(
        world.admin.record,
        'audit',
        {
          exchange: auditExchangeVersion,
          afterSeq: 0,
          limit: 200,
          since: query.since ?? 0,
          ...(query.event ? { event: query.event } : {}),
        },
        as(world.admin),
      )
    ).records;
  const byId = async (id: string) => (await trail()).find((record) => record.reportId === id);

  it('dates a record from 2020 or 2100 by its own clock, keeps the reported time, and --since finds it', async () => {
    const self = inlet.record.nodeId;
    const peer = outlet.record.nodeId;
    const past = sessionReport(self, peer, Date.parse('2020-01-01T00:00:00.000Z'));
    const future = sessionReport(self, peer, Date.parse('2100-01-01T00:00:00.000Z'));
    const skewed = sessionReport(self, peer, Date.now() + 60_000);
    const before = Date.now();
    assert.deepEqual(await report([past, future, skewed]), { written: 3, taken: 3, retryAfterMs: 0, overBudget: 0 });
    const after = Date.now();
    for (const [sent, reported] of [
      [past, '2020-01-01T00:00:00.000Z'],
      [future, '2100-01-01T00:00:00.000Z'],
    ] as const) {
      const record = await byId(sent.id);
      assert.ok(record && record.time >= before && record.time <= after, `time ${record?.time}`);
      assert.ok(record.recorded >= record.time && record.recorded <= after, 'checked, then appended');
      assert.equal((JSON.parse(record.details) as { reported_time: string }).reported_time, reported);
    }
    // A clock a minute ahead is a clock's skew: kept as it was reported.
    const kept = await byId(skewed.id);
    assert.equal(kept?.time, skewed.time);
    assert.ok(!kept.details.includes('reported_time'));
    // A review of the last hour is by the controller's clock: none of them hides from it.
    const lastHour = (await trail({ since: Date.now() - 3_600_000 })).map((record) => record.reportId);
    for (const sent of [past, future, skewed]) assert.ok(lastHour.includes(sent.id), sent.id);
  });

  it('writes only what each kind of record can truthfully say, and counts the rest', async () => {
    const self = inlet.record.nodeId;
    const peer = outlet.record.nodeId;
    const session = (members: string[], details: Record<string, unknown> = {}) => {
      const base = sessionReport(self, peer);
      return { ...base, members, details: JSON.stringify({ ...JSON.parse(base.details), ...details }) };
    };
    const refused = (members: string[], details: Record<string, unknown>) => ({
      ...sessionReport(self, peer),
      event: 'refused',
      members,
      details: JSON.stringify({ count: 1, ...details }),
    });
    const good = [
      session([self, peer]),
      session([self]),
      refused([peer], { reason: 'allow', portal: 'db', detail: 'allow is db-inlet' }),
      refused([], { reason: 'many-peers', detail: 'refusals of more than 64 peers' }),
    ];
    const forged = [
      session([self, 'n0000000000000000']), // an outlet that is no member
      session([peer, self]), // a session the reporter says another inlet carried
      session([self, world.admin.record.nodeId, peer]), // more sides than a session has
      session([self, peer], { reported_time: '2020-01-01T00:00:00.000Z' }), // the controller's own field
      session([self, peer], { bytes_to_client: -1 }),
      session([self, peer], { admin: true }), // a detail no session has
      refused(['n0000000000000000'], { reason: 'allow' }),
      refused([peer], { reason: 'revoked' }), // the peer is not revoked
      refused([peer], { reason: 'allow', count: 1e308 }),
      { ...sessionReport(self, peer), event: 'revoked-cut', members: [peer], details: '{"connections":3}' },
      {
        ...sessionReport(self, peer),
        event: 'reports-dropped',
        members: [peer],
        details: JSON.stringify({ count: 1, first_at: new Date().toISOString(), last_at: new Date().toISOString() }),
      },
    ];
    const answer = await report([...forged, ...good]);
    assert.deepEqual(answer, {
      written: good.length,
      taken: forged.length + good.length,
      retryAfterMs: 0,
      overBudget: 0,
    });
    const ids = new Set((await trail()).map((record) => record.reportId));
    for (const record of good) assert.ok(ids.has(record.id), record.details);
    for (const record of forged) assert.ok(!ids.has(record.id), `${record.event} ${record.members.join(',')}`);
    // The window's count, in one record the controller writes.
    await world.controller.service.reports.flush();
    const dropped = (await trail({ event: 'reports-dropped' })).filter(
      (record) => record.seenBy === 'controller' && record.members === JSON.stringify([self]),
    );
    assert.equal(dropped.length, 1);
    assert.deepEqual(JSON.parse(dropped[0]!.details) as unknown, {
      count: forged.length,
      over_budget: 0,
      invalid: forged.length,
      first_at: (JSON.parse(dropped[0]!.details) as { first_at: string }).first_at,
      last_at: (JSON.parse(dropped[0]!.details) as { last_at: string }).last_at,
    });
  });

  it('refuses a reader of the first audit listing (it stops at a short page) with PROTOCOL_VERSION', async () => {
    for (const exchange of [undefined, 1, auditExchangeVersion + 1])
      await rejectsWith(
        callController(
          world.admin.record,
          'audit',
          // A reader of version 1 sent no version: the field reads as no number.
          { exchange: exchange as number, afterSeq: 0, limit: 200, since: 0 },
          as(world.admin),
        ),
        'PROTOCOL_VERSION',
        /audit listings of version 2/,
      );
  });

  it('takes a count of live sessions from 0 to its bound, and refuses any other number', async () => {
    const channel = await openControlChannel(inlet.record, as(inlet));
    try {
      await channel.request('member-report', { liveSessions: 3 });
      for (const liveSessions of [1e308, -1, 1.5, maxLiveSessions + 1, Number.NaN])
        await rejectsWith(channel.request('member-report', { liveSessions }), 'BAD_REQUEST', /live sessions/);
      const shown = async () =>
        (await callController(world.admin.record, 'members', {}, as(world.admin))).members.find(
          (member) => member.id === inlet.record.nodeId,
        )?.liveSessions;
      assert.equal(await shown(), 3, 'a refused figure changes nothing');
      await channel.request('member-report', { liveSessions: maxLiveSessions });
      assert.equal(await shown(), maxLiveSessions);
    } finally {
      channel.close();
    }
  });
});

describe('controller: what a member over its audit budget is told', () => {
  let world: World;
  let member: StoredIdentity;
  const budget = {
    // Slow enough that the third batch is sent well within the wait the second is told (over a second).
    member: { records: { perSecond: 4, burst: 5 }, bytes: { perSecond: 1_000_000, burst: 1_000_000 } },
    total: { records: { perSecond: 1000, burst: 1000 }, bytes: { perSecond: 1_000_000, burst: 1_000_000 } },
    keys: 100,
  };

  before(async () => {
    world = await createWorld({ auditBudget: budget });
    member = await enrollWithTicket(join(world.dir, 'member'), await world.ticket({ attribute: 'a' }));
  });
  after(() => world.close());

  it('counts as dropped only a batch sent while told to wait, and says so in the answer', async () => {
    const channel = await openControlChannel(member.record, as(member));
    try {
      const batch = () => Array.from({ length: 5 }, () => sessionReport(member.record.nodeId, undefined));
      const send = async () => {
        const answer = await channel.request('audit-report', { records: batch() });
        return {
          written: answer.written,
          taken: answer.taken,
          retryAfterMs: answer.retryAfterMs,
          overBudget: answer.overBudget,
        };
      };
      // Sent together: the first empties the bucket exactly, the second finds it empty without having
      // been told to wait (it is told now), the third comes after that and is refused whole.
      const [first, second] = await Promise.all([send(), send()]);
      assert.deepEqual(first, { written: 5, taken: 5, retryAfterMs: 0, overBudget: 0 });
      assert.equal(second.taken < 5 && second.retryAfterMs > 0, true, JSON.stringify(second));
      assert.equal(second.overBudget, 0);
      const third = await send();
      assert.deepEqual({ taken: third.taken, overBudget: third.overBudget }, { taken: 0, overBudget: 5 });
    } finally {
      channel.close();
    }
    await world.controller.service.reports.flush();
    const { records } = await callController(
      world.admin.record,
      'audit',
      { exchange: auditExchangeVersion, afterSeq: 0, limit: 200, since: 0, event: 'reports-dropped' },
      as(world.admin),
    );
    const counted = records.map((record) => (JSON.parse(record.details) as { over_budget: number }).over_budget);
    assert.deepEqual(counted, [5], 'the early batch alone');
  });
});
