/**
 * `portal project audit` against a real controller whose store is reached behind its back: a long trail
 * read and verified over one connection, and each way of rewriting the trail that holding the store
 * allows (a `\u` escape, an edit with its hashes made again, a cut tail), plus a restore's one gap.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KeptSqlite } from '../../src/controller/store/sqlite.ts';
import { canonicalJson, recordHash } from '../../src/shared/audit-chain.ts';
import type { AuditSigner } from '../../src/shared/audit-signature.ts';
import { controllerSigner, fillTrail, startCountingProxy, type CountingProxy } from '../support/audit-store.ts';
import { portal } from '../support/processes.ts';
import { startProject, type ProjectProcesses } from '../support/project-processes.ts';

/** Records the suite verifies: a realistic trail (a connection a second for 14 hours); set higher to measure. */
const trailRecords = Number(process.env.PORTAL_AUDIT_VERIFY_RECORDS ?? 50_000);
/**
 * The trail the rewriting tests work on, each verifying it whole several times: enough for the windows
 * they take (the last 1,000 records, appends of 200). The long trail is appended after them, last.
 */
const workingRecords = 3_000;

interface Row {
  seq: number;
  project_id: string;
  occurred_at: number;
  recorded_at: number;
  event: string;
  seen_by: string;
  report_id: string;
  members: string;
  details: string;
  prev_hash: string;
  hash: string;
  encoding: number;
  signature: string | null;
}

