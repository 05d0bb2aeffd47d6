/**
 * A bare TCP proxy in Node.js, the runtime floor of the benchmark: it accepts a connection, connects
 * to the next hop and pipes bytes both ways, with nothing else. A chain of as many as a Portal path has
 * processes (two for the direct path, three with a relay) shows what Node.js alone costs there.
 *
 * Usage: node-proxy.ts NEXT_PORT [MODE [CERTIFICATE_FILE]], MODE one of
 * - `plain` (the default): TCP in, TCP out, no TLS: the floor the targets are judged against;
 * - `tls-out`: TCP in, TLS 1.3 out (AES-128-GCM, as Portal's sessions), checked against the certificate;
 * - `tls-in`: TLS 1.3 in, with the certificate and its key (the file holds both), TCP out.
 * `tls-out` then `tls-in` (with a `plain` proxy between them for a relay, which sees only records) is
 * the TLS floor: what Node.js's own TLS adds to a tunnel of that many processes, before any framing.
 * Prints `proxy listening PORT`.
 */
import { readFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { connect as connectTls, createServer as createTlsServer } from 'node:tls';
import { dataPathCipherSuites } from '../../src/shared/socket-tuning.ts';

const next = Number(process.argv[2]);
const mode = process.argv[3] ?? 'plain';
const pem = process.argv[4] ? readFileSync(process.argv[4], 'utf8') : '';
const certificate = pem.match(/-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/)?.[0] ?? '';
const tls = { minVersion: 'TLSv1.3', ciphersuites: dataPathCipherSuites } as const;

function upstream(): Socket {
  if (mode !== 'tls-out') return connect({ host: '127.0.0.1', port: next, noDelay: true });
  const socket = connectTls({
    ...tls,
    host: '127.0.0.1',
    port: next,
    ca: certificate,
    // The certificate is pinned as the only authority; its name is the bench's own.
    checkServerIdentity: () => undefined,
  });
  socket.setNoDelay(true);
  return socket;
}

function carry(client: Socket): void {
  client.setNoDelay(true);
  const onward = upstream();
  client.pipe(onward);
  onward.pipe(client);
  client.on('error', () => onward.destroy());
  onward.on('error', () => client.destroy());
}

const server =
  mode === 'tls-in' ? createTlsServer({ ...tls, key: pem, cert: certificate }, carry) : createServer(carry);
server.maxConnections = Number.MAX_SAFE_INTEGER;
server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, () =>
  console.log(`proxy listening ${(server.address() as AddressInfo).port}`),
);
process.on('SIGTERM', () => process.exit(0));
