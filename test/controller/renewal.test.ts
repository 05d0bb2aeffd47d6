import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { enrollWithTicket, reissueCertificate, renewCertificate } from '../../src/node/enrollment.ts';
import { loadIdentity, saveCertificate, type StoredIdentity } from '../../src/node/identity-store.ts';
import { createAuthority, createCertificateRequest, issueCertificate } from '../../src/pki/authority.ts';
import { identityOf } from '../../src/pki/identity.ts';
import { generateKeyPair, publicKeyOf } from '../../src/pki/keys.ts';
import { PortalError } from '../../src/shared/errors.ts';
import { ControlChannel, callController } from '../../src/wire/control-channel.ts';
import { createWorld, type World } from '../support/portal-world.ts';

async function rejectsWith(promise: Promise<unknown>, code: string, message?: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof PortalError, String(error));
    assert.equal(error.code, code, error.message);
    if (message) assert.match(error.message, message);
    return true;
  });
}

const spki = (certificate: string) => new X509Certificate(certificate).publicKey.export({ type: 'spki', format: 'pem' }).toString();

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
    const request = await createCertificateRequest(enrolled.privateKey, publicKeyOf(enrolled.privateKey), 'portal-node');
    const old = await world.controller.service.renew(identity, request, Date.now() - 3_600_000);
    await saveCertificate(directory, old.certificate);
    assert.ok(Date.parse(new X509Certificate(old.certificate).validTo) < Date.now(), 'the certificate has expired');
    return { directory, identity: { ...enrolled, certificate: old.certificate } };
  }

  /** One re-issue exchange done by hand: a challenge, then the given certificate and request. */
  async function reissueBy(pin: StoredIdentity['record'], certificate: string, request: (challenge: string) => Promise<string>, node = 'x') {
    const channel = await ControlChannel.open(pin);
    try {
      const { challenge } = await channel.request('reissue-challenge', { node });
      return await channel.request('reissue', { certificate, request: await request(String(challenge)) });
    } finally {
      channel.close();
    }
  }

  it('refuses the expired certificate for everything else: renew, ticket, register, connect', async () => {
    const { identity } = await expiredMember();
    const credentials = { key: identity.privateKey, certificate: identity.certificate };
    const request = await createCertificateRequest(identity.privateKey, publicKeyOf(identity.privateKey), 'portal-node');
    for (const [op, body] of [
      ['renew', { request }],
      ['ticket', { expiresInMs: 1000, usageCount: 1, attribute: 'x' }],
      ['register', { relay: 'late' }],
      ['connect', { relay: 'late' }],
      ['project', {}],
    ] as const) {
      await rejectsWith(callController(identity.record, op, body, credentials), 'NOT_AUTHENTICATED');
    }
    await rejectsWith(renewCertificate(join(world.dir, 'unused'), identity), 'NOT_AUTHENTICATED');
  });

  it('re-issues a certificate for the same key and identity, stored, that renews as usual', async () => {
    const { directory, identity } = await expiredMember('back-outlet');
    const reissued = await reissueCertificate(directory, identity);
    const certificate = new X509Certificate(reissued.certificate);
    assert.ok(Date.parse(certificate.validTo) > Date.now(), 'valid now');
    assert.equal(spki(reissued.certificate), publicKeyOf(identity.privateKey), 'for the enrolled key');
    assert.deepEqual(identityOf(reissued.certificate), identityOf(identity.certificate), 'the same identity, attributes and relay right');
    assert.equal((await loadIdentity(directory))?.certificate, reissued.certificate, 'stored');
    const renewed = await renewCertificate(directory, reissued);
    assert.notEqual(renewed.certificate, reissued.certificate);
  });

  it('refuses a member that was removed from the project', async () => {
    const { directory, identity } = await expiredMember('removed-outlet');
    const database = new Database(join(world.dir, 'controller', 'controller.db'));
    try {
      assert.equal(database.prepare('DELETE FROM members WHERE node_id = ?').run(identity.record.nodeId).changes, 1);
    } finally {
      database.close();
    }
    await rejectsWith(reissueCertificate(directory, identity), 'NOT_A_MEMBER');
    assert.equal((await loadIdentity(directory))?.certificate, identity.certificate, 'nothing new stored');
  });

  it('refuses a request signed by another key than the enrolled one, and a forged certificate', async () => {
    const { identity } = await expiredMember('stolen-outlet');
    const other = generateKeyPair();
    const byOtherKey = (challenge: string) => createCertificateRequest(other.privateKey, other.publicKey, 'portal-node', challenge);
    // The member's own (public) expired certificate with a request by another key.
    await rejectsWith(reissueBy(identity.record, identity.certificate, byOtherKey), 'REISSUE_REFUSED', /another key/);
    // A certificate naming the member for the other key, signed by a look-alike CA of the same project id.
    const lookalike = await createAuthority(identity.record.projectId);
    const forged = await issueCertificate({
      authority: lookalike,
      request: await createCertificateRequest(other.privateKey, other.publicKey, 'portal-node'),
      identity: identityOf(identity.certificate)!,
      lifetimeMs: -1000,
    });
    await rejectsWith(reissueBy(identity.record, forged, byOtherKey), 'REISSUE_REFUSED', /not for the key this member enrolled with/);
    // Even for a member whose key was never recorded (enrolled by an older controller), the chain decides.
    const database = new Database(join(world.dir, 'controller', 'controller.db'));
    try {
      database.prepare('UPDATE members SET public_key_sha256 = NULL WHERE node_id = ?').run(identity.record.nodeId);
    } finally {
      database.close();
    }
    await rejectsWith(reissueBy(identity.record, forged, byOtherKey), 'REISSUE_REFUSED', /not issued by the project/);
  });

  it('takes each challenge once: a recorded request cannot be replayed, and one without a challenge is refused', async () => {
    const { identity } = await expiredMember('replay-outlet');
    let recorded = '';
    const record = async (challenge: string) => (recorded = await createCertificateRequest(identity.privateKey, publicKeyOf(identity.privateKey), 'portal-node', challenge));
    const answer = await reissueBy(identity.record, identity.certificate, record);
    assert.ok(String(answer.certificate).includes('BEGIN CERTIFICATE'));
    await rejectsWith(reissueBy(identity.record, identity.certificate, async () => recorded), 'CHALLENGE_UNKNOWN');
    await rejectsWith(callController(identity.record, 'reissue', { certificate: identity.certificate, request: recorded }), 'CHALLENGE_UNKNOWN');
    const withoutChallenge = await createCertificateRequest(identity.privateKey, publicKeyOf(identity.privateKey), 'portal-node');
    await rejectsWith(callController(identity.record, 'reissue', { certificate: identity.certificate, request: withoutChallenge }), 'CHALLENGE_UNKNOWN');
    await rejectsWith(callController(identity.record, 'reissue', { certificate: 'garbage', request: 'garbage' }), 'REISSUE_REFUSED');
  });

  it('rate-limits challenges per node named: a burst of 10, then one per 3 s', async () => {
    const codes: string[] = [];
    // A few requests per connection: the controller closes an anonymous connection after a handful.
    for (let round = 0; round < 3; round++) {
      const channel = await ControlChannel.open(world.admin.record);
      try {
        for (let index = 0; index < 4; index++) {
          codes.push(await channel.request('reissue-challenge', { node: 'n-flood' }).then(() => 'ok', (error: PortalError) => error.code));
        }
      } finally {
        channel.close();
      }
    }
    assert.deepEqual(codes, [...Array(10).fill('ok'), 'RATE_LIMITED', 'RATE_LIMITED']);
    // Another node's name is not held up by the flood.
    assert.ok((await callController(world.admin.record, 'reissue-challenge', { node: 'n-other' })).challenge);
  });
});
