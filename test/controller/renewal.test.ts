import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KeptSqlite } from '../../src/controller/store/sqlite.ts';
import { enrollWithTicket, reissueCertificate, renewCertificate } from '../../src/node/enrollment.ts';
import { loadIdentity, saveCertificate, type StoredIdentity } from '../../src/node/identity-store.ts';
import { createAuthority, createCertificateRequest, issueCertificate } from '../../src/pki/authority.ts';
import type { NodeShowRunning } from '../../src/node/show.ts';
import { identityOf } from '../../src/pki/identity.ts';
import { generateKeyPair, publicKeyOf } from '../../src/pki/keys.ts';
import { PortalError } from '../../src/shared/errors.ts';
import { ServiceChannel, callController, openControlChannel } from '../../src/wire/control-channel.ts';
import type { RelayOperations } from '../../src/wire/protocol.ts';
import { createWorld, type World } from '../support/portal-world.ts';
import { ready, startEchoPortal, timeUntilWorking, type EchoPortal } from '../support/echo-portal.ts';
import { inletPort, nodeStatus, portal, type Running } from '../support/processes.ts';
import { startProject, type ProjectProcesses } from '../support/project-processes.ts';
import { roundTrip } from '../support/tcp.ts';
import { joinedRegExp } from '../support/joined-regexp.ts';
import { rejectsWith } from '../support/portal-errors.ts';

const spki = (certificate: string) =>
  new X509Certificate(certificate).publicKey.export({ type: 'spki', format: 'pem' }).toString();

