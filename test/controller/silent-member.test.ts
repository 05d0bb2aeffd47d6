/**
 * A member that connects and never says hello: what the controller pushes to it meanwhile waits for
 * the hello, and past a bound its connection is closed, so it cannot make the controller hold events
 * for it without end.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect } from 'node:tls';
import { createCertificateRequest } from '../../src/pki/authority.ts';
import { generateKeyPair } from '../../src/pki/keys.ts';
import { callController, openControlChannel } from '../../src/wire/control-channel.ts';
import { serviceAlpn } from '../../src/wire/protocol/version.ts';
import { decodeTicket } from '../../src/wire/ticket.ts';
import { createWorld, type World } from '../support/portal-world.ts';

describe('a member that never says hello', function () {
  this.timeout(30_000);
  let world: World;
  before(async () => {
    world = await createWorld();
  });
  after(() => world.close());

  it('is closed once more than 64 pushed events wait for its hello', async () => {
    const admin = { key: world.admin.privateKey, certificate: world.admin.certificate };
    // A relay node whose announcements each push the relay list to every member of the project.
    const ticket = await callController(
      world.admin.record,
      'ticket',
      { expiresInMs: 3_600_000, usageCount: 1, attribute: '', relayNode: true, tls: false },
      admin,
    );
    const { ticketId, secret } = decodeTicket(String(ticket.ticket));
    const keys = generateKeyPair();
    const request = createCertificateRequest(keys.privateKey, keys.publicKey, 'portal-node');
    const relay = await callController(world.admin.record, 'enroll', { ticket: ticketId, secret, request });
    const announcer = await openControlChannel(world.admin.record, {
      key: keys.privateKey,
      certificate: relay.certificate,
    });
    const [host, port] = world.controller.listening.split(':') as [string, string];
    const silent = connect({
      host,
      port: Number(port),
      key: admin.key,
      cert: admin.certificate,
      ca: [],
      rejectUnauthorized: false,
      ALPNProtocols: [serviceAlpn.control],
    });
    silent.on('error', () => undefined);
    await once(silent, 'secureConnect');
    const closed = once(silent, 'close');
    let received = 0;
    silent.on('data', (chunk: Buffer) => (received += chunk.length));
    try {
      const announce = (n: number) =>
        announcer.request('relay-announce', { address: `127.0.0.1:${7000 + n}`, fingerprint: 'a'.repeat(64) });
      for (let n = 0; n < 32; n += 1) await announce(n);
      await announcer.request('ping', {});
      assert.ok(!silent.destroyed && !silent.readableEnded, 'open while fewer than the bound wait');
      for (let n = 32; n < 80; n += 1) await announce(n);
      await Promise.race([closed, new Promise((_, reject) => setTimeout(() => reject(new Error('still open')), 5000))]);
      assert.equal(received, 0, 'nothing was pushed before a hello');
    } finally {
      silent.destroy();
      announcer.close();
    }
  });
});
