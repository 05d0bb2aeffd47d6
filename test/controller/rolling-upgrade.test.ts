/**
 * A rolling upgrade of controller replicas: a replica of the previous release and one of this version
 * on one PostgreSQL database at once, each serving what the other wrote. The previous release is built
 * from the project's own history (the commit named below), with this checkout's dependencies.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { verifyTrail } from '../../src/cli/audit-verify.ts';
import { createCertificateRequest } from '../../src/pki/authority.ts';
import { generateKeyPair } from '../../src/pki/keys.ts';
import { enrollAdministrator } from '../../src/node/enrollment.ts';
import { PortalError } from '../../src/shared/errors.ts';
import { callController, openControlChannel } from '../../src/wire/control-channel.ts';
import { decodeTicket } from '../../src/wire/ticket.ts';
import { startPostgres, type Postgres } from '../support/postgres.ts';
import { replicaArguments } from '../support/controller-replicas.ts';
import { freePort, portalBundle, start, type Running } from '../support/processes.ts';
import { projectRoot } from '../support/usecases.ts';

/**
 * The last release: the commit of the last submission that landed. Moved forward with each release, so
 * that this test always runs the version before beside this one.
 */
const previousRelease = '2b9064ac780f2db9c97ad05bbf7a4f969baad5cf';

describe('controller replicas: a rolling upgrade, the previous release beside this one', function () {
  this.timeout(180_000);
  let postgres: Postgres;
  let dir: string;
  let previousBundle: string;
  const running: Running[] = [];

  before(async () => {
    [postgres, dir] = await Promise.all([startPostgres(), mkdtemp(join(tmpdir(), 'portal-upgrade-'))]);
    // The previous release's source, built with this checkout's dependencies (its lock file is the same
    // or older, and the build bundles what it imports).
    const source = join(dir, 'previous');
    execFileSync('mkdir', ['-p', source]);
    try {
      execFileSync('sh', ['-c', `git -C "$0" archive "$1" | tar -x -C "$2"`, projectRoot, previousRelease, source]);
    } catch {
      throw new Error(`the previous release ${previousRelease} is not in this clone's history: clone without --depth`);
    }
    await symlink(join(projectRoot, 'node_modules'), join(source, 'node_modules'));
    execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: source, stdio: 'ignore' });
    previousBundle = join(source, 'dist', 'portal.mjs');
  });
  after(async () => {
    for (const process of running) await process.stop();
    await postgres?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('serves enrollments, renewals and revocations across both versions, with one audit chain', async () => {
    postgres.createDatabase('upgrade');
    const url = `postgres://${postgres.user}@127.0.0.1:${postgres.port}/upgrade`;
    const passwordFile = join(dir, 'db.password');
    await writeFile(passwordFile, `${postgres.password}\n`, { mode: 0o600 });
    const ports = [await freePort(), await freePort()];
    const launch = async (bundle: string, index: number, sealingKey?: string) => {
      const process = start(
        globalThis.process.execPath,
        [
          bundle,
          ...replicaArguments({
            dataDir: join(dir, `replica-${index}`),
            listen: `127.0.0.1:${ports[index]}`,
            addresses: ports.map((port) => `127.0.0.1:${port}`),
            store: url,
            passwordFile,
            ...(sealingKey ? { sealingKey } : {}),
          }),
        ],
        { env: { PORTAL_HOME: join(dir, `home-${index}`), PGPASSWORD: undefined } },
      );
      running.push(process);
      const ready = JSON.parse(await process.waitFor(/^\{"pid"/, 60_000)) as {
        listening: string;
        fingerprint: string;
        adminCode: string;
      };
      return { process, ...ready, pin: { controller: ready.listening, fingerprint: ready.fingerprint } };
    };
    // The previous release made the database's schema and the project; this version joins it.
    const previous = await launch(previousBundle, 0);
    const sealingKey = join(dir, 'home-0', 'keys', 'controller-seal.key');
    const current = await launch(portalBundle, 1, sealingKey);
    assert.equal(current.fingerprint, previous.fingerprint, 'one TLS identity for both');

    const admin = await enrollAdministrator(join(dir, 'admin'), previous.adminCode);
    const credentials = { key: admin.privateKey, certificate: admin.certificate };
    const ticketOn = async (pin: typeof current.pin) =>
      decodeTicket(
        String(
          (
            await callController(
              pin,
              'ticket',
              { expiresInMs: 3_600_000, usageCount: 1, attribute: 'db-inlet', tls: false },
              credentials,
            )
          ).ticket,
        ),
      );
    const enrollOn = async (pin: typeof current.pin, ticket: ReturnType<typeof decodeTicket>) => {
      const keys = generateKeyPair();
      const request = createCertificateRequest(keys.privateKey, keys.publicKey, 'portal-node');
      const enrolled = await callController(pin, 'enroll', { ticket: ticket.ticketId, secret: ticket.secret, request });
      return { ...enrolled, keys, credentials: { key: keys.privateKey, certificate: enrolled.certificate } };
    };
    // A ticket of one version enrolls on the other, both ways.
    const first = await enrollOn(previous.pin, await ticketOn(current.pin));
    const second = await enrollOn(current.pin, await ticketOn(previous.pin));
    assert.notEqual(first.identity.nodeId, second.identity.nodeId);
    // Each renews on the other version.
    for (const [member, pin] of [
      [first, current.pin],
      [second, previous.pin],
    ] as const) {
      const { privateKey, publicKey } = member.keys;
      const request = createCertificateRequest(privateKey, publicKey, 'portal-node');
      const renewed = await callController(pin, 'renew', { request }, member.credentials);
      assert.match(String(renewed.certificate), /BEGIN CERTIFICATE/);
    }
    // Revoked on this version: the previous one refuses the member too.
    await callController(current.pin, 'revoke', { member: first.identity.nodeId, reason: 'upgrade' }, credentials);
    await assert.rejects(callController(previous.pin, 'members', {}, first.credentials), (error: unknown) => {
      assert.ok(error instanceof PortalError, String(error));
      return true;
    });
    // The previous release's replica restarts mid-upgrade (a crash): it starts on the schema this version
    // migrated, and serves again.
    assert.equal(await previous.process.stop(), 0);
    const restarted = await launch(previousBundle, 0, sealingKey);
    await enrollOn(restarted.pin, await ticketOn(current.pin));
    // The trail both wrote is one chain, read through either.
    for (const pin of [restarted.pin, current.pin]) {
      const channel = await openControlChannel(pin, credentials);
      const verdict = await verifyTrail(channel).finally(() => channel.close());
      assert.match(verdict, /^the audit trail of project p[0-9a-f]+ is whole: \d+ records/);
    }
    // The last of the previous release stops; this version carries on alone.
    assert.equal(await restarted.process.stop(), 0);
    await enrollOn(current.pin, await ticketOn(current.pin));
  });
});