describe('controller: a member whose certificate expired is re-issued one on proof of its enrolled key', () => {
  let world: World;
  let seq = 0;

  before(async () => {
    world = await createWorld();
  });

  after(async () => {
    await world.close();
  });

  /** An enrolled node whose stored certificate has expired (issued by the project an hour ago). */
  async function expiredMember(attribute = 'late-outlet'): Promise<{ directory: string; identity: StoredIdentity }> {
    const directory = join(world.dir, `member-${++seq}`);
    const enrolled = await enrollWithTicket(directory, await world.ticket({ attribute, relay: 'late' }));
    const identity = identityOf(enrolled.certificate);
    assert.ok(identity);
    const request = createCertificateRequest(enrolled.privateKey, publicKeyOf(enrolled.privateKey), 'portal-node');
    const old = await world.controller.service.renew(identity, request, Date.now() - 3_600_000);
    await saveCertificate(directory, old.certificate);
    assert.ok(Date.parse(new X509Certificate(old.certificate).validTo) < Date.now(), 'the certificate has expired');
    return { directory, identity: { ...enrolled, certificate: old.certificate } };
  }

  /** One re-issue exchange done by hand: a challenge, then the given certificate and request. */
  async function reissueBy(
    pin: StoredIdentity['record'],
    certificate: string,
    request: (challenge: string) => string | Promise<string>,
  ) {
    const channel = await openControlChannel(pin);
    try {
      const { challenge } = await channel.request('reissue-challenge', {});
      return await channel.request('reissue', { certificate, request: await request(challenge) });
    } finally {
      channel.close();
    }
  }

  it('refuses the expired certificate for everything else: renew, ticket, project, and the relay', async () => {
    const { identity } = await expiredMember();
    const credentials = { key: identity.privateKey, certificate: identity.certificate };
    const request = createCertificateRequest(identity.privateKey, publicKeyOf(identity.privateKey), 'portal-node');
    await rejectsWith(callController(identity.record, 'renew', { request }, credentials), 'NOT_AUTHENTICATED');
    await rejectsWith(
      callController(identity.record, 'ticket', { expiresInMs: 1000, usageCount: 1, attribute: 'x' }, credentials),
      'NOT_AUTHENTICATED',
    );
    await rejectsWith(callController(identity.record, 'project', {}, credentials), 'NOT_AUTHENTICATED');
    // The relay in the controller's process, where registrations and splices are asked for.
    const relay = {
      service: 'relay' as const,
      address: identity.record.controller,
      fingerprint: identity.record.fingerprint,
    };
    await rejectsWith(ServiceChannel.open<RelayOperations>(relay, credentials), 'NOT_AUTHENTICATED');
    await rejectsWith(renewCertificate(join(world.dir, 'unused'), identity), 'NOT_AUTHENTICATED');
  });

  it('re-issues a certificate for the same key and identity, stored, that renews as usual', async () => {
    const { directory, identity } = await expiredMember('back-outlet');
    const reissued = await reissueCertificate(directory, identity);
    const certificate = new X509Certificate(reissued.certificate);
    assert.ok(Date.parse(certificate.validTo) > Date.now(), 'valid now');
    assert.equal(spki(reissued.certificate), publicKeyOf(identity.privateKey), 'for the enrolled key');
    assert.deepEqual(
      identityOf(reissued.certificate),
      identityOf(identity.certificate),
      'the same identity, attributes and relay right',
    );
    assert.equal((await loadIdentity(directory))?.certificate, reissued.certificate, 'stored');
    const renewed = await renewCertificate(directory, reissued);
    assert.notEqual(renewed.certificate, reissued.certificate);
  });

  it('refuses a member that was removed from the project', async () => {
    const { directory, identity } = await expiredMember('removed-outlet');
    const database = await KeptSqlite.open(join(world.dir, 'controller', 'controller.db'));
    try {
      assert.equal(database.run('DELETE FROM members WHERE node_id = ?', identity.record.nodeId).changes, 1);
    } finally {
      database.close();
    }
    await rejectsWith(reissueCertificate(directory, identity), 'NOT_A_MEMBER');
    assert.equal((await loadIdentity(directory))?.certificate, identity.certificate, 'nothing new stored');
  });

  it('renews a request for the enrolled key by its bytes, and refuses one for another key or not proven', async () => {
    const directory = join(world.dir, `member-${++seq}`);
    const enrolled = await enrollWithTicket(
      directory,
      await world.ticket({ attribute: 'renewing-outlet', relay: 'r' }),
    );
    const identity = identityOf(enrolled.certificate)!;
    const other = generateKeyPair();
    const own = publicKeyOf(enrolled.privateKey);
    // The member's key, the request signed by another: the member proved its key in its handshake.
    const sameKeyOtherSigner = createCertificateRequest(other.privateKey, own, 'portal-node');
    const renewed = await world.controller.service.renew(identity, sameKeyOtherSigner);
    assert.equal(spki(renewed.certificate), spki(enrolled.certificate), 'certified for the enrolled key');
    await rejectsWith(
      world.controller.service.renew(
        identity,
        createCertificateRequest(other.privateKey, other.publicKey, 'portal-node'),
      ),
      'REISSUE_REFUSED',
      /another key/,
    );
    // A member whose key was never recorded (an older controller's): the request must prove its key.
    const database = await KeptSqlite.open(join(world.dir, 'controller', 'controller.db'));
    try {
      database.run('UPDATE members SET public_key_sha256 = NULL WHERE node_id = ?', identity.nodeId);
    } finally {
      database.close();
    }
    await rejectsWith(
      world.controller.service.renew(identity, sameKeyOtherSigner),
      'REQUEST_INVALID',
      /not signed by its own key/,
    );
    const proven = createCertificateRequest(enrolled.privateKey, own, 'portal-node');
    assert.equal(
      spki((await world.controller.service.renew(identity, proven)).certificate),
      spki(enrolled.certificate),
    );
  });

  it('refuses a request signed by another key than the enrolled one, and a forged certificate', async () => {
    const { identity } = await expiredMember('stolen-outlet');
    const other = generateKeyPair();
    const byOtherKey = (challenge: string) =>
      createCertificateRequest(other.privateKey, other.publicKey, 'portal-node', challenge);
    // The member's own (public) expired certificate with a request by another key.
    await rejectsWith(reissueBy(identity.record, identity.certificate, byOtherKey), 'REISSUE_REFUSED', /another key/);
    // A certificate naming the member for the other key, signed by a look-alike CA of the same project id.
    const lookalike = createAuthority(identity.record.projectId);
    const forged = issueCertificate({
      authority: lookalike,
      request: createCertificateRequest(other.privateKey, other.publicKey, 'portal-node'),
      identity: identityOf(identity.certificate)!,
      lifetimeMs: -1000,
    });
    await rejectsWith(
      reissueBy(identity.record, forged, byOtherKey),
      'REISSUE_REFUSED',
      /not for the key this member enrolled with/,
    );
    // Even for a member whose key was never recorded (enrolled by an older controller), the chain decides.
    const database = await KeptSqlite.open(join(world.dir, 'controller', 'controller.db'));
    try {
      database.run('UPDATE members SET public_key_sha256 = NULL WHERE node_id = ?', identity.record.nodeId);
    } finally {
      database.close();
    }
    await rejectsWith(reissueBy(identity.record, forged, byOtherKey), 'REISSUE_REFUSED', /not issued by the project/);
  });

  it(
    'takes each challenge once: a recorded request cannot be replayed, ' + 'and one without a challenge is refused',
    async () => {
      const { identity } = await expiredMember('replay-outlet');
      let recorded = '';
      const record = (challenge: string) =>
        (recorded = createCertificateRequest(
          identity.privateKey,
          publicKeyOf(identity.privateKey),
          'portal-node',
          challenge,
        ));
      const answer = await reissueBy(identity.record, identity.certificate, record);
      assert.ok(String(answer.certificate).includes('BEGIN CERTIFICATE'));
      await rejectsWith(
        reissueBy(identity.record, identity.certificate, () => Promise.resolve(recorded)),
        'CHALLENGE_UNKNOWN',
      );
      await rejectsWith(
        callController(identity.record, 'reissue', { certificate: identity.certificate, request: recorded }),
        'CHALLENGE_UNKNOWN',
      );
      const withoutChallenge = createCertificateRequest(
        identity.privateKey,
        publicKeyOf(identity.privateKey),
        'portal-node',
      );
      await rejectsWith(
        callController(identity.record, 'reissue', { certificate: identity.certificate, request: withoutChallenge }),
        'CHALLENGE_UNKNOWN',
      );
      await rejectsWith(
        callController(identity.record, 'reissue', { certificate: 'garbage', request: 'garbage' }),
        'REISSUE_REFUSED',
      );
    },
  );

  it(
    'rate-limits challenges per source address, never by a name a request gives: a burst of 20, ' +
      'then one per 500 ms',
    async () => {
      const service = world.controller.service;
      const now = Date.now();
      const ask = (source: string, at = now) => {
        try {
          return service.reissueChallenge(source, at).challenge ? 'ok' : 'none';
        } catch (error) {
          return (error as PortalError).code;
        }
      };
      const codes = Array.from({ length: 22 }, () => ask('192.0.2.7'));
      assert.deepEqual(codes, [...Array<string>(20).fill('ok'), 'RATE_LIMITED', 'RATE_LIMITED']);
      assert.equal(ask('192.0.2.8'), 'ok', 'another source is not held up by the flood');
      assert.equal(ask('192.0.2.7', now + 500), 'ok', 'the flooding source gets one more after 500 ms');
      // Over the wire the source is the connection's address, whatever node the request names.
      const channel = await openControlChannel(world.admin.record);
      try {
        assert.ok((await channel.request('reissue-challenge', { node: 'n-flood' })).challenge);
      } finally {
        channel.close();
      }
    },
  );
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls the node's /show until `test` holds; fails after `limitMs`. */
async function untilShown(
  home: string,
  test: (shown: NodeShowRunning) => boolean,
  what: string,
  limitMs = 20_000,
): Promise<NodeShowRunning> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const shown = await nodeStatus(home).catch(() => undefined);
    if (shown && 'identity' in shown && test(shown)) return shown;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(shown)}`);
    await sleep(100);
  }
}

describe('end to end: credentials outlive a controller outage (6 s certificates)', function () {
  this.timeout(180_000);
  let project: ProjectProcesses;
  let echo: EchoPortal['echo'];
  let outlet: Running;
  let inlet: Running;
  let port: number;
  let inletConfig: object;
  const home = (name: string) => join(project.dir, name);

  before(async () => {
    project = await startProject({ controllerFlags: ['--credential-lifetime', '6s'] });
    // Through the relay in the controller's process, which the outage takes away too.
    ({ echo, outlet, inlet, port, inletConfig } = await startEchoPortal(
      project,
      { PORTAL_HEARTBEAT: '1s' },
      { direct: false },
    ));
    await timeUntilWorking(port, 10_000);
  });

  after(async () => {
    await project?.close();
    await echo?.close();
  });

  const reissues = () =>
    [...inlet.lines, ...outlet.lines].filter((line) => line.includes('re-issued it on proof of the enrolled key'))
      .length;
  let reissuedBefore = 0;

  /** Keeps the controller away until both nodes' certificates have expired, and at least `downMs`. */
  async function outage(away: () => void | Promise<void>, back: () => void | Promise<void>, downMs: number) {
    reissuedBefore = reissues();
    const started = Date.now();
    await away();
    for (const name of ['inlet', 'outlet']) {
      await untilShown(home(name), (shown) => shown.identity?.expired === true, `${name}'s certificate to expire`);
    }
    const inletShow = await portal(home('inlet'), ['node', 'show']);
    const outletShow = await portal(home('outlet'), ['node', 'show']);
    await sleep(Math.max(0, downMs - (Date.now() - started)));
    await back();
    const backAt = Date.now();
    const took = await timeUntilWorking(port, 30_000);
    return { inletShow, outletShow, took, down: backAt - started };
  }

  async function assertRecovered(took: number, what: string) {
    console.log(`      ${what}: bytes flow again ${(took / 1000).toFixed(1)} s after the controller is back`);
    assert.ok(took < 8000, `recovered after ${took} ms`);
    const payload = Buffer.alloc(256 * 1024, 7);
    assert.ok((await roundTrip(port, payload)).equals(payload));
    for (const name of ['inlet', 'outlet']) {
      const shown = await untilShown(home(name), (candidate) => candidate.status === 'up', `${name} up`);
      assert.deepEqual(shown.problems, []);
      const run = await portal(home(name), ['node', 'show']);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /^The node is UP\n/);
    }
    assert.equal(reissues() - reissuedBefore, 2, 'both nodes were re-issued a certificate, once each');
  }

  it(
    'stopped (SIGTERM) for 12 s: node show says the certificate expired, ' +
      'and bytes flow again within seconds of its return',
    async () => {
      const { inletShow, outletShow, took, down } = await outage(
        async () => void (await project.controller.process.stop()),
        () => project.startController(),
        12_000,
      );
      assert.ok(down >= 12_000, `the controller was away ${down} ms`);
      for (const run of [inletShow, outletShow]) {
        assert.equal(run.code, 1, run.stdout);
        assert.match(
          run.stderr,
          joinedRegExp(
            /^portal: The node is DOWN: its certificate expired at \S+ and has not been renewed yet \(cannot reach /,
            /the controller at 127\.0\.0\.1:\d+ \(ECONNREFUSED\)\); the controller 127\.0\.0\.1:\d+ is unreachable/,
          ),
        );
        // The relay in the controller's process went with it.
        assert.match(run.stderr, /; no relay of the project is reachable \(127\.0\.0\.1:\d+\)/);
      }
      assert.match(inletShow.stderr, /its inlet on 127\.0\.0\.1:\d+ has no session to relay "echo"/);
      assert.match(outletShow.stderr, /its outlet is not registered on any relay as "echo"/);
      await assertRecovered(took, 'SIGTERM for 12 s');
    },
  );

  it('frozen (SIGSTOP) for 12 s: the same, once it runs again', async () => {
    const child = project.controller.process.child;
    const { inletShow, took } = await outage(
      () => void child.kill('SIGSTOP'),
      () => void child.kill('SIGCONT'),
      12_000,
    );
    assert.equal(inletShow.code, 1);
    assert.match(
      inletShow.stderr,
      /^portal: The node is DOWN: its certificate expired at \S+ and has not been renewed yet/,
    );
    await assertRecovered(took, 'SIGSTOP for 12 s');
  });

  it('restarted after its certificate expired while it was stopped: re-issued at start, no ticket needed', async () => {
    assert.equal(await inlet.stop(), 0);
    const stored = () => readFile(join(home('inlet'), 'node', 'certificate.pem'), 'utf8');
    const validTo = Date.parse(new X509Certificate(await stored()).validTo);
    await sleep(Math.max(0, validTo - Date.now() + 500));
    const started = Date.now();
    inlet = await project.startNode('inlet', inletConfig, undefined, { PORTAL_HEARTBEAT: '1s' });
    await inlet.waitFor(ready);
    port = await inletPort(home('inlet'));
    const took = await timeUntilWorking(port, 30_000);
    console.log(
      '      restarted with an expired certificate: ' +
        `bytes flow ${((Date.now() - started) / 1000).toFixed(1)} s after the start`,
    );
    assert.ok(
      Date.now() - started < 10_000,
      `working ${Date.now() - started} ms after the start (${took} ms after ready)`,
    );
    assert.equal(
      inlet.lines.filter((line) => line.includes('re-issued it on proof of the enrolled key')).length,
      1,
      'the inlet was re-issued a certificate',
    );
    assert.ok(Date.parse(new X509Certificate(await stored()).validTo) > Date.now(), 'and stored it');
  });
});

