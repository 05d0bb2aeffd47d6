import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KeptSqlite } from '../../src/controller/store/sqlite.ts';
import type { AuditExport } from '../../src/cli/audit-format.ts';
import { startEchoPortal, type EchoPortal } from '../support/echo-portal.ts';
import { until } from '../support/in-process.ts';
import { nodeMetric, nodeStatus, portal, startPortal } from '../support/processes.ts';
import { startProject, type ProjectProcesses } from '../support/project-processes.ts';
import { roundTrip } from '../support/tcp.ts';
import { auditEventKinds } from '../../src/wire/protocol/audit.ts';

/** How long the controller stays away while sessions open and close: the issue's figure. */
const outageMs = 20_000;
const sessionsDuringOutage = 100;

describe('end to end: the audit trail', function () {
  this.timeout(180_000);
  let project: ProjectProcesses;
  let echo: EchoPortal['echo'];
  let port: number;
  let inletId: string;
  let outletId: string;
  const admin = () => join(project.dir, 'admin');

  /** `portal project audit --json` with `flags`, each line parsed. */
  const audit = async (...flags: string[]): Promise<AuditExport[]> => {
    const result = await portal(admin(), ['project', 'audit', '--json', ...flags]);
    assert.equal(result.code, 0, result.stderr);
    return result.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as AuditExport);
  };

  before(async () => {
    project = await startProject();
    ({ echo, port } = await startEchoPortal(project));
    inletId = (await nodeStatus(join(project.dir, 'inlet'))).identity.node_id;
    outletId = (await nodeStatus(join(project.dir, 'outlet'))).identity.node_id;
  });

  after(async () => {
    await project?.close();
    await echo?.close();
  });

  it('keeps every session closed while the controller is away, and writes each once it is back', async () => {
    // The controller's own relay goes with it: the direct path carries the portal meanwhile.
    await until(
      async () => ((await nodeStatus(join(project.dir, 'inlet'))).inlets[0]?.path === 'direct' ? true : undefined),
      'the direct path',
      20_000,
    );
    const before = (await audit('--event', 'session')).length;
    await project.killController();
    const stoppedAt = Date.now();
    for (let n = 0; n < sessionsDuringOutage; n += 1) {
      const payload = Buffer.from(`outage ${String(n).padStart(3, '0')}`);
      assert.equal((await roundTrip(port, payload)).toString(), payload.toString());
    }
    const carriedMs = Date.now() - stoppedAt;
    // Waiting on disk, not in memory only.
    const outbox = join(project.dir, 'inlet', 'node', 'audit-outbox.jsonl');
    await until(async () => {
      const lines = (await readFile(outbox, 'utf8')).split('\n').filter((line) => line.includes('"session"'));
      return lines.length >= sessionsDuringOutage ? true : undefined;
    }, 'the session records on disk');
    // The node says how many records it keeps for the trail.
    const pending = await nodeMetric(join(project.dir, 'inlet'), 'portal_audit_records_pending');
    assert.ok(pending !== undefined && pending >= sessionsDuringOutage, `pending: ${pending}`);
    await new Promise((resolve) => setTimeout(resolve, outageMs - (Date.now() - stoppedAt)));
    await project.startController();
    const backAt = Date.now();
    const sessions = await until(
      async () => {
        const all = await audit('--event', 'session');
        return all.length >= before + sessionsDuringOutage ? all : undefined;
      },
      'the outage sessions in the trail',
      30_000,
    );
    const inTrailMs = Date.now() - backAt;
    const outage = sessions.slice(before);
    assert.equal(outage.length, sessionsDuringOutage, 'each session once');
    assert.equal(new Set(outage.map((record) => record.report_id)).size, sessionsDuringOutage);
    for (const record of outage) {
      assert.equal(record.seen_by, inletId);
      assert.deepEqual(record.members, [inletId, outletId]);
      const details = record.details as Record<string, unknown>;
      assert.equal(details.path, 'direct');
      assert.equal(details.bytes_from_client, 10);
      assert.equal(details.bytes_to_client, 10);
      assert.equal(details.ended, 'closed');
      assert.equal(typeof details.duration_ms, 'number');
    }
    // Nothing more arrives later: written once.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    assert.equal((await audit('--event', 'session')).length, before + sessionsDuringOutage);
    await until(
      async () =>
        (await nodeMetric(join(project.dir, 'inlet'), 'portal_audit_records_pending')) === 0 ? true : undefined,
      'no record pending on the inlet',
    );
    console.log(
      `      ${sessionsDuringOutage} sessions carried in ${carriedMs} ms ` +
        `with the controller away for ${outageMs} ms; all in the trail ${inTrailMs} ms after it came back`,
    );
  });

  it('reads the trail by time, member and event, as lines or JSON lines', async () => {
    const enrolled = await audit('--event', 'enrolled');
    assert.deepEqual(enrolled.map((record) => record.members).sort(), [[inletId], [outletId]].sort());
    for (const record of enrolled) {
      assert.equal(record.seen_by, 'controller');
      assert.match(record.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.match(record.hash, /^[0-9a-f]{64}$/);
    }
    const outlet = await audit('--member', outletId);
    assert.ok(outlet.length > 0);
    assert.ok(outlet.every((record) => record.seen_by === outletId || (record.members as string[]).includes(outletId)));
    const events = new Set(outlet.map((record) => record.event));
    assert.ok(events.has('enrolled') && events.has('ticket-used') && events.has('session'));
    assert.ok((await audit('--since', '1h')).length > 0);
    assert.deepEqual(await audit('--since', new Date(Date.now() + 3600_000).toISOString()), []);
    const human = await portal(admin(), ['project', 'audit', '--event', 'ticket-issued']);
    assert.equal(human.code, 0);
    assert.match(human.stdout, /#\d+ ticket-issued seen by controller members a[0-9a-f]+ .*by=a/);
    for (const flags of [
      ['--event', 'nothing'],
      ['--since', '1y'],
      ['--member', 'no such id'],
      ['--verify', '--json'],
    ]) {
      const bad = await portal(admin(), ['project', 'audit', ...flags]);
      assert.equal(bad.code, 2, `${flags.join(' ')}: ${bad.stderr}`);
      assert.equal(bad.stderr.trim().split('\n').length, 1, bad.stderr);
      // A mistyped kind is answered with every kind there is, so nobody has to look them up.
      if (flags[0] === '--event')
        for (const kind of auditEventKinds)
          assert.ok(bad.stderr.includes(` ${kind},`) || bad.stderr.includes(` ${kind} (`), kind);
    }
  });

  it('follows the trail as records are appended', async () => {
    const follower = startPortal(admin(), ['project', 'audit', '--follow', '--json', '--event', 'ticket-issued'], {});
    try {
      const seen = follower.lines.length;
      await until(() => (follower.lines.length > 0 ? true : undefined), 'the records so far');
      await project.ticket(['--attribute', 'followed', '--usage-count', '3']);
      const line = await follower.waitFor(/"uses":3/, 10_000);
      assert.ok(follower.lines.length > seen);
      assert.equal((JSON.parse(line) as AuditExport).event, 'ticket-issued');
    } finally {
      await follower.stop();
    }
  });

  it('verifies the chain, and names the record edited in the store behind its back', async () => {
    const whole = await portal(admin(), ['project', 'audit', '--verify']);
    assert.equal(whole.code, 0, whole.stderr);
    assert.match(
      whole.stdout,
      /the audit trail of project p[0-9a-f]+ is whole: \d+ records, the last one's hash [0-9a-f]{64}/,
    );
    const target = (await audit('--event', 'session'))[3];
    assert.ok(target);
    const store = await KeptSqlite.open(join(project.controller.dataDir, 'controller.db'));
    try {
      const edited = JSON.stringify({ ...(target.details as object), bytes_to_client: 0 });
      store.run('UPDATE audit_records SET details = ? WHERE seq = ?', edited, target.seq);
    } finally {
      store.close();
    }
    const broken = await portal(admin(), ['project', 'audit', '--verify']);
    assert.equal(broken.code, 1);
    assert.match(broken.stderr, new RegExp(`record ${target.seq} was changed after it was written`));
    assert.equal(broken.stderr.trim().split('\n').length, 1, broken.stderr);
  });
});
