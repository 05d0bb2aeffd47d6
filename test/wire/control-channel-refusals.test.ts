import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { createServer, type Server, type TLSSocket } from 'node:tls';
import { createServerCertificate, fingerprintOf } from '../../src/pki/authority.ts';
import { InputError, PortalError, RuntimeFailure } from '../../src/shared/errors.ts';
import { openControlChannel, type ControlChannel } from '../../src/wire/control-channel.ts';
import { readJsonLines, writeJsonLine } from '../../src/wire/json-lines.ts';
import { helloOf, serviceAlpn } from '../../src/wire/protocol.ts';

/** A controller that answers every request with the next of `refusals`, whatever their code. */
describe("control channel client: the codes of a server's refusals", () => {
  let server: Server;
  let channel: ControlChannel | undefined;
  let address: string;
  let fingerprint: string;
  let refusals: Record<string, unknown>[] = [];

  before(async () => {
    const tls = createServerCertificate('refuses');
    fingerprint = fingerprintOf(tls.certificate);
    server = createServer(
      { key: tls.privateKey, cert: tls.certificate, minVersion: 'TLSv1.3', ALPNProtocols: [serviceAlpn.control] },
      (socket: TLSSocket) => {
        socket.on('error', () => socket.destroy());
        let greeted = false;
        readJsonLines(
          socket,
          (message) => {
            if (!greeted) {
              greeted = true;
              writeJsonLine(socket, helloOf('control'));
              return;
            }
            writeJsonLine(socket, { id: (message as { id: number }).id, ok: false, ...refusals.shift() });
          },
          () => socket.destroy(),
        );
      },
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    address = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterEach(() => {
    channel?.destroy();
    channel = undefined;
    refusals = [];
  });

  after(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('keeps a code this Portal knows, with the message, hint and exit code of the answer', async () => {
    refusals = [
      { code: 'TICKET_EXPIRED', message: 'the ticket expired', hint: 'issue a new one', exit: 2 },
      { code: 'RATE_LIMITED', message: 'too many', exit: 1 },
    ];
    channel = await openControlChannel({ controller: address, fingerprint });
    await assert.rejects(channel.request('ping', {}), (error: unknown) => {
      assert.ok(error instanceof InputError);
      assert.equal(error.code, 'TICKET_EXPIRED');
      assert.equal(error.message, 'the ticket expired');
      assert.equal(error.hint, 'issue a new one');
      return true;
    });
    await assert.rejects(channel.request('ping', {}), (error: unknown) => {
      assert.ok(error instanceof RuntimeFailure);
      assert.equal(error.code, 'RATE_LIMITED');
      return true;
    });
  });

  it('turns a code it does not know, or none, into CONTROLLER_ERROR and keeps the message', async () => {
    refusals = [
      { code: 'FROM_A_LATER_VERSION', message: 'something new', exit: 2 },
      { code: 42, message: 'a number' },
      { message: 'no code at all' },
    ];
    channel = await openControlChannel({ controller: address, fingerprint });
    for (const [message, exit] of [
      ['something new', 2],
      ['a number', 1],
      ['no code at all', 1],
    ] as const) {
      await assert.rejects(channel.request('ping', {}), (error: unknown) => {
        assert.ok(error instanceof PortalError);
        assert.equal(error.exitCode, exit);
        assert.equal(error.code, 'CONTROLLER_ERROR');
        assert.equal(error.message, message);
        return true;
      });
    }
  });
});
