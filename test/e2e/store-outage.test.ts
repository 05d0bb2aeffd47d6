/**
 * The controller's PostgreSQL down for a while: portals go on carrying traffic and opening connections,
 * enrolling fails with one line that says why, and once the database is back the same controller
 * enrolls again, with no restart of anything.
 */
import assert from 'node:assert/strict';
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCertificateRequest } from '../../src/pki/authority.ts';
import { generateKeyPair } from '../../src/pki/keys.ts';
import { PortalError } from '../../src/shared/errors.ts';
import { openControlChannel } from '../../src/wire/control-channel.ts';
import { decodeTicket } from '../../src/wire/ticket.ts';
import { startEchoPortal, type EchoPortal } from '../support/echo-portal.ts';
import { startPostgres, type Postgres } from '../support/postgres.ts';
import { startProject, type ProjectProcesses } from '../support/project-processes.ts';
import { nodeStatus } from '../support/processes.ts';
import { roundTrip } from '../support/tcp.ts';

/** Asks `read` every 200 ms until it gives something, for at most 30 s. */
async function statusesUntil<T>(read: () => Promise<T | undefined>): Promise<T> {
  for (const deadline = Date.now() + 30_000; Date.now() < deadline;) {
    const value = await read();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('nothing within 30 s');
}

/** How long the database stays down. */
const outageMs = 30_000;
/**
 * The nodes' certificate lifetime: they renew at half of it, inside the outage, and the certificate's
 * end comes soon after the database is back, so that the retries must come in time.
 */
const lifetime = '50s';

describe('end to end: the PostgreSQL store down while portals run', function () {
  this.timeout(120_000);
  let postgres: Postgres;
  let project: ProjectProcesses | undefined;
  let portal: EchoPortal | undefined;

  before(async () => {
    postgres = await startPostgres();
  });
  after(async () => {
    await project?.close();
    await portal?.echo.close();
    await postgres?.stop();
    await rm(join(tmpdir(), `portal-outage-${process.pid}.password`), { force: true });
  });

  it('carries traffic for 30 s, refuses to enroll and renew in one line each, both work again in time', async () => {
    postgres.createDatabase('outage');
    const passwordFile = join(
      await import('node:os').then(({ tmpdir }) => tmpdir()),
      `portal-outage-${process.pid}.password`,
    );
    await writeFile(passwordFile, `${postgres.password}\n`, { mode: 0o600 });
    const url = `postgres://${postgres.user}@127.0.0.1:${postgres.port}/outage`;
    project = await startProject({
      controllerFlags: ['--store', url, '--store-password-file', passwordFile, '--credential-lifetime', lifetime],
    });
    portal = await startEchoPortal(project);
    const { port } = portal;
    const pin = { controller: project.controller.listening, fingerprint: project.controller.fingerprint };
    const tickets = [
      decodeTicket(await project.ticket(['--attribute', 'late-inlet'])),
      decodeTicket(await project.ticket(['--attribute', 'late-inlet'])),
    ];
    const enroll = async (ticket: (typeof tickets)[number]) => {
      const keys = generateKeyPair();
      const request = createCertificateRequest(keys.privateKey, keys.publicKey, 'portal-node');
      // Connecting may take long on a loaded machine; what the test judges is the answer.
      const channel = await openControlChannel(pin, undefined, 20_000);
      try {
        return await channel.request('enroll', { ticket: ticket.ticketId, secret: ticket.secret, request });
      } finally {
        channel.close();
      }
    };

    const homes = ['inlet', 'outlet'].map((name) => join(project!.dir, name));
    const validUntil = async () =>
      Promise.all(homes.map(async (home) => Date.parse((await nodeStatus(home)).identity.valid_until)));
    const firstEnds = await validUntil();
    await postgres.pause();
    const pausedAt = Date.now();
    assert.ok(
      Math.min(...firstEnds) > pausedAt + outageMs,
      'the certificates end after the outage (the test started slowly: their lifetime is too short for it)',
    );
    const started = performance.now();
    let connections = 0;
    while (performance.now() - started < outageMs) {
      const payload = Buffer.from(`ping ${connections}`);
      assert.deepEqual(await roundTrip(port, payload), payload, `connection ${connections} during the outage`);
      connections += 1;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    console.log(`      ${connections} new connections carried while the database was down for ${outageMs} ms`);
    await assert.rejects(enroll(tickets[0]!), (error: unknown) => {
      assert.ok(error instanceof PortalError, String(error));
      assert.equal(error.code, 'STORE_UNREACHABLE');
      assert.match(error.message, /^the controller cannot reach its database now \(ECONNREFUSED\)$/);
      assert.match(error.hint ?? '', /reconnects by itself/);
      console.log(`      enrolling while it was down: ${error.message}`);
      return true;
    });

    // The nodes tried to renew meanwhile and said why they could not, in one line.
    for (const node of [portal.inlet, portal.outlet])
      await node.waitFor(
        /WARN cannot renew the certificate yet: the controller cannot reach its database now \(ECONNREFUSED\)$/,
      );
    await postgres.resume();
    const resumedAt = Date.now();
    // Back before their certificates end: each renews in time, however long its backoff had grown.
    const renewed = await statusesUntil(async () => {
      const now = await validUntil();
      return now.every((until, index) => until > firstEnds[index]!) ? now : undefined;
    });
    console.log(
      `      both nodes renewed ${((Date.now() - resumedAt) / 1000).toFixed(1)} s after the database came back, ` +
        `${((Math.min(...firstEnds) - Date.now()) / 1000).toFixed(1)} s before their certificates' end`,
    );
    assert.ok(Date.now() < Math.min(...firstEnds), 'renewed before the certificates ended');
    assert.equal(renewed.length, 2);
    const enrolled = await enroll(tickets[1]!);
    assert.match(enrolled.identity.nodeId, /^n[0-9a-f]{16}$/);
    // The ticket whose enrollment failed was not spent.
    const second = await enroll(tickets[0]!);
    assert.match(second.identity.nodeId, /^n[0-9a-f]{16}$/);
    assert.deepEqual(await roundTrip(port, Buffer.from('after')), Buffer.from('after'));
  });
});
