/**
 * `portal controller migrate-store`: a controller that ran alone on SQLite moved to replicas on a real
 * PostgreSQL, and every member it enrolled keeps working with what it holds (the same pinned
 * certificate, the same CA, the same audit trail).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { verifyTrail } from '../../src/cli/audit-verify.ts';
import { startController, type RunningController } from '../../src/controller/controller.ts';
import { enrollAdministrator, enrollWithTicket, renewCertificate } from '../../src/node/enrollment.ts';
import { callController, openControlChannel } from '../../src/wire/control-channel.ts';
import { startPostgres, type Postgres } from '../support/postgres.ts';
import { freePort } from '../support/processes.ts';
import { runPortal } from '../support/run-portal.ts';

describe('portal controller migrate-store: from one controller on SQLite to replicas on PostgreSQL', function () {
  this.timeout(120_000);
  let postgres: Postgres;
  let dir: string;
  const running: RunningController[] = [];

  before(async () => {
    [postgres, dir] = await Promise.all([startPostgres(), mkdtemp(join(tmpdir(), 'portal-migrate-'))]);
  });
  after(async () => {
    await Promise.all(running.map((controller) => controller.close()));
    await postgres?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('copies every project, member and record, and the enrolled members go on with the replicas', async () => {
    const sealingKey = { kind: 'material', name: 'the test', material: randomBytes(32).toString('hex') } as const;
    const dataDir = join(dir, 'controller');
    const port = await freePort();
    // The controller alone: an administrator, a node, and a trail.
    const alone = await startController({ dataDir, sealingKey, port });
    const admin = await enrollAdministrator(join(dir, 'admin'), await alone.service.createAdminCode(60_000));
    const credentials = { key: admin.privateKey, certificate: admin.certificate };
    const ticket = await callController(
      admin.record,
      'ticket',
      { expiresInMs: 3_600_000, usageCount: 2, attribute: 'db-outlet', tls: false },
      credentials,
    );
    const node = await enrollWithTicket(join(dir, 'node'), String(ticket.ticket));
    await alone.close();

    postgres.createDatabase('replicas');
    const url = `postgres://${postgres.user}@127.0.0.1:${postgres.port}/replicas`;
    const passwordFile = join(dir, 'db.password');
    await writeFile(passwordFile, `${postgres.password}\n`, { mode: 0o600 });
    const args = [
      'controller',
      'migrate-store',
      '--data-dir',
      dataDir,
      '--to',
      url,
      '--store-password-file',
      passwordFile,
    ];
    const moved = await runPortal(args, { env: { PGPASSWORD: undefined } });
    assert.equal(moved.code, 0, moved.stderr);
    assert.match(
      moved.stdout,
      new RegExp(
        '^Copied 1 projects, 2 members, 1 tickets, 0 revocations and \\d+ audit records, ' +
          `and the controller's TLS identity \\(fingerprint ${alone.fingerprint}\\), from sqlite:`,
      ),
    );
    assert.match(
      moved.stdout,
      new RegExp(`^The audit trail of ${admin.record.projectId} ends at the same record`, 'm'),
    );

    // Two replicas; the first where the controller was, so that what members hold still leads there.
    const previousPassword = process.env.PGPASSWORD;
    process.env.PGPASSWORD = postgres.password;
    try {
      const secondPort = await freePort();
      const publicAddress = `127.0.0.1:${port},127.0.0.1:${secondPort}`;
      for (const [index, replicaPort] of [port, secondPort].entries())
        running.push(
          await startController({
            dataDir: join(dir, `replica-${index}`),
            store: url,
            sealingKey,
            port: replicaPort,
            publicAddress,
          }),
        );
    } finally {
      if (previousPassword === undefined) delete process.env.PGPASSWORD;
      else process.env.PGPASSWORD = previousPassword;
    }
    assert.deepEqual(
      running.map((replica) => replica.fingerprint),
      [alone.fingerprint, alone.fingerprint],
    );
    const members = await callController(admin.record, 'members', {}, credentials);
    assert.deepEqual(
      members.members.map((member) => member.id).sort(),
      [admin.record.nodeId, node.record.nodeId].sort(),
    );
    // The node renews its certificate with the CA it enrolled under; the ticket has its second use.
    const renewed = await renewCertificate(join(dir, 'node'), node);
    assert.notEqual(renewed.certificate, node.certificate);
    assert.equal(renewed.authority, node.authority);
    await enrollWithTicket(join(dir, 'second-node'), String(ticket.ticket));
    const channel = await openControlChannel(admin.record, credentials);
    const verdict = await verifyTrail(channel).finally(() => channel.close());
    assert.match(verdict, new RegExp(`^the audit trail of project ${admin.record.projectId} is whole: \\d+ records`));

    // Never into a database that holds a controller already, even from a store taken back on purpose.
    await rm(join(dataDir, 'controller.db.moved'));
    const again = await runPortal(args, { env: { PGPASSWORD: undefined } });
    assert.equal(again.code, 2);
    assert.match(
      again.stderr,
      /^portal: postgres:\/\/app@127\.0\.0\.1:\d+\/replicas holds data already \(its table projects is not empty\)/,
    );
  });
});
