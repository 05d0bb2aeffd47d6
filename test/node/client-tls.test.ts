import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, createServer, type Socket } from 'node:net';
import { ClientTls } from '../../src/node/client-tls.ts';
import { createServerCertificate } from '../../src/pki/authority.ts';
import { HandshakeFailed } from '../../src/wire/tls-contexts.ts';

describe("a TLS inlet's handshake with its clients", () => {
  let clientTls: ClientTls;

  before(() => {
    const tls = createServerCertificate('inlet.example');
    clientTls = new ClientTls(() => ({
      key: tls.privateKey,
      certificate: tls.certificate,
      authority: tls.certificate,
      projectId: 'client-tls',
    }));
  });

  /** The inlet's end of a loopback connection whose client `behave` drives. */
  async function handshakeWith(behave: (client: Socket) => void, timeoutMs: number): Promise<unknown> {
    const listener = createServer();
    listener.listen(0, '127.0.0.1');
    await once(listener, 'listening');
    try {
      const accepted = once(listener, 'connection') as Promise<[Socket]>;
      const client = connect({ host: '127.0.0.1', port: (listener.address() as { port: number }).port });
      client.on('error', () => client.destroy());
      const [raw] = await accepted;
      behave(client);
      const outcome = await clientTls.accept(raw, timeoutMs).then(
        (socket) => socket.destroy(),
        (error: unknown) => error,
      );
      client.destroy();
      return outcome;
    } finally {
      listener.close();
    }
  }

  it('fails with TLS_HANDSHAKE_FAILED when the client leaves, or says nothing in time', async () => {
    const left = await handshakeWith((client) => client.destroy(), 5000);
    assert.ok(left instanceof HandshakeFailed);
    assert.equal(left.code, 'TLS_HANDSHAKE_FAILED');
    assert.equal(left.message, 'the client left during the TLS handshake');

    const silent = await handshakeWith(() => undefined, 100);
    assert.ok(silent instanceof HandshakeFailed);
    assert.equal(silent.message, 'the client did not finish the TLS handshake in time');

    const garbage = await handshakeWith((client) => client.write('GET / HTTP/1.1\r\n\r\n'), 5000);
    assert.ok(garbage instanceof HandshakeFailed);
    assert.ok(garbage.cause instanceof Error, 'the TLS error is kept as the cause');
  });
});
