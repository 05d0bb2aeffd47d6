import assert from 'node:assert/strict';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { KeptSqlite } from '../../src/controller/store/sqlite.ts';
import { auditBudget, reportsDroppedWindowMs } from '../../src/controller/limits.ts';
import { auditLimits } from '../../src/wire/protocol/audit.ts';
import { enrollWithTicket } from '../../src/node/enrollment.ts';
import { loadIdentity, type StoredIdentity } from '../../src/node/identity-store.ts';
import { callController } from '../../src/wire/control-channel.ts';
import { floodReports, sessionReport, type FloodResult } from '../support/audit-flood.ts';
import { startProject, type ProjectProcesses } from '../support/project-processes.ts';

/** The flood: a member that no allow admits, sending reports as fast as it can. */
const floodMs = 20_000;
/**
 * `project members` took 3.3 s during the flood before budgets (8.7 s here, on a loaded machine). Its
 * request may take this much longer during the flood than the slowest of it before: the first moments
 * of a flood write the member's burst.
 */
const membersMarginMs = 2000;

const as = (identity: StoredIdentity) => ({ key: identity.privateKey, certificate: identity.certificate });

interface Row {
  readonly seen_by: string;
  readonly event: string;
  readonly members: string;
  readonly details: string;
  readonly recorded_at: number;
}