describe('end to end: the administrator renews too (3 s certificates)', function () {
  this.timeout(60_000);
  let project: ProjectProcesses;

  before(async () => {
    project = await startProject({ controllerFlags: ['--credential-lifetime', '3s'] });
  });

  after(async () => {
    await project?.close();
  });

  it('issues a ticket and shows the project 7 s after enrolling, and stores the new certificate', async () => {
    const admin = join(project.dir, 'admin');
    const stored = () => readFile(join(admin, 'admin', 'certificate.pem'), 'utf8');
    const before = await stored();
    await sleep(7000);
    assert.ok(Date.parse(new X509Certificate(before).validTo) < Date.now(), 'the enrolled certificate has expired');
    const ticket = await portal(admin, ['project', 'ticket', '--attribute', 'late-inlet']);
    assert.equal(ticket.code, 0, ticket.stderr);
    assert.match(ticket.stdout, /^pt1\.[A-Za-z0-9_-]+\n$/);
    const shown = await portal(admin, ['project', 'show', '--jq', '.id']);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /^p[0-9a-f]{16}\n$/);
    const after = new X509Certificate(await stored());
    assert.ok(
      Date.parse(after.validTo) > Date.now() - 3000,
      `the re-issued certificate is stored (valid until ${after.validTo})`,
    );
    assert.equal(
      after.publicKey.export({ type: 'spki', format: 'pem' }),
      new X509Certificate(before).publicKey.export({ type: 'spki', format: 'pem' }),
      'for the same key',
    );
  });
});
