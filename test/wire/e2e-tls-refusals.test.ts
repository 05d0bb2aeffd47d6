import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, connect as connectTcp, type Server, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';
import {
  createAuthority,
  createCertificateRequest,
  issueCertificate,
  type Authority,
} from '../../src/pki/authority.ts';
import { generateKeyPair } from '../../src/pki/keys.ts';
import { acceptOutletChannel, openInletChannel, type SessionCredentials } from '../../src/wire/e2e-session.ts';
import { e2eAlpn } from '../../src/wire/tls-contexts.ts';
import { sessionMember } from '../support/session-members.ts';

const projectId = 'refusals';

/** A member whose certificate the project CA issued and that expired a second ago. */
function expiredMember(authority: Authority, nodeId: string, attributes: string[]): SessionCredentials {
  const keys = generateKeyPair();
  const request = createCertificateRequest(keys.privateKey, keys.publicKey, nodeId);
  const identity = { projectId, nodeId, attributes, relays: [], admin: false, tls: false, relayNode: false };
  const certificate = issueCertificate({ authority, request, identity, lifetimeMs: -1000, dnsNames: [] });
  return { key: keys.privateKey, certificate, authority: authority.certificate, projectId };
}

/** An outlet's end-to-end listener on loopback: each accepted channel's outcome, in order. */
async function outletListening(credentials: SessionCredentials): Promise<{
  server: Server;
  port: number;
  outcomes: Promise<string>[];
}> {
  const outcomes: Promise<string>[] = [];
  const server = createServer((raw: Socket) => {
    outcomes.push(
      acceptOutletChannel(raw, credentials, 'db-inlet').then(
        (channel) => {
          channel.socket.destroy();
          return `accepted ${channel.peer?.nodeId ?? 'nobody'}`;
        },
        (error: Error & { code?: string }) => `refused ${error.code ?? ''}: ${error.message}`,
      ),
    );
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, port: (server.address() as { port: number }).port, outcomes };
}

/** The inlet's side against `port`: `accepted` or the refusal's code and text. */
async function inletOutcome(port: number, credentials: SessionCredentials): Promise<string> {
  const raw = connectTcp({ host: '127.0.0.1', port });
  await once(raw, 'connect');
  return openInletChannel(raw, credentials, 'db-outlet', 'session', 5000).then(
    (channel) => {
      channel.socket.destroy();
      return 'accepted';
    },
    (error: Error & { code?: string }) => `refused ${error.code ?? ''}: ${error.message}`,
  );
}

describe("end-to-end TLS: what a node takes of its peer's connection and certificate", () => {
  let authority: Authority;
  let inlet: SessionCredentials;
  let outlet: SessionCredentials;
  const servers: Server[] = [];

  before(() => {
    authority = createAuthority(projectId);
    inlet = sessionMember(authority, projectId, 'n00000000000000a1', ['db-inlet']);
    outlet = sessionMember(authority, projectId, 'n00000000000000b1', ['db-outlet']);
  });

  after(() => servers.forEach((server) => server.close()));

  it('speaks TLS 1.3 only: a TLS 1.2 client gets no session', async () => {
    const listening = await outletListening(outlet);
    servers.push(listening.server);
    // A member in good standing, the version aside: the refusal is the version's alone.
    const old = connectTls({
      host: '127.0.0.1',
      port: listening.port,
      key: inlet.key,
      cert: inlet.certificate,
      ca: inlet.authority,
      maxVersion: 'TLSv1.2',
      ALPNProtocols: e2eAlpn,
      checkServerIdentity: () => undefined,
    });
    const [error] = (await once(old, 'error')) as [NodeJS.ErrnoException];
    old.destroy();
    assert.match(String(error.code), /PROTOCOL_VERSION|UNSUPPORTED_PROTOCOL|ALERT/, String(error));
    assert.match(await listening.outcomes[0]!, /^refused SESSION_FAILED: .*unsupported protocol/);
    assert.equal(await inletOutcome(listening.port, inlet), 'accepted', 'the same member over TLS 1.3');
    assert.equal(await listening.outcomes[1], 'accepted n00000000000000a1');
  });

  it('refuses a peer whose certificate has expired, on either side', async () => {
    // An inlet that presents an expired certificate to a valid outlet.
    const toValid = await outletListening(outlet);
    servers.push(toValid.server);
    const lateInlet = expiredMember(authority, 'n00000000000000a2', ['db-inlet']);
    const lateInletOutcome = await inletOutcome(toValid.port, lateInlet);
    const validOutletOutcome = await toValid.outcomes[0]!;
    assert.match(lateInletOutcome, /^refused SESSION_FAILED: /);
    assert.match(validOutletOutcome, /^refused SESSION_FAILED: end-to-end TLS failed/);
    // The same outlet takes a member whose certificate is current: the refusal was the expiry's.
    assert.equal(await inletOutcome(toValid.port, inlet), 'accepted');
    assert.equal(await toValid.outcomes[1], 'accepted n00000000000000a1');
    // A valid inlet that meets an outlet presenting an expired certificate.
    const lateOutlet = expiredMember(authority, 'n00000000000000b2', ['db-outlet']);
    const toLate = await outletListening(lateOutlet);
    servers.push(toLate.server);
    assert.match(await inletOutcome(toLate.port, inlet), /^refused SESSION_FAILED: .*expired/i);
    assert.match(await toLate.outcomes[0]!, /^refused /);
  });
});
