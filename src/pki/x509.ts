/**
 * The X.509 toolkit (@peculiar/x509) bound to Node's WebCrypto. Certificates are built here; TLS itself
 * stays with node:tls. The toolkit is loaded on first use: most commands never build a certificate,
 * and loading it (with tsyringe and its reflect polyfill, which must come first) costs a start 0.05 s.
 */
import { webcrypto } from 'node:crypto';

export type X509Toolkit = typeof import('@peculiar/x509');

let loading: Promise<X509Toolkit> | undefined;

export function x509Toolkit(): Promise<X509Toolkit> {
  loading ??= (async () => {
    await import('reflect-metadata');
    const loaded = await import('@peculiar/x509');
    // A CommonJS package: bundled, its exports are the namespace's default; in Node.js, named ones too.
    const x509 = 'cryptoProvider' in loaded ? loaded : (loaded as { default: X509Toolkit }).default;
    // Node's global crypto is its WebCrypto (node:crypto's webcrypto), typed as the Crypto the toolkit takes.
    x509.cryptoProvider.set(globalThis.crypto);
    return x509;
  })();
  return loading;
}

/** ECDSA P-256 with SHA-256: every key and signature in Portal. */
export const signingAlgorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

export async function importPrivateKey(pkcs8Pem: string): Promise<CryptoKey> {
  const der = (await x509Toolkit()).PemConverter.decodeFirst(pkcs8Pem);
  return webcrypto.subtle.importKey('pkcs8', der, signingAlgorithm, false, ['sign']);
}

export async function importPublicKey(spkiPem: string): Promise<CryptoKey> {
  const der = (await x509Toolkit()).PemConverter.decodeFirst(spkiPem);
  return webcrypto.subtle.importKey('spki', der, signingAlgorithm, true, ['verify']);
}