describe('end to end: verifying a long audit trail, and finding what was rewritten behind its back', function () {
  this.timeout(Math.max(300_000, trailRecords * 3));
  let project: ProjectProcesses;
  let proxy: CountingProxy;
  let projectId: string;
  let signer: AuditSigner;
  let checkpointFile: string;
  const admin = () => join(project.dir, 'admin');
  const database = () => join(project.controller.dataDir, 'controller.db');

  /** Runs `portal project audit …`; with how many connections it opened to the controller. */
  const audit = async (...flags: string[]) => {
    const before = proxy.connections;
    const result = await portal(admin(), ['project', 'audit', ...flags]);
    return { ...result, connections: proxy.connections - before };
  };
  /** Runs `change` on the controller's store in one transaction, as an intruder with the file would. */
  const withStore = async <T>(change: (store: KeptSqlite) => T): Promise<T> => {
    const store = await KeptSqlite.open(database());
    try {
      store.exec('BEGIN IMMEDIATE');
      const result = change(store);
      store.exec('COMMIT');
      return result;
    } finally {
      store.close();
    }
  };
  const rows = (store: KeptSqlite, where = '1 = 1', ...parameters: unknown[]) =>
    store.all<Row>(
      `SELECT * FROM audit_records WHERE project_id = ? AND ${where} ORDER BY seq`,
      projectId,
      ...parameters,
    );
  const head = (store: KeptSqlite) =>
    store.all<Row>('SELECT * FROM audit_records WHERE project_id = ? ORDER BY seq DESC LIMIT 1', projectId)[0]!;

  before(async () => {
    project = await startProject();
    const shown = await portal(admin(), ['project', 'show', '--jq', '.id']);
    assert.equal(shown.code, 0, shown.stderr);
    projectId = shown.stdout.trim();
    signer = await controllerSigner(join(project.dir, 'controller-home'));
    // The administrator reaches the controller through a forwarder that counts its connections.
    proxy = await startCountingProxy(project.controller.listening);
    const identity = join(admin(), 'admin', 'identity.json');
    const record = JSON.parse(await readFile(identity, 'utf8')) as { controller: string };
    await writeFile(identity, JSON.stringify({ ...record, controller: proxy.address }));
    checkpointFile = join(project.dir, 'checkpoint.json');
    await fillTrail(project.controller.dataDir, signer, projectId, workingRecords);
  });

  after(async () => {
    await proxy?.close();
    await project?.close();
  });

  it('keeps a signed head as a checkpoint, and refuses an edited checkpoint with one line', async () => {
    const made = await audit('--checkpoint');
    assert.equal(made.code, 0, made.stderr);
    assert.equal(made.connections, 1);
    const checkpoint = JSON.parse(made.stdout) as { seq: number; hash: string; key: string };
    const last = await withStore(head);
    assert.equal(checkpoint.seq, last.seq);
    assert.equal(checkpoint.hash, last.hash);
    assert.equal(checkpoint.key, signer.publicKey);
    await writeFile(checkpointFile, made.stdout);
    const held = await audit('--verify', '--checkpoint', checkpointFile);
    assert.equal(held.code, 0, held.stderr);
    assert.match(held.stdout, new RegExp(`it holds the checkpoint's record ${last.seq}$`, 'm'));
    const forged = join(project.dir, 'forged.json');
    await writeFile(forged, JSON.stringify({ ...checkpoint, seq: checkpoint.seq + 1 }));
    const refused = await audit('--verify', '--checkpoint', forged);
    assert.equal(refused.code, 2);
    assert.match(
      refused.stderr,
      /the checkpoint .*forged\.json is not valid: its signature does not hold for its record/,
    );
    assert.equal(refused.stderr.trim().split('\n').length, 1, refused.stderr);
  });

  it('finds a member behind a \\u escape, and fails the record whose text the controller did not write', async () => {
    const created = (await withStore((store) => rows(store, "event = 'project-created'")))[0]!;
    const [adminId] = JSON.parse(created.members) as [string];
    const escaped = created.members.replace(
      `"${adminId[0]}`,
      `"\\u${adminId.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
    assert.notEqual(escaped, created.members);
    assert.deepEqual(JSON.parse(escaped), [adminId]);
    await withStore((store) => store.run('UPDATE audit_records SET members = ? WHERE seq = 1', escaped));
    try {
      const found = await audit('--json', '--member', adminId, '--event', 'project-created');
      assert.equal(found.code, 0, found.stderr);
      assert.deepEqual(
        found.stdout
          .trim()
          .split('\n')
          .map((line) => (JSON.parse(line) as { seq: number }).seq),
        [created.seq],
      );
      const verified = await audit('--verify');
      assert.equal(verified.code, 1);
      assert.match(verified.stderr, /the audit trail is broken: record 1 was changed after it was written/);
    } finally {
      await withStore((store) => store.run('UPDATE audit_records SET members = ? WHERE seq = 1', created.members));
    }
    assert.equal((await audit('--verify')).code, 0);
  });

  it('names the records rewritten with their hashes made again by someone without the key', async () => {
    const saved = await withStore((store) => rows(store, 'seq >= ?', head(store).seq - 1000));
    const edited = saved[100]!;
    const signedBefore = saved.filter((row) => row.seq < edited.seq && row.signature !== null).at(-1)!;
    const signedFrom = saved.find((row) => row.seq >= edited.seq && row.signature !== null)!;
    await withStore((store) => {
      let prev = saved.find((row) => row.seq === edited.seq - 1)!.hash;
      for (const row of saved.filter((candidate) => candidate.seq >= edited.seq)) {
        const details =
          row.seq === edited.seq ? row.details.replace('"bytes_to_client":20480', '"bytes_to_client":0') : row.details;
        const hash = recordHash({
          project: row.project_id,
          seq: row.seq,
          time: row.occurred_at,
          recorded: row.recorded_at,
          event: row.event,
          seenBy: row.seen_by,
          reportId: row.report_id,
          members: row.members,
          details,
          prev,
          encoding: row.encoding,
        });
        store.run(
          'UPDATE audit_records SET details = ?, prev_hash = ?, hash = ? WHERE project_id = ? AND seq = ?',
          details,
          prev,
          hash,
          projectId,
          row.seq,
        );
        prev = hash;
      }
    });
    try {
      const verified = await audit('--verify');
      assert.equal(verified.code, 1);
      assert.match(
        verified.stderr,
        new RegExp(
          `record ${signedFrom.seq} was rewritten, or one after record ${signedBefore.seq}: ` +
            "the controller's trail key did not sign it",
        ),
      );
      assert.equal(verified.stderr.trim().split('\n').length, 1, verified.stderr);
    } finally {
      await withStore((store) => {
        for (const row of saved)
          store.run(
            'UPDATE audit_records SET details = ?, prev_hash = ?, hash = ? WHERE project_id = ? AND seq = ?',
            row.details,
            row.prev_hash,
            row.hash,
            projectId,
            row.seq,
          );
      });
    }
    assert.equal((await audit('--verify')).code, 0);
  });

  it('names a cut tail: by its unsigned end, or against a kept checkpoint', async () => {
    const kept = JSON.parse(await readFile(checkpointFile, 'utf8')) as { seq: number };
    const tail = await withStore((store) => rows(store, 'seq > ?', kept.seq - 1000));
    // The end of an append before the checkpoint's, and a record in the middle of one.
    const boundary = tail.filter((row) => row.signature !== null && row.seq < kept.seq - 400).at(-1)!;
    const middle = boundary.seq + 100;
    await withStore((store) =>
      store.run('DELETE FROM audit_records WHERE project_id = ? AND seq > ?', projectId, middle),
    );
    const unsigned = await audit('--verify');
    assert.equal(unsigned.code, 1);
    assert.match(
      unsigned.stderr,
      new RegExp(`its tail was cut after record ${middle}: the last record of every append is signed`),
    );
    await withStore((store) =>
      store.run('DELETE FROM audit_records WHERE project_id = ? AND seq > ?', projectId, boundary.seq),
    );
    // Cut where an append ended, the trail alone cannot tell: the checkpoint does.
    assert.equal((await audit('--verify')).code, 0);
    const checked = await audit('--verify', '--checkpoint', checkpointFile);
    assert.equal(checked.code, 1);
    assert.match(
      checked.stderr,
      new RegExp(`its tail was cut: it ends at record ${boundary.seq}, and the checkpoint holds record ${kept.seq}`),
    );
  });

  it("accepts a restore's one gap, names it, and says the checkpoint's record was lost by it", async () => {
    const kept = JSON.parse(await readFile(checkpointFile, 'utf8')) as { seq: number; hash: string };
    const backupHead = await withStore(head);
    const seq = Math.max(backupHead.seq, kept.seq) + 1;
    const record = {
      project: projectId,
      seq,
      time: Date.now(),
      recorded: Date.now(),
      event: 'restored',
      seenBy: 'controller',
      reportId: randomBytes(12).toString('base64url'),
      members: '[]',
      details: canonicalJson({
        backupHead: { seq: backupHead.seq, hash: backupHead.hash },
        previousHead: { seq: kept.seq, hash: kept.hash },
      }),
      prev: backupHead.hash,
      encoding: 2,
    };
    const hash = recordHash(record);
    const insert = (signature: string) =>
      withStore((store) =>
        store.run(
          'INSERT INTO audit_records (project_id, seq, occurred_at, recorded_at, event, seen_by, report_id, members, ' +
            'details, prev_hash, hash, encoding, signature) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
          projectId,
          seq,
          record.time,
          record.recorded,
          record.event,
          record.seenBy,
          record.reportId,
          record.members,
          record.details,
          record.prev,
          hash,
          2,
          signature,
        ),
      );
    // Forged by someone without the key (another key's signature): the gap is a gap.
    const { auditSignerOf } = await import('../../src/shared/audit-signature.ts');
    await insert(auditSignerOf(randomBytes(32)).sign(hash));
    const forged = await audit('--verify');
    assert.equal(forged.code, 1);
    assert.match(
      forged.stderr,
      new RegExp(`record ${backupHead.seq + 1} is missing \\(the next record found is ${seq}\\)`),
    );
    await withStore((store) => store.run('DELETE FROM audit_records WHERE project_id = ? AND seq = ?', projectId, seq));
    await insert(signer.sign(hash));
    // The controller writes on after it: a ticket issued lands past the restore.
    const ticket = await portal(admin(), ['project', 'ticket', '--attribute', 'after-restore']);
    assert.equal(ticket.code, 0, ticket.stderr);
    const verified = await audit('--verify');
    assert.equal(verified.code, 0, verified.stderr);
    assert.match(verified.stdout, new RegExp(`restored from backup head ${backupHead.seq} at seq ${seq}`));
    const checked = await audit('--verify', '--checkpoint', checkpointFile);
    assert.equal(checked.code, 0, checked.stderr);
    assert.match(
      checked.stdout,
      new RegExp(
        `the checkpoint's record ${kept.seq} was lost by the restore from backup head ${backupHead.seq} ` +
          `at seq ${seq} \\(not tampering\\)`,
      ),
    );
  });

  it(`verifies a trail of ${trailRecords} records more, and lists them, each over one connection`, async () => {
    const filling = Date.now();
    await fillTrail(project.controller.dataDir, signer, projectId, trailRecords);
    const filledMs = Date.now() - filling;
    const verifying = Date.now();
    const verified = await audit('--verify');
    const verifyMs = Date.now() - verifying;
    assert.equal(verified.code, 0, verified.stderr);
    assert.equal(verified.connections, 1);
    const [, count] = /is whole: (\d+) records, the last one's hash [0-9a-f]{64}; signed from record 1 on/.exec(
      verified.stdout,
    ) ?? ['', '0'];
    assert.ok(Number(count) >= trailRecords, verified.stdout);
    // Progress goes to a terminal only: none here, where stderr is a pipe.
    assert.equal(verified.stderr, '');
    const listing = Date.now();
    const listed = await audit('--json', '--event', 'session');
    const listMs = Date.now() - listing;
    assert.equal(listed.code, 0, listed.stderr);
    assert.equal(listed.connections, 1);
    const sessions = await withStore(
      (store) =>
        store.all<{ n: number }>(
          "SELECT COUNT(*) AS n FROM audit_records WHERE project_id = ? AND event = 'session'",
          projectId,
        )[0]!.n,
    );
    assert.ok(sessions >= trailRecords);
    assert.equal(listed.stdout.trim().split('\n').length, sessions);
    console.log(
      `      ${trailRecords} records: written in ${filledMs} ms, verified in ${verifyMs} ms, ` +
        `listed in ${listMs} ms, one connection each`,
    );
  });
});
