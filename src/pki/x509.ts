/**
 * The X.509 toolkit (@peculiar/x509) bound to Node's WebCrypto. Certificates are built here; TLS itself
 * stays with node:tls. tsyringe, which the toolkit uses, needs the reflect polyfill loaded first.
 */
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { webcrypto } from 'node:crypto';

// Node's global crypto is its WebCrypto (node:crypto's webcrypto), typed as the Crypto the toolkit takes.
x509.cryptoProvider.set(globalThis.crypto);

export { x509 };

/** ECDSA P-256 with SHA-256: every key and signature in Portal. */
export const signingAlgorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

export async function importPrivateKey(pkcs8Pem: string): Promise<CryptoKey> {
  const der = x509.PemConverter.decodeFirst(pkcs8Pem);
  return webcrypto.subtle.importKey('pkcs8', der, signingAlgorithm, false, ['sign']);
}

export async function importPublicKey(spkiPem: string): Promise<CryptoKey> {
  const der = x509.PemConverter.decodeFirst(spkiPem);
  return webcrypto.subtle.importKey('spki', der, signingAlgorithm, true, ['verify']);
}
