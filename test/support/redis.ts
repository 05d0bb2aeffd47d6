/**
 * A real Redis server for tests, speaking TLS only, on loopback, with its own temporary directory and its own test
 * CA: what a cache with in-transit encryption looks like to a `tls: true` outlet.
 *
 *   const redis = await startRedis();   // redis.port (TLS), redis.caFile (trust it to verify the server)
 *   ...
 *   await redis.stop();
 *
 * The server certificate names `localhost`, 127.0.0.1 and ::1, so a client that dials `localhost:<port>` verifies
 * both the chain (with `caFile`) and the name. Nothing is persisted (no RDB, no AOF); clients need no certificate.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort, start, type Running } from './processes.ts';

const execFileAsync = promisify(execFile);

export interface Redis {
  /** The TLS port on 127.0.0.1 (and ::1 where the machine has it); there is no plain-TCP port. */
  readonly port: number;
  /** PEM file of the test CA that signed the server certificate: give it to the client as its trust. */
  readonly caFile: string;
  /** Stops the server (SIGTERM, SIGKILL after 5 s), waits for it to exit, and removes its directory. */
  stop(): Promise<void>;
}

/** Attempts at a free port: Redis cannot take port 0, so another process may take ours in between. */
const portAttempts = 5;

interface Certificates {
  readonly caFile: string;
  readonly certFile: string;
  readonly keyFile: string;
}

/** A test CA and a server certificate it signs for localhost, made with openssl in `dir`. */
async function makeCertificates(dir: string): Promise<Certificates> {
  const file = (name: string) => join(dir, name);
  const p256 = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  await execFileAsync('openssl', [
    'req',
    '-x509',
    ...p256,
    '-days',
    '1',
    '-subj',
    '/CN=Portal test Redis CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
    '-keyout',
    file('ca.key'),
    '-out',
    file('ca.pem'),
  ]);
  await execFileAsync('openssl', [
    'req',
    ...p256,
    '-subj',
    '/CN=localhost',
    '-keyout',
    file('server.key'),
    '-out',
    file('server.csr'),
  ]);
  await writeFile(
    file('server.ext'),
    'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1\nextendedKeyUsage=serverAuth\n',
  );
  await execFileAsync('openssl', [
    'x509',
    '-req',
    '-in',
    file('server.csr'),
    '-CA',
    file('ca.pem'),
    '-CAkey',
    file('ca.key'),
    '-days',
    '1',
    '-extfile',
    file('server.ext'),
    '-out',
    file('server.pem'),
  ]);
  return { caFile: file('ca.pem'), certFile: file('server.pem'), keyFile: file('server.key') };
}

/** redis-server's arguments: TLS only on `port`, loopback only, nothing saved. Paths are absolute (--dir moves it). */
function serverArguments(port: number, certificates: Certificates, dataDir: string): string[] {
  return [
    '--port',
    '0',
    '--tls-port',
    String(port),
    '--tls-cert-file',
    certificates.certFile,
    '--tls-key-file',
    certificates.keyFile,
    '--tls-ca-cert-file',
    certificates.caFile,
    '--tls-auth-clients',
    'no',
    // '-' marks ::1 optional: a machine without IPv6 still starts.
    '--bind',
    '127.0.0.1',
    '-::1',
    '--save',
    '',
    '--appendonly',
    'no',
    '--dir',
    dataDir,
  ];
}

/** Starts Debian's redis-server with TLS only; resolves once it logs that it accepts connections. */
export async function startRedis(): Promise<Redis> {
  const dir = await mkdtemp(join(tmpdir(), 'portal-redis-'));
  try {
    const certificates = await makeCertificates(dir);
    const dataDir = join(dir, 'data');
    await mkdir(dataDir);
    let lastFailure: unknown;
    for (let attempt = 0; attempt < portAttempts; attempt += 1) {
      const port = await freePort();
      const server = start('redis-server', serverArguments(port, certificates, dataDir));
      try {
        await server.waitFor(/Ready to accept connections/, 20_000);
      } catch (error) {
        // A clash on the port ends the server ("Failed listening on port …"): try another one.
        lastFailure = error;
        await server.stop();
        continue;
      }
      return { port, caFile: certificates.caFile, stop: () => stopServer(server, dir) };
    }
    throw lastFailure;
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

async function stopServer(server: Running, dir: string): Promise<void> {
  await server.stop();
  await rm(dir, { recursive: true, force: true });
}
