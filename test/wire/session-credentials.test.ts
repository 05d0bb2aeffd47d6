/**
 * The `credential` frame: a renewed certificate a peer sends on a session, checked against what the
 * TLS handshake proved (pure checks first, then over real TLS on loopback with a short certificate).
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, connect, type AddressInfo, type Socket } from 'node:net';
import { X509Certificate } from 'node:crypto';
import {
  createAuthority,
  createCertificateRequest,
  issueCertificate,
  type Authority,
} from '../../src/pki/authority.ts';
import { generateKeyPair } from '../../src/pki/keys.ts';
import {
  acceptOutletChannel,
  adoptOutletSession,
  openInletSession,
  type SessionCredentials,
} from '../../src/wire/e2e-session.ts';
import { PeerSockets, type PeerGuard } from '../../src/wire/peer-guard.ts';
import { parseVerdict, spokenVersion } from '../../src/wire/protocol/e2e.ts';
import { FrameType, checkHeader, encodeFrame, frameLimits } from '../../src/wire/protocol/mux-frame.ts';
import { LiveSessions, judgeRenewal, type ChannelContext } from '../../src/wire/session-credentials.ts';

const projectId = 'p-renewals';

interface Member {
  readonly keys: ReturnType<typeof generateKeyPair>;
  readonly credentials: SessionCredentials;
}

function certify(
  authority: Authority,
  keys: Member['keys'],
  nodeId: string,
  attributes: string[],
  lifetimeMs: number,
  now = new Date(),
) {
  const request = createCertificateRequest(keys.privateKey, keys.publicKey, nodeId);
  const identity = { projectId, nodeId, attributes, relays: [], admin: false, tls: false, relayNode: false };
  return issueCertificate({ authority, request, identity, lifetimeMs, dnsNames: [], now });
}

function member(authority: Authority, nodeId: string, attribute: string, lifetimeMs = 3600_000): Member {
  const keys = generateKeyPair();
  const certificate = certify(authority, keys, nodeId, [attribute], lifetimeMs);
  return { keys, credentials: { key: keys.privateKey, certificate, authority: authority.certificate, projectId } };
}

const der = (pem: string) => new X509Certificate(pem).raw;

describe('credential frames: a session outlives its peer certificate only by a renewed one the peer proves', () => {
  let authority: Authority;
  let inlet: Member;
  let context: ChannelContext;
  let revoked = false;

  before(() => {
    authority = createAuthority(projectId);
    inlet = member(authority, 'n00000000000000c1', 'db-inlet');
    context = {
      certificate: new X509Certificate(inlet.credentials.certificate),
      nodeId: 'n00000000000000c1',
      credentials: {
        ...member(authority, 'n00000000000000c2', 'db-outlet').credentials,
        guard: { refusal: () => (revoked ? 'revoked' : undefined), track: () => undefined },
      },
      allow: 'db-inlet',
      spoken: 6,
    };
  });

  it('takes a renewal of the same member and key, and says until when', () => {
    const renewed = certify(authority, inlet.keys, 'n00000000000000c1', ['db-inlet'], 7200_000);
    const judged = judgeRenewal(der(renewed), context);
    assert.deepEqual(judged, { notAfter: Date.parse(new X509Certificate(renewed).validTo) });
  });

  it('refuses a renewal that is not one: another key, member, CA or attribute, expired, revoked, garbage', () => {
    const otherKeys = generateKeyPair();
    const otherAuthority = createAuthority(projectId);
    const cases: [string, Buffer, RegExp][] = [
      ['garbage', Buffer.from('not a certificate'), /is not a certificate/],
      [
        'another key',
        der(certify(authority, otherKeys, 'n00000000000000c1', ['db-inlet'], 7200_000)),
        /holds another key/,
      ],
      [
        'another member',
        der(certify(authority, inlet.keys, 'n00000000000000c9', ['db-inlet'], 7200_000)),
        /names n00000000000000c9/,
      ],
      [
        'another CA',
        der(certify(otherAuthority, inlet.keys, 'n00000000000000c1', ['db-inlet'], 7200_000)),
        /not one the project CA issued/,
      ],
      [
        'an attribute the allow does not admit',
        der(certify(authority, inlet.keys, 'n00000000000000c1', ['other'], 7200_000)),
        /the allow does not admit/,
      ],
      [
        'an expired one',
        der(certify(authority, inlet.keys, 'n00000000000000c1', ['db-inlet'], 1000, new Date(Date.now() - 3600_000))),
        /not valid now/,
      ],
    ];
    for (const [what, body, problem] of cases) {
      const judged = judgeRenewal(body, context);
      assert.ok('problem' in judged && problem.test(judged.problem), `${what}: ${JSON.stringify(judged)}`);
    }
    revoked = true;
    try {
      const renewed = certify(authority, inlet.keys, 'n00000000000000c1', ['db-inlet'], 7200_000);
      assert.deepEqual(judgeRenewal(der(renewed), context), { problem: 'is of a revoked member' });
    } finally {
      revoked = false;
    }
  });

  it('speaks 6 only with a peer that names it, and a peer of 5 is not refused', () => {
    const of5 = parseVerdict({ accept: true, saw: [], want: 'x', protocol: 5 });
    const of6 = parseVerdict({ accept: true, saw: [], want: 'x', protocol: 5, newest: 6 });
    assert.ok(!('mismatch' in of5) && !('mismatch' in of6));
    assert.equal(spokenVersion(of5), 5);
    assert.equal(spokenVersion(of6), 6);
    assert.equal(spokenVersion({ ...of6, newest: 9 }), 6, 'never beyond what this side speaks');
  });

  it('bounds the frame: on the session only, 1 byte to 8 KiB, from either side', () => {
    const check = (id: number, length: number) => checkHeader({ type: FrameType.credential, id, length }, 'outlet', 0);
    assert.equal(check(0, 1200), undefined);
    assert.equal(checkHeader({ type: FrameType.credential, id: 0, length: 1200 }, 'inlet', 0), undefined);
    assert.match(check(0, 0) ?? '', /a credential of 0 bytes/);
    assert.match(check(0, frameLimits.credentialBody + 1) ?? '', /a credential of 8193 bytes/);
    assert.match(check(1, 1200) ?? '', /on stream 1/);
  });

  describe('over real TLS, with an inlet certificate of 3 s', () => {
    /** The inlet, certified for 3 s when its session is made. */
    let short: Member;
    let outlet: Member;

    before(() => {
      outlet = member(authority, 'n00000000000000d2', 'db-outlet');
    });

    /** A session between the two: the outlet's guard keeps the inlet's connections (PeerSockets). */
    async function sessionPair() {
      short = member(authority, 'n00000000000000d1', 'db-inlet', 3000);
      const peers = new PeerSockets();
      const guard: PeerGuard = {
        refusal: () => undefined,
        track: (nodeId, socket, notAfter) => peers.track(nodeId, socket, notAfter),
        expiresAt: (nodeId) => peers.expiresAt(nodeId),
        renewed: (nodeId, notAfter) => peers.renewed(nodeId, notAfter),
      };
      const inletSessions = new LiveSessions();
      const server = createServer();
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      const accepted = once(server, 'connection') as Promise<[Socket]>;
      const raw = connect((server.address() as AddressInfo).port, '127.0.0.1');
      const [served] = await accepted;
      server.close();
      const [channel, opened] = await Promise.all([
        acceptOutletChannel(served, { ...outlet.credentials, guard }, 'db-inlet'),
        openInletSession(raw, { ...short.credentials, sessions: inletSessions }, 'db-outlet'),
      ]);
      const outletSession = adoptOutletSession(channel, { onStream: (stream) => stream.refuse('none here') });
      return { peers, inletSessions, outletSocket: channel.socket, outletSession, opened };
    }

    it('cuts the session at the inlet certificate notAfter when no renewal comes', async () => {
      const { outletSocket, opened } = await sessionPair();
      const notAfter = Date.parse(new X509Certificate(short.credentials.certificate).validTo);
      await once(outletSocket, 'close');
      const lateMs = Date.now() - notAfter;
      assert.ok(lateMs >= -50 && lateMs < 1000, `cut ${lateMs} ms after notAfter`);
      opened.session.destroy();
    });

    it('moves the end to the renewed certificate the inlet sends, and the session lives on past notAfter', async () => {
      const { peers, inletSessions, outletSocket, opened } = await sessionPair();
      const renewed = certify(authority, short.keys, 'n00000000000000d1', ['db-inlet'], 60_000);
      assert.equal(inletSessions.size, 1, 'the session is held: its peer speaks protocol 6');
      assert.equal(inletSessions.announce(renewed), 1);
      const until = Date.parse(new X509Certificate(renewed).validTo);
      const deadline = Date.now() + 2000;
      while (peers.expiresAt('n00000000000000d1') !== until && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 20));
      assert.equal(peers.expiresAt('n00000000000000d1'), until);
      const notAfter = Date.parse(new X509Certificate(short.credentials.certificate).validTo);
      await new Promise((resolve) => setTimeout(resolve, notAfter - Date.now() + 500));
      assert.equal(outletSocket.destroyed, false, 'the session outlived the first certificate');

      // Renewed twice within a second (a reload, then a grant): the second waits its turn, and the peer
      // takes both.
      const again = certify(authority, short.keys, 'n00000000000000d1', ['db-inlet'], 120_000);
      const sentAt = Date.now();
      assert.ok(opened.session.sendCredential(der(renewed)));
      assert.ok(opened.session.sendCredential(der(again)));
      const latest = Date.parse(new X509Certificate(again).validTo);
      while (peers.expiresAt('n00000000000000d1') !== latest && Date.now() - sentAt < 3000)
        await new Promise((resolve) => setTimeout(resolve, 20));
      assert.equal(peers.expiresAt('n00000000000000d1'), latest);
      assert.ok(Date.now() - sentAt >= frameLimits.credentialIntervalMs, 'the second waited out the interval');
      assert.equal(outletSocket.destroyed, false, 'two renewals within a second did not end the session');

      // A peer that sends them closer is flooding: the session is closed for it.
      const closed = once(outletSocket, 'close');
      opened.socket.write(encodeFrame(FrameType.credential, 0, der(renewed)));
      opened.socket.write(encodeFrame(FrameType.credential, 0, der(renewed)));
      await closed;
      opened.session.destroy();
    });
  });
});
