/** Key pairs are made where they are used: a node's private key is generated on the node and never sent. */
import { createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';

export interface KeyPairPem {
  /** PKCS#8 PEM. */
  readonly privateKey: string;
  /** SPKI PEM. */
  readonly publicKey: string;
}

export function generateKeyPair(): KeyPairPem {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

/** A public key's SubjectPublicKeyInfo DER, in its one canonical form. */
export function spkiOf(publicKeyPem: string): Buffer {
  return createPublicKey(publicKeyPem).export({ type: 'spki', format: 'der' });
}

export function publicKeyOf(privateKeyPem: string): string {
  return createPublicKey(createPrivateKey(privateKeyPem)).export({ type: 'spki', format: 'pem' }).toString();
}
