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

export function publicKeyOf(privateKeyPem: string): string {
  return createPublicKey(createPrivateKey(privateKeyPem)).export({ type: 'spki', format: 'pem' }).toString();
}
