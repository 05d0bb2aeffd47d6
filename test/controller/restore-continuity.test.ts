import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { adminRequest } from '../../src/cli/administrator.ts';
import { enrollWithTicket, renewCertificate } from '../../src/node/enrollment.ts';
import { loadIdentity, type StoredIdentity } from '../../src/node/identity-store.ts';
import { callController } from '../../src/wire/control-channel.ts';
import type { AuditRecordWire } from '../../src/wire/protocol.ts';
import { auditExchangeVersion } from '../../src/wire/protocol/audit.ts';
import { decodeTicket } from '../../src/wire/ticket.ts';
import { startEchoPortal, type EchoPortal } from '../support/echo-portal.ts';
import { rejectsWith } from '../support/portal-errors.ts';
import { nodeStatus, portal } from '../support/processes.ts';
import { startProject, type ProjectProcesses } from '../support/project-processes.ts';

const heartbeat = { PORTAL_HEARTBEAT: '500ms' };

/** Polls `check` every 100 ms until it holds; fails after `limitMs`. */
async function until(check: () => Promise<boolean>, what: string, limitMs = 20_000): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > limitMs) throw new Error(`${what}: not within ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The head (seq, hash) of the trail in the store at `path`, read directly. */
function storeHead(path: string): { seq: number; hash: string } {
  const database = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const row = database.prepare('SELECT seq, hash FROM audit_records ORDER BY seq DESC LIMIT 1').get() as {
      seq: number;
      hash: string;
    };
    return { seq: Number(row.seq), hash: row.hash };
  } finally {
    database.close();
  }
}

describe('portal controller restore keeps revocations, cancellations, used tickets and the trail', function () {
  this.timeout(240_000);
  let project: ProjectProcesses;
  let echo: EchoPortal;
  let backup: string;
  let original: string;
  let revokedId: string;
  let inletIdentity: StoredIdentity;
  const tickets: Record<'cancelled' | 'used' | 'kept', string> = { cancelled: '', used: '', kept: '' };
  const controllerHome = () => join(project.dir, 'controller-home');
  const adminHome = () => join(project.dir, 'admin');
  let restores = 0;

  before(async () => {
    project = await startProject();
    echo = await startEchoPortal(project, heartbeat);
    revokedId = (await nodeStatus(join(project.dir, 'inlet'))).identity.node_id;
    inletIdentity = (await loadIdentity(join(project.dir, 'inlet', 'node')))!;
    assert.equal(inletIdentity.record.nodeId, revokedId);
    tickets.cancelled = await project.ticket(['--attribute', 'cancelled-later']);
    tickets.used = await project.ticket(['--attribute', 'used-later', '--usage-count', '1']);
    tickets.kept = await project.ticket(['--attribute', 'never-used']);
    backup = join(project.dir, 'controller.tar');
    const run = await portal(controllerHome(), [
      'controller',
      'backup',
      '--data-dir',
      project.controller.dataDir,
      '--output',
      backup,
    ]);
    assert.equal(run.code, 0, run.stderr);
    // After the backup: a ticket cancelled, a one-use ticket used, the inlet revoked (its laptop stolen).
    await adminRequest(adminHome(), 'ticket-cancel', { ticket: decodeTicket(tickets.cancelled).ticketId });
    await enrollWithTicket(join(project.dir, 'used-once'), tickets.used);
    await adminRequest(adminHome(), 'revoke', { member: revokedId, reason: 'laptop stolen' });
    const revokedFile = join(project.dir, 'outlet', 'node', 'revoked.json');
    await until(async () => (await readFile(revokedFile, 'utf8').catch(() => '')).includes(revokedId), 'outlet list');
    original = project.controller.dataDir;
    await project.controller.process.stop();
  });

  after(async () => {
    await project?.close();
    await echo?.echo.close();
  });

  async function restore(flags: string[]): Promise<{ dataDir: string; stdout: string }> {
    const dataDir = join(project.dir, `restored-${++restores}`, 'controller');
    await mkdir(join(dataDir, '..'));
    const run = await portal(controllerHome(), [
      'controller',
      'restore',
      '--input',
      backup,
      '--data-dir',
      dataDir,
      ...flags,
    ]);
    assert.equal(run.code, 0, run.stderr);
    return { dataDir, stdout: run.stdout };
  }

  async function trail(): Promise<AuditRecordWire[]> {
    const records: AuditRecordWire[] = [];
    for (;;) {
      const page = await adminRequest(adminHome(), 'audit', {
        exchange: auditExchangeVersion,
        afterSeq: records.at(-1)?.seq ?? 0,
        limit: 200,
        since: 0,
      });
      if (page.records.length === 0) return records;
      records.push(...page.records);
    }
  }

  /** Runs `body` with a controller started from `dataDir`, stopped after it whatever happens. */
  async function serving(dataDir: string, body: () => Promise<void>): Promise<void> {
    await project.startController(dataDir);
    try {
      await body();
    } finally {
      await project.controller.process.stop();
    }
  }

  const enroll = (name: string, ticket: string) => enrollWithTicket(join(project.dir, `after-${name}`), ticket);
  const revocationOf = async (nodeId: string) =>
    (await adminRequest(adminHome(), 'members', {})).members.find((member) => member.id === nodeId)?.revoked ?? null;
  const as = (identity: StoredIdentity) => ({ key: identity.privateKey, certificate: identity.certificate });

  it(
    'retires every earlier ticket, records the restore, and takes the revocation back from a node that ' + 'holds it',
    async () => {
      const { dataDir, stdout } = await restore([]);
      const backupHead = storeHead(join(dataDir, 'controller.db'));
      assert.match(stdout, /3 tickets issued before the backup were retired; 0 revocations taken back/);
      await serving(dataDir, async () => {
        // The outlet reconnects, finds the revocation missing from the controller's list and returns it.
        await project.controller.process.waitFor(
          new RegExp(`controller: ${revokedId} of project \\S+ revoked again: \\S+ returned a revocation`),
        );
        const revoked = await revocationOf(revokedId);
        assert.match(revoked?.reason ?? '', /^revoked before the controller was restored; returned by n[0-9a-f]{16}$/);
        await rejectsWith(renewCertificate(join(project.dir, 'inlet', 'node'), inletIdentity), 'NOT_AUTHENTICATED');
        await rejectsWith(callController(inletIdentity.record, 'relays', {}, as(inletIdentity)), 'NOT_AUTHENTICATED');

        await rejectsWith(enroll('cancelled-1', tickets.cancelled), 'TICKET_CANCELLED');
        await rejectsWith(enroll('used-1', tickets.used), 'TICKET_CANCELLED');
        await rejectsWith(enroll('kept-1', tickets.kept), 'TICKET_CANCELLED');

        const records = await trail();
        const restored = records.find((record) => record.event === 'restored');
        assert.ok(restored, 'a restored record');
        // Its seq follows the backup's head (the trail it replaced is unknown), its prev is that head.
        assert.deepEqual(JSON.parse(restored.details), {
          backupHead: { seq: backupHead.seq - 4, hash: restored.prev },
          previousHead: null,
        });
        const head = records.find((record) => record.seq === restored.seq - 1);
        assert.equal(head?.hash, restored.prev);
        const retired = records.filter((record) => record.event === 'ticket-cancelled' && record.seq > restored.seq);
        assert.equal(retired.length, 3);
        const returned = records.find((record) => record.event === 'revoked' && record.seq > restored.seq);
        assert.equal((JSON.parse(returned?.details ?? '{}') as { returned_by?: string }).returned_by, revoked?.by);
      });
    },
  );

  it('keeps the tickets when asked: a ticket cancelled after the backup enrolls again (--keep-tickets)', async () => {
    const { dataDir, stdout } = await restore(['--keep-tickets']);
    assert.match(stdout, /its tickets were kept as --keep-tickets asked/);
    await serving(dataDir, async () => {
      const enrolled = await enroll('cancelled-2', tickets.cancelled);
      assert.match(enrolled.record.nodeId, /^n[0-9a-f]{16}$/);
      await enroll('used-2', tickets.used);
    });
  });

  it(
    'with --replaces, takes the revocation, cancellation and use from the replaced data directory at once, ' +
      'and numbers the restore past both heads',
    async () => {
      const previousHead = storeHead(join(original, 'controller.db'));
      const { dataDir, stdout } = await restore(['--replaces', original, '--keep-tickets']);
      assert.match(stdout, /1 revocation taken back from the replaced data directory/);
      assert.match(stdout, new RegExp(`replaced head ${previousHead.seq}:${previousHead.hash.slice(0, 12)}…`));
      assert.equal(existsSync(join(dataDir, 'controller.db')), true);
      await serving(dataDir, async () => {
        // Revoked from the first request on, before any node returned anything.
        assert.equal((await revocationOf(revokedId))?.reason, 'laptop stolen');
        await rejectsWith(renewCertificate(join(project.dir, 'inlet', 'node'), inletIdentity), 'NOT_AUTHENTICATED');
        await rejectsWith(enroll('cancelled-3', tickets.cancelled), 'TICKET_CANCELLED');
        await rejectsWith(enroll('used-3', tickets.used), 'TICKET_CONSUMED');
        await enroll('kept-3', tickets.kept);
        const records = await trail();
        const restored = records.find((record) => record.event === 'restored');
        assert.ok(restored);
        assert.equal(restored.seq, previousHead.seq + 1, 'no seq of the replaced trail is used again');
        assert.deepEqual((JSON.parse(restored.details) as { previousHead: unknown }).previousHead, previousHead);
        const takenBack = records.find((record) => record.event === 'revoked' && record.seq > restored.seq);
        assert.equal(
          (JSON.parse(takenBack?.details ?? '{}') as { taken_back_from?: string }).taken_back_from,
          'the replaced data directory',
        );
        assert.equal(
          project.controller.process.lines.some((line) => line.includes('revoked again')),
          false,
          'nothing left for a node to return',
        );
      });
    },
  );

  it('takes the replaced head from --previous-head, and refuses one that is not SEQ:HASH in one line', async () => {
    const previousHead = storeHead(join(original, 'controller.db'));
    const { dataDir } = await restore(['--previous-head', `${previousHead.seq}:${previousHead.hash}`]);
    const database = new Database(join(dataDir, 'controller.db'), { readonly: true, fileMustExist: true });
    try {
      const restored = database
        .prepare("SELECT seq, prev_hash, details FROM audit_records WHERE event = 'restored'")
        .get() as { seq: number; prev_hash: string; details: string };
      assert.equal(Number(restored.seq), previousHead.seq + 1);
      const details = JSON.parse(restored.details) as { backupHead: { hash: string }; previousHead: unknown };
      assert.deepEqual(details.previousHead, previousHead);
      assert.equal(details.backupHead.hash, restored.prev_hash);
    } finally {
      database.close();
    }
    const target = join(project.dir, 'restored-bad-head', 'controller');
    const bad = await portal(controllerHome(), [
      'controller',
      'restore',
      '--input',
      backup,
      '--data-dir',
      target,
      '--previous-head',
      '12:abc',
    ]);
    assert.deepEqual([bad.code, bad.stdout], [2, '']);
    assert.match(bad.stderr, /^portal: --previous-head "12:abc" is not \[PROJECT=\]SEQ:HASH; give the seq and hash/);
    assert.equal(bad.stderr.split('\n').length, 2, 'one line');
    assert.equal(existsSync(target), false);
  });
});