describe('end to end: a member that floods the audit trail', function () {
  this.timeout(120_000);
  let project: ProjectProcesses;
  let flooder: StoredIdentity;
  let honest: StoredIdentity;
  let outlet: StoredIdentity;

  const enroll = async (name: string, attribute: string) =>
    enrollWithTicket(join(project.dir, name), await project.ticket(['--attribute', attribute, '--usage-count', '1']));
  /** The store's size on disk, its write-ahead log included (the controller checkpoints it when it stops). */
  const storeBytes = async () => {
    const db = join(project.controller.dataDir, 'controller.db');
    const sizes = await Promise.all(
      ['', '-wal'].map((suffix) =>
        stat(db + suffix).then(
          (s) => s.size,
          () => 0,
        ),
      ),
    );
    return sizes[0]! + sizes[1]!;
  };
  /** How long the administrator's `members` request takes (what `portal project members` asks). */
  const membersMs = async (admin: StoredIdentity) => {
    const started = Date.now();
    const { members } = await callController(admin.record, 'members', {}, as(admin));
    assert.ok(members.length >= 4);
    return Date.now() - started;
  };

  before(async () => {
    project = await startProject();
    flooder = await enroll('flooder', 'stranger');
    honest = await enroll('honest', 'db-inlet');
    outlet = await enroll('outlet', 'db-outlet');
  });
  after(() => project?.close());

  it('writes what its budget allows, counts the rest once a window, and the others still report', async () => {
    const admin = (await loadIdentity(join(project.dir, 'admin', 'admin')))!;
    const quiet: number[] = [];
    for (let n = 0; n < 3; n += 1) quiet.push(await membersMs(admin));
    const bytesBefore = await storeBytes();
    const honestAnswers: { written: number; taken?: number }[] = [];
    const duringFlood: number[] = [];
    let flooding = true;
    const honestReporter = (async () => {
      while (flooding) {
        const report = sessionReport(honest.record.nodeId, outlet.record.nodeId);
        honestAnswers.push(await callController(honest.record, 'audit-report', { records: [report] }, as(honest)));
        duringFlood.push(await membersMs(admin));
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    })();
    let flood: FloodResult;
    try {
      flood = await floodReports(flooder, { durationMs: floodMs, peer: outlet.record.nodeId });
    } finally {
      flooding = false;
      await honestReporter;
    }
    // Stopped, the controller records the window under way (every count is in the store) and
    // checkpoints its write-ahead log into the file.
    assert.equal(await project.controller.process.stop(), 0);
    const bytesAfter = await storeBytes();
    const database = await KeptSqlite.open(join(project.controller.dataDir, 'controller.db'));
    let rows: Row[];
    try {
      rows = database.all<Row>('SELECT seen_by, event, members, details, recorded_at FROM audit_records ORDER BY seq');
    } finally {
      database.close();
    }
    const self = flooder.record.nodeId;
    const written = rows.filter((row) => row.seen_by === self).length;
    const taken = flood.answers.reduce((sum, answer) => sum + answer.taken, 0);
    const seconds = floodMs / 1000;
    const growth = bytesAfter - bytesBefore;
    // An hour of it: the burst once, then the rate, and a reports-dropped record a window.
    const { records } = auditBudget.member;
    const perHour = records.burst + records.perSecond * 3600 + 3600_000 / reportsDroppedWindowMs;
    const perRecord = growth / Math.max(1, written);
    process.stderr.write(
      `      flood: ${flood.records} records sent in ${seconds} s, ${written} written, store +${growth} bytes ` +
        `(${Math.round(perRecord)} a record; an hour at most ${perHour} records, ` +
        `${Math.round((perHour * perRecord) / 1e6)} MB); ` +
        `members ${Math.max(...quiet)} ms at most before, ${Math.max(...duringFlood)} ms during\n`,
    );
    // What it may write: its burst, then its rate (the window's own record aside).
    const allowed = records.burst + records.perSecond * (seconds + 2);
    assert.ok(written <= allowed, `${written} records written, at most ${allowed} allowed`);
    assert.equal(written, taken, 'every record taken was written once');
    assert.ok(growth < 4 * 1024 * 1024, `the store grew by ${growth} bytes`);

    // One reports-dropped record per window, with the count of the batches refused while it was told to wait.
    const dropped = rows.filter(
      (row) => row.event === 'reports-dropped' && row.seen_by === 'controller' && row.members === `["${self}"]`,
    );
    const windows = Math.ceil(floodMs / reportsDroppedWindowMs);
    assert.ok(dropped.length >= windows - 1 && dropped.length <= windows + 1, `${dropped.length} records`);
    // The last one is written when the controller stops, whenever that is in its window.
    for (let n = 1; n < dropped.length - 1; n += 1)
      assert.ok(
        dropped[n]!.recorded_at - dropped[n - 1]!.recorded_at >= reportsDroppedWindowMs - 500,
        'one record a window',
      );
    const counted = dropped.reduce(
      (sum, row) => sum + (JSON.parse(row.details) as { over_budget: number }).over_budget,
      0,
    );
    // Refused whole: a batch sent while told to wait. One that found the bucket empty without being told
    // (it raced the batch that emptied it) is taken from 0 and told to wait, not counted.
    const refusedEarly = flood.answers.reduce((sum, answer) => sum + answer.overBudget, 0);
    const refusedWhole = flood.answers.filter((answer) => answer.taken === 0).reduce((sum, a) => sum + a.size, 0);
    assert.ok(refusedEarly <= refusedWhole, `${refusedEarly} refused early of ${refusedWhole} refused whole`);
    // A batch whose answer the flooder gave up waiting for was counted all the same, when it arrived.
    assert.ok(
      counted >= refusedEarly && counted <= refusedEarly + flood.failures * auditLimits.reportRecords,
      `${counted} counted, ${refusedEarly} refused early in answers, ${flood.failures} unanswered`,
    );
    assert.ok(counted > flood.records / 2, `${counted} of ${flood.records} counted`);

    // The honest member's reports landed throughout, and the administrator's listing stayed quick.
    assert.ok(honestAnswers.length >= 3, `${honestAnswers.length} honest reports`);
    assert.ok(honestAnswers.every((answer) => answer.written === 1 && answer.taken === 1));
    assert.equal(rows.filter((row) => row.seen_by === honest.record.nodeId).length, honestAnswers.length);
    const bound = Math.max(...quiet) + membersMarginMs;
    assert.ok(Math.max(...duringFlood) < bound, `members took ${duringFlood.join(', ')} ms (bound ${bound} ms)`);
  });
});
