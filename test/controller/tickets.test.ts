import assert from 'node:assert/strict';
import { X509Certificate, createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startController, type RunningController } from '../../src/controller/controller.ts';
import { PortalError } from '../../src/shared/errors.ts';
import { callController } from '../../src/wire/control-channel.ts';
import type { TicketBody } from '../../src/wire/protocol.ts';
import { decodeTicket, encodeTicket } from '../../src/wire/ticket.ts';
import { enrollAdministrator, enrollWithTicket, renewCertificate } from '../../src/node/enrollment.ts';
import { identityOf } from '../../src/pki/identity.ts';
import { loadIdentity, type StoredIdentity } from '../../src/node/identity-store.ts';
import { createCertificateRequest } from '../../src/pki/authority.ts';
import { generateKeyPair } from '../../src/pki/keys.ts';
import { rejectsWith } from '../support/portal-errors.ts';

describe('controller: projects and tickets', () => {
  let work: string;
  let controller: RunningController;
  let admin: StoredIdentity;

  const issue = (body: Record<string, unknown>) =>
    callController(admin.record, 'ticket', { expiresInMs: 36_000_000, usageCount: 1, ...body } as TicketBody, {
      key: admin.privateKey,
      certificate: admin.certificate,
    }).then((answer) => String(answer.ticket));

  before(async () => {
    work = await mkdtemp(join(tmpdir(), 'portal-controller-'));
    controller = await startController({ dataDir: join(work, 'controller') });
    const code = await controller.service.createAdminCode(60_000);
    admin = await enrollAdministrator(join(work, 'admin'), code, 'demo');
  });

  after(async () => {
    await controller.close();
    await rm(work, { recursive: true, force: true });
  });

  it('makes the holder of the admin code the administrator of a new project, once', async () => {
    assert.match(admin.record.projectId, /^p[0-9a-f]{16}$/);
    const project = await callController(
      admin.record,
      'project',
      {},
      { key: admin.privateKey, certificate: admin.certificate },
    );
    assert.deepEqual(project.project, {
      id: admin.record.projectId,
      name: 'demo',
      controller: controller.address,
      network_domain: 'portal.example.net',
      created_at: (project.project as { created_at: string }).created_at,
    });
    const code = await controller.service.createAdminCode(60_000);
    await enrollAdministrator(join(work, 'admin-2'), code);
    await rejectsWith(enrollAdministrator(join(work, 'admin-3'), code), 'ADMIN_CODE_INVALID');
  });

  it('cancels the other codes made before the first project once one of them creates it', async () => {
    // As three replicas starting on an empty database each print one.
    const fresh = await startController({ dataDir: join(work, 'fresh-controller') });
    try {
      const codes = [];
      for (let i = 0; i < 3; i += 1) codes.push(await fresh.service.createAdminCode(60_000));
      await enrollAdministrator(join(work, 'fresh-admin'), codes[1] as string);
      for (const [index, code] of [codes[0], codes[2]].entries())
        await rejectsWith(
          enrollAdministrator(join(work, `fresh-admin-${index}`), code as string),
          'ADMIN_CODE_INVALID',
        );
      // One made once a project exists (portal controller start --admin-code) is another project's.
      const later = await fresh.service.createAdminCode(60_000);
      await enrollAdministrator(join(work, 'fresh-admin-later'), later);
    } finally {
      await fresh.close();
    }
  });

  it('enrolls a node with a ticket: key made locally, sealed at rest, attribute and relay right granted', async () => {
    const ticket = await issue({ attribute: 'postgres-outlet', relay: 'postgres' });
    assert.match(ticket, /^pt1\.[A-Za-z0-9_-]+$/);
    const directory = join(work, 'outlet');
    const identity = await enrollWithTicket(directory, ticket);
    assert.deepEqual(identity.record.attributes, ['postgres-outlet']);
    assert.deepEqual(identity.record.relays, ['postgres']);
    assert.equal((await stat(join(directory, 'identity.key.sealed'))).mode & 0o777, 0o600);
    assert.ok(
      !(await readFile(join(directory, 'identity.key.sealed'), 'latin1')).includes('PRIVATE KEY'),
      'the key is sealed',
    );
    assert.deepEqual((await loadIdentity(directory))?.privateKey, identity.privateKey);
  });

  it('refuses a consumed ticket, and the node that used it keeps its identity', async () => {
    const ticket = await issue({ attribute: 'webhook-inlet' });
    await enrollWithTicket(join(work, 'first'), ticket);
    await rejectsWith(enrollWithTicket(join(work, 'second'), ticket), 'TICKET_CONSUMED', /used already/);
    assert.equal(await loadIdentity(join(work, 'second')), undefined, 'nothing is written for a refused ticket');
  });

  it('refuses an expired ticket without consuming anything', async () => {
    const ticket = await issue({ attribute: 'late', expiresInMs: 1 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    await rejectsWith(enrollWithTicket(join(work, 'late'), ticket), 'TICKET_EXPIRED', /expired at/);
  });

  it('refuses a ticket lifetime outside the bounds the CLI checks, whatever client asks', async () => {
    const hint = 'give a whole number followed by ms, s, m, h or d (such as 10h or 1h30m), at most 30d';
    for (const [expiresInMs, reason] of [
      [0, 'must be positive'],
      [31 * 86_400_000, 'is longer than 30d'],
      [1.5, 'is not a whole number of milliseconds'],
    ] as const) {
      await assert.rejects(issue({ attribute: 'bounded', expiresInMs }), (error: unknown) => {
        assert.ok(error instanceof PortalError, String(error));
        assert.equal(error.code, 'BAD_FLAG');
        assert.equal(`${error.message}; ${error.hint}`, `--expires-in ${reason}; ${hint}`);
        return true;
      });
    }
    assert.match(await issue({ attribute: 'bounded', expiresInMs: 30 * 86_400_000 }), /^pt1\./);
  });

  it('refuses malformed tickets, altered secrets and tickets of another controller', async () => {
    await rejectsWith(enrollWithTicket(join(work, 'x'), 'pt1.garbage!'), 'TICKET_MALFORMED');
    await rejectsWith(enrollWithTicket(join(work, 'x'), 'not a ticket at all'), 'TICKET_MALFORMED');
    const ticket = decodeTicket(await issue({ attribute: 'x' }));
    await rejectsWith(
      enrollWithTicket(join(work, 'x'), encodeTicket({ ...ticket, secret: 'guessed' })),
      'TICKET_UNKNOWN',
    );
    const other = await startController({ dataDir: join(work, 'other-controller') });
    try {
      await rejectsWith(
        enrollWithTicket(join(work, 'x'), encodeTicket({ ...ticket, controller: other.address })),
        'CONTROLLER_MISMATCH',
      );
    } finally {
      await other.close();
    }
  });

  it('checks the ticket before the certificate request: a wrong ticket costs no signature check', async () => {
    const ticket = decodeTicket(await issue({ attribute: 'order' }));
    // An unreadable request with a wrong secret: only the ticket can have been looked at.
    await rejectsWith(
      callController(ticket, 'enroll', { ticket: ticket.ticketId, secret: 'guessed', request: 'not a request' }),
      'TICKET_UNKNOWN',
    );
    await rejectsWith(
      callController(ticket, 'enroll', { ticket: 'tnope', secret: ticket.secret, request: 'not a request' }),
      'TICKET_UNKNOWN',
    );
    await rejectsWith(
      callController(ticket, 'admin-enroll', { code: 'guessed', request: 'not a request' }),
      'ADMIN_CODE_INVALID',
    );
    // The right ticket with a bad request is refused for the request, and the ticket is still whole.
    await rejectsWith(
      callController(ticket, 'enroll', { ticket: ticket.ticketId, secret: ticket.secret, request: 'not a request' }),
      'REQUEST_INVALID',
    );
    await enrollWithTicket(join(work, 'order'), encodeTicket(ticket));

    // CPU time per refused attempt, against an enrollment: reading the request, its signature, signing.
    const keys = generateKeyPair();
    const request = createCertificateRequest(keys.privateKey, keys.publicKey, 'portal-node');
    const attempts = 100;
    const cpu = async (run: () => Promise<unknown>) => {
      const before = process.cpuUsage();
      for (let index = 0; index < attempts; index++) await run().catch(() => undefined);
      const used = process.cpuUsage(before);
      return (used.user + used.system) / attempts;
    };
    const many = decodeTicket(await issue({ attribute: 'many', usageCount: attempts }));
    const enrolled = await cpu(() =>
      controller.service.enroll(many.ticketId, many.secret, request).then((answer) => assert.ok(answer.certificate)),
    );
    const refused = await cpu(() => controller.service.enroll(ticket.ticketId, 'guessed', request));
    console.log(`      CPU per wrong-ticket enroll ${refused.toFixed(0)} µs; per enrollment ${enrolled.toFixed(0)} µs`);
    assert.ok(
      refused * 3 < enrolled,
      `a wrong-ticket enroll took ${refused.toFixed(0)} µs of CPU, an enrollment ${enrolled.toFixed(0)} µs`,
    );
  });

  it('gives exactly one of 20 concurrent enrollments with a one-use ticket', async () => {
    const ticket = await issue({ attribute: 'race' });
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, index) => enrollWithTicket(join(work, `race-${index}`), ticket)),
    );
    const won = results.filter((result) => result.status === 'fulfilled');
    const lost = results.filter((result): result is PromiseRejectedResult => result.status === 'rejected');
    assert.equal(won.length, 1);
    assert.deepEqual(new Set(lost.map((result) => (result.reason as PortalError).code)), new Set(['TICKET_CONSUMED']));
  });

  it('allows as many enrollments as the usage count says', async () => {
    const ticket = await issue({ attribute: 'fleet', usageCount: 3 });
    for (const index of [1, 2, 3]) await enrollWithTicket(join(work, `fleet-${index}`), ticket);
    await rejectsWith(enrollWithTicket(join(work, 'fleet-4'), ticket), 'TICKET_CONSUMED');
  });

  it('stores tickets hashed: the secret is nowhere in the database', async () => {
    const { secret } = decodeTicket(await issue({ attribute: 'hashed' }));
    const database = await readFile(join(work, 'controller', 'controller.db'));
    const wal = await readFile(join(work, 'controller', 'controller.db-wal')).catch(() => Buffer.alloc(0));
    for (const file of [database, wal]) assert.equal(file.indexOf(secret), -1);
    const digest = createHash('sha256').update(secret).digest('hex');
    assert.ok(database.indexOf(digest) >= 0 || wal.indexOf(digest) >= 0, 'its hash is');
  });

  it('grants several attributes, NAME and KEY=VALUE, carried in the certificate and kept on renewal', async () => {
    const ticket = await issue({ attribute: 'ops-inlet,team=ops,env=prod,region=eu-west-1' });
    assert.equal(decodeTicket(ticket).grants?.attribute, 'ops-inlet,team=ops,env=prod,region=eu-west-1');
    const directory = join(work, 'several');
    const identity = await enrollWithTicket(directory, ticket);
    const expected = ['ops-inlet', 'team=ops', 'env=prod', 'region=eu-west-1'];
    assert.deepEqual(identity.record.attributes, expected);
    const certificate = new X509Certificate(identity.certificate);
    assert.match(certificate.subjectAltName ?? '', /URI:portal:\/\/p[0-9a-f]+\/attr\/team=ops/);
    assert.deepEqual(identityOf(certificate)?.attributes, expected, 'the certificate reads back as it was granted');
    const renewed = await renewCertificate(directory, identity);
    assert.deepEqual(identityOf(renewed.certificate)?.attributes, expected);
  });

  it('refuses attributes that do not read, a key given twice, and more than 16', async () => {
    await rejectsWith(issue({ attribute: 'team=ops,team=dev' }), 'BAD_FLAG', /"team" is given twice/);
    await rejectsWith(issue({ attribute: 'team,team=dev' }), 'BAD_FLAG', /"team" is given twice/);
    await rejectsWith(issue({ attribute: 'team=o ps' }), 'BAD_FLAG', /the value of "team=o ps"/);
    await rejectsWith(issue({ attribute: 'Team=ops' }), 'BAD_FLAG', /the key of "Team=ops"/);
    await rejectsWith(issue({ attribute: 'a,' }), 'BAD_FLAG', /"" is not an attribute/);
    await rejectsWith(
      issue({ attribute: Array.from({ length: 17 }, (_, index) => `a${index}`).join(',') }),
      'BAD_FLAG',
      /17 attributes; a member carries at most 16/,
    );
  });

  it('lets only the administrator issue tickets', async () => {
    const ticket = await issue({ attribute: 'plain-node' });
    const node = await enrollWithTicket(join(work, 'plain-node'), ticket);
    await rejectsWith(
      callController(
        node.record,
        'ticket',
        { expiresInMs: 1000, usageCount: 1, attribute: 'sneaky' },
        { key: node.privateKey, certificate: node.certificate },
      ),
      'NOT_ADMIN',
    );
    await rejectsWith(
      callController(node.record, 'ticket', { expiresInMs: 1000, usageCount: 1, attribute: 'anonymous' }),
      'NOT_AUTHENTICATED',
    );
  });
});
