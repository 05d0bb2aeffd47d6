/**
 * Controller replicas through a PostgreSQL failover: a primary with a synchronous streaming standby,
 * the primary crashed and the standby promoted. The replicas, given both hosts in their URL, follow
 * the new primary; no write they acknowledged before the crash is lost.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { embeddedRelay } from '../../src/cli/controller.ts';
import { startController, type RunningController } from '../../src/controller/controller.ts';
import { openStore } from '../../src/controller/store/open.ts';
import { enrollAdministrator } from '../../src/node/enrollment.ts';
import { createCertificateRequest } from '../../src/pki/authority.ts';
import { generateKeyPair } from '../../src/pki/keys.ts';
import { callController, openControlChannel } from '../../src/wire/control-channel.ts';
import { decodeTicket } from '../../src/wire/ticket.ts';
import { startPostgres, startStandby, type Postgres, type Standby } from '../support/postgres.ts';
import { freePort } from '../support/processes.ts';

describe('controller replicas through a PostgreSQL failover', function () {
  this.timeout(180_000);
  let primary: Postgres;
  let standby: Standby;
  let dir: string;
  const replicas: RunningController[] = [];
  const previousPassword = process.env.PGPASSWORD;

  before(async () => {
    [primary, dir] = await Promise.all([startPostgres(), mkdtemp(join(tmpdir(), 'portal-failover-'))]);
    primary.createDatabase('failover');
    standby = await startStandby(primary);
    process.env.PGPASSWORD = primary.password;
  });
  after(async () => {
    await Promise.all(replicas.map((replica) => replica.close()));
    if (previousPassword === undefined) delete process.env.PGPASSWORD;
    else process.env.PGPASSWORD = previousPassword;
    await standby?.stop();
    await primary?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('follows the promoted standby within 5 s and loses no write acknowledged before the crash', async () => {
    const url = `postgres://${primary.user}@127.0.0.1:${primary.port},127.0.0.1:${standby.port}/failover`;
    const sealingKey = { kind: 'material', name: 'the test', material: randomBytes(32).toString('hex') } as const;
    const ports = [await freePort(), await freePort()];
    const publicAddress = ports.map((port) => `127.0.0.1:${port}`).join(',');
    for (const [index, port] of ports.entries())
      replicas.push(
        await startController({
          dataDir: join(dir, `replica-${index}`),
          store: url,
          sealingKey,
          port,
          publicAddress,
          relay: embeddedRelay(),
        }),
      );
    const admin = await enrollAdministrator(join(dir, 'admin'), await replicas[0]!.service.createAdminCode(60_000));
    const credentials = { key: admin.privateKey, certificate: admin.certificate };

    // A write a few times a second (a ticket), through either replica, acknowledged or not.
    const acknowledged: { id: string; at: number }[] = [];
    const failed: number[] = [];
    let crashedAt = Number.POSITIVE_INFINITY;
    let writing = true;
    const writer = (async () => {
      while (writing) {
        try {
          const answer = await callController(
            admin.record,
            'ticket',
            { expiresInMs: 3_600_000, usageCount: 1, attribute: 'db-inlet', tls: false },
            credentials,
          );
          acknowledged.push({ id: decodeTicket(String(answer.ticket)).ticketId, at: performance.now() });
        } catch {
          failed.push(performance.now());
        }
        const afterCrash = acknowledged.filter(({ at }) => at > crashedAt).length;
        // Five writes after the crash, or 20 s without them (the assertions below then say so).
        if (afterCrash >= 5 || performance.now() - crashedAt > 20_000) writing = false;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    while (acknowledged.length < 10) await new Promise((resolve) => setTimeout(resolve, 20));

    await primary.crash();
    crashedAt = performance.now();
    standby.promote();
    const promotedAt = performance.now();
    await writer;

    const before = acknowledged.filter(({ at }) => at < crashedAt);
    const firstAfter = acknowledged.find(({ at }) => at > crashedAt);
    assert.ok(firstAfter, `no write succeeded in 20 s after the crash (${failed.length} failed)`);
    const gapMs = Math.round(firstAfter.at - Math.max(...before.map(({ at }) => at)));
    const followMs = Math.round(firstAfter.at - promotedAt);
    console.log(
      `      write gap ${gapMs} ms (crash to promotion ${Math.round(promotedAt - crashedAt)} ms, ` +
        `promotion to the first write ${followMs} ms); ${failed.length} writes failed meanwhile`,
    );
    assert.ok(followMs <= 5000, `the replicas wrote to the new primary ${followMs} ms after its promotion`);

    // Every write acknowledged before the crash is on the new primary.
    const store = await openStore(`postgres://${primary.user}@127.0.0.1:${standby.port}/failover`);
    try {
      const kept = new Set((await store.selectFrom('tickets').select('id').execute()).map(({ id }) => id));
      const lost = acknowledged.filter(({ id }) => !kept.has(id));
      assert.deepEqual(lost, [], `of ${acknowledged.length} acknowledged writes, none lost`);
    } finally {
      await store.destroy();
    }

    // Revocation notices follow too: one made on a replica reaches a member of the other within 1 s.
    const answer = await callController(
      admin.record,
      'ticket',
      { expiresInMs: 3_600_000, usageCount: 1, attribute: '', admin: true, tls: false },
      credentials,
    );
    const { ticketId, secret } = decodeTicket(String(answer.ticket));
    const keys = generateKeyPair();
    const request = createCertificateRequest(keys.privateKey, keys.publicKey, 'portal-admin');
    const pinOf = (replica: RunningController) => ({ controller: replica.listening, fingerprint: replica.fingerprint });
    const enrolled = await callController(pinOf(replicas[0]!), 'enroll', { ticket: ticketId, secret, request });
    const held = await openControlChannel(pinOf(replicas[0]!), {
      key: keys.privateKey,
      certificate: enrolled.certificate,
    });
    const closedAt = new Promise<number>((resolve) => held.once('close', () => resolve(performance.now())));
    await held.request('members', {});
    await callController(
      pinOf(replicas[1]!),
      'revoke',
      { member: enrolled.identity.nodeId, reason: 'after the failover' },
      credentials,
    );
    const revokedAt = performance.now();
    const closed = await Promise.race([closedAt, delay(5000, undefined, { ref: false })]);
    assert.ok(closed !== undefined && closed - revokedAt < 1000, 'the revoked member was cut within 1 s');
  });
});
