/**
 * A real Redis server for tests that speaks TLS only, on loopback: Debian's redis-server with a
 * certificate for localhost signed by a certificate authority made for the test (openssl), so a client
 * that trusts `caFile` verifies it as it would a managed cache. Redis cannot take port 0 for TLS, so it
 * gets a port that was free a moment ago.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, start, type Running } from './processes.ts';

export interface Redis {
  /** The TLS port (the plain port is off). */
  readonly port: number;
  /** The test CA's certificate (PEM file): what a client trusts, such as NODE_EXTRA_CA_CERTS. */
  readonly caFile: string;
  stop(): Promise<void>;
}

/** A CA and a server certificate for localhost (and 127.0.0.1) in `dir`: ca.crt, redis.crt, redis.key. */
async function makeCertificates(dir: string): Promise<void> {
  const openssl = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const ecKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  openssl([
    ...['req', '-x509', ...ecKey, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '1'],
    ...['-subj', '/CN=Portal test CA for Redis'],
    ...['-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'],
  ]);
  openssl(['req', ...ecKey, '-keyout', 'redis.key', '-out', 'redis.csr', '-subj', '/CN=localhost']);
  await writeFile(
    join(dir, 'redis.ext'),
    'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n',
  );
  openssl([
    ...['x509', '-req', '-in', 'redis.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial'],
    ...['-out', 'redis.crt', '-days', '1', '-extfile', 'redis.ext'],
  ]);
}

export async function startRedis(): Promise<Redis> {
  const dir = await mkdtemp(join(tmpdir(), 'portal-redis-'));
  await makeCertificates(dir);
  let server: Running | undefined;
  let port = 0;
  for (let attempt = 0; attempt < 5 && !server; attempt += 1) {
    port = await freePort();
    const candidate = start('redis-server', [
      ...['--port', '0', '--tls-port', String(port), '--bind', '127.0.0.1'],
      ...['--tls-cert-file', join(dir, 'redis.crt'), '--tls-key-file', join(dir, 'redis.key')],
      // Clients are not asked for a certificate: the outlet verifies the server, as with a managed cache.
      ...['--tls-ca-cert-file', join(dir, 'ca.crt'), '--tls-auth-clients', 'no'],
      ...['--dir', dir, '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--logfile', ''],
    ]);
    try {
      await candidate.waitFor(/Ready to accept connections/, 20_000);
      server = candidate;
    } catch {
      await candidate.stop();
    }
  }
  if (!server) throw new Error('redis-server did not start with TLS (Debian package redis-server)');
  const running = server;
  return {
    port,
    caFile: join(dir, 'ca.crt'),
    async stop() {
      await running.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
