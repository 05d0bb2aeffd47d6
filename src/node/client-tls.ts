/**
 * TLS for the clients of a `tls: true` inlet: the handshake ends at the inlet, with the node's own key
 * and its project-signed certificate for `*.<project>.<network domain>` (granted by a `--tls` ticket),
 * and the decrypted bytes travel on through the end-to-end channel. The certificate changes at every
 * renewal; each handshake uses the current one.
 */
import type { Socket } from 'node:net';
import { TLSSocket, createSecureContext, type SecureContext } from 'node:tls';
import type { SessionCredentials } from '../wire/e2e-session.ts';
import { HandshakeFailed } from '../wire/tls-contexts.ts';
import { clientTlsTimeoutMs } from './limits.ts';

export class ClientTls {
  private context: { certificate: string; secure: SecureContext } | undefined;

  constructor(private readonly credentials: () => SessionCredentials) {}

  /** Completes the handshake with a client; rejects when it fails or takes longer than `timeoutMs`. */
  accept(raw: Socket, timeoutMs = clientTlsTimeoutMs): Promise<TLSSocket> {
    const socket = new TLSSocket(raw, {
      isServer: true,
      secureContext: this.secureContext(),
      ALPNProtocols: ['http/1.1'],
    });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => fail(new HandshakeFailed('the client did not finish the TLS handshake in time')),
        timeoutMs,
      );
      const onClose = () => fail(new HandshakeFailed('the client left during the TLS handshake'));
      const onError = (error: Error) => fail(new HandshakeFailed(error.message, error));
      function fail(error: HandshakeFailed) {
        clearTimeout(timer);
        socket.off('close', onClose);
        socket.destroy();
        reject(error);
      }
      socket.once('error', onError);
      socket.once('close', onClose);
      socket.once('secure', () => {
        clearTimeout(timer);
        socket.off('error', onError);
        socket.off('close', onClose);
        // Never without a listener: the inlet adds its own once it takes the socket.
        socket.on('error', () => socket.destroy());
        resolve(socket);
      });
    });
  }

  private secureContext(): SecureContext {
    const { key, certificate } = this.credentials();
    if (this.context?.certificate !== certificate) {
      // No CA (`ca: []`): clients show no certificate, so Node.js's public roots need not be loaded.
      const secure = createSecureContext({ key, cert: certificate, ca: [], minVersion: 'TLSv1.2' });
      this.context = { certificate, secure };
    }
    return this.context.secure;
  }
}
