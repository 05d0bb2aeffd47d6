import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAuthority } from '../../src/pki/authority.ts';
import type { StoredIdentity } from '../../src/node/identity-store.ts';
import { revocationCheckMs } from '../../src/node/limits.ts';
import type { Logger } from '../../src/node/logger.ts';
import { Renewal } from '../../src/node/renewal.ts';
import { identityLeftLine, revokedLine, ticketFlagsFor } from '../../src/node/self-revocation.ts';
import type { NodeControl } from '../../src/node/standing-channel.ts';
import { until } from '../support/in-process.ts';
import { sessionMember } from '../support/session-members.ts';

const projectId = 'p0123456789abcdef';
const nodeId = 'n0123456789abcdef';

describe('a refused certificate: the controller is asked at once, and at most once per revocationCheckMs', () => {
  let server: Server;
  let directory: string;
  let connections = 0;

  before(async () => {
    // Where the node's controller should be: it takes each connection and closes it, so each ask fails.
    server = createServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    directory = await mkdtemp(join(tmpdir(), 'portal-revocation-check-'));
  });

  after(async () => {
    await new Promise((resolve) => server.close(resolve));
    await rm(directory, { recursive: true, force: true });
  });

  it('a service refusing the certificate 100 times in 10 s (a hostile relay) costs one ask', async () => {
    const member = sessionMember(createAuthority(projectId), projectId, nodeId, ['db-inlet']);
    const identity: StoredIdentity = {
      record: {
        controller: `127.0.0.1:${(server.address() as AddressInfo).port}`,
        fingerprint: '0'.repeat(64),
        projectId,
        nodeId,
        networkDomain: 'portal.example.net',
        attributes: ['db-inlet'],
        relays: [],
        tls: false,
      },
      privateKey: member.key,
      certificate: member.certificate,
      authority: member.authority,
    };
    const lines: string[] = [];
    const log = (line: string) => void lines.push(line);
    const logger: Logger = { announce: log, error: log, warn: log, info: log, debug: log };
    const renewal = new Renewal({
      directory,
      current: () => identity,
      update: () => undefined,
      control: new EventEmitter() as unknown as NodeControl,
      logger,
      holder: 'this node',
    });
    try {
      const start = Date.now();
      renewal.checkNow(start);
      await until(() => renewal.error, 'the first ask to fail');
      assert.equal(connections, 1);
      // Refusals every 100 ms for 10 s of the node's clock: none asks again.
      for (let refusal = 1; refusal <= 100; refusal += 1) renewal.checkNow(start + refusal * 100);
      // Nothing signals an ask not made: a moment for one to reach the server (the retry of the failed
      // renewal waits a second at least, past this).
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(connections, 1, 'one ask for 100 refusals');
      renewal.checkNow(start + revocationCheckMs);
      await until(() => (connections === 2 ? true : undefined), 'the next ask, revocationCheckMs later');
    } finally {
      renewal.stop();
    }
  });
});

describe('what a revoked node and portal reset say', () => {
  const record = {
    controller: '192.0.2.2:4000',
    fingerprint: '0'.repeat(64),
    projectId,
    nodeId,
    networkDomain: 'portal.example.net',
    attributes: ['team=ops', "it's"],
    relays: ['db'],
    tls: true,
  };

  it('names the ticket that enrolls the same grants, each word as the shell reads it', () => {
    assert.equal(ticketFlagsFor(record), "--attribute team=ops --attribute 'it'\\''s' --relay db --tls");
    assert.match(
      revokedLine(record, 'why'),
      /^this node n0123456789abcdef was revoked from project p0123456789abcdef \(why\);/,
    );
  });

  it('names the revoke command for an identity left active, and nothing to do for one revoked', () => {
    assert.equal(
      identityLeftLine('relay', record),
      'The relay n0123456789abcdef of project p0123456789abcdef (controller 192.0.2.2:4000) stays an active ' +
        'member until an administrator runs: portal project revoke n0123456789abcdef',
    );
    assert.equal(
      identityLeftLine('node', record, '2026-11-28T10:00:00.000Z'),
      'The node n0123456789abcdef of project p0123456789abcdef (controller 192.0.2.2:4000) was revoked from ' +
        'its project at 2026-11-28T10:00:00.000Z: nothing is left to do.',
    );
  });
});
