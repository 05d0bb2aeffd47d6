/**
 * TLS from a `tls: true` outlet to its target: the name the outlet dials is sent as SNI and checked
 * against the target's certificate, which must chain to the system's trust store, Node's own roots or
 * a certificate in NODE_EXTRA_CA_CERTS.
 */
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { connect, rootCertificates, type ConnectionOptions, type TLSSocket } from 'node:tls';
import { withSocketTuning } from '../shared/socket-tuning.ts';

/** Where Debian, Ubuntu, Alpine and Amazon Linux keep the system bundle, SSL_CERT_FILE first. */
const systemBundles = ['/etc/ssl/certs/ca-certificates.crt', '/etc/pki/tls/certs/ca-bundle.crt', '/etc/ssl/cert.pem'];

let trust: { readonly from: string; readonly anchors: string[] } | undefined;

function readIfPresent(path: string | undefined): string | undefined {
  if (!path) return undefined;
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** The trust anchors for targets, read again only when the variables that name them change. */
export function targetTrust(): string[] {
  const from = `${process.env.SSL_CERT_FILE ?? ''}|${process.env.NODE_EXTRA_CA_CERTS ?? ''}`;
  if (trust?.from !== from) {
    const system = [process.env.SSL_CERT_FILE, ...systemBundles]
      .map(readIfPresent)
      .find((bundle) => bundle !== undefined);
    const extra = readIfPresent(process.env.NODE_EXTRA_CA_CERTS);
    trust = { from, anchors: [...rootCertificates, ...(system ? [system] : []), ...(extra ? [extra] : [])] };
  }
  return trust.anchors;
}

export function connectTargetTls(host: string, port: number, highWaterMark: number): TLSSocket {
  const options: ConnectionOptions = {
    host,
    port,
    ...(isIP(host) === 0 ? { servername: host } : {}),
    ca: targetTrust(),
    minVersion: 'TLSv1.2',
    rejectUnauthorized: true,
  };
  return connect(withSocketTuning(options, { allowHalfOpen: true, noDelay: true, highWaterMark }));
}
