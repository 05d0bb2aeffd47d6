/** What a TLS server on loopback actually presents: the SHA-256 of its certificate, as nodes pin it. */
import { createHash } from 'node:crypto';
import { connect } from 'node:tls';

export async function servedFingerprint(address: string): Promise<string> {
  const [host, port] = address.split(':') as [string, string];
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port: Number(port), rejectUnauthorized: false, minVersion: 'TLSv1.3' }, () => {
      resolve(createHash('sha256').update(socket.getPeerCertificate().raw).digest('hex'));
      socket.destroy();
    });
    socket.on('error', reject);
  });
}
