/** The object identifiers and small structures Portal's certificates and requests share. */
import { sign, type KeyObject } from 'node:crypto';
import * as der from './der.ts';

export const Oid = {
  commonName: '2.5.4.3',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  challengePassword: '1.2.840.113549.1.9.7',
  subjectKeyIdentifier: '2.5.29.14',
  keyUsage: '2.5.29.15',
  subjectAltName: '2.5.29.17',
  basicConstraints: '2.5.29.19',
  authorityKeyIdentifier: '2.5.29.35',
  extKeyUsage: '2.5.29.37',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
} as const;

/** An AlgorithmIdentifier with no parameters, as ECDSA's are written. */
export const algorithmIdentifier = (dotted: string) => der.sequence(der.oid(dotted));

/**
 * What certificates and requests are: a body, then ECDSA P-256 with SHA-256 over it by `signingKey`
 * (PKCS#8 PEM, or the key object parsed from it once for many signatures).
 */
export const signedBy = (signingKey: string | KeyObject, body: Buffer) =>
  der.sequence(body, algorithmIdentifier(Oid.ecdsaWithSha256), der.bitString(sign('sha256', body, signingKey)));

/** A Name of one relative name, CN=commonName. */
export const nameWithCommonName = (commonName: string) =>
  der.sequence(der.setOf(der.sequence(der.oid(Oid.commonName), der.directoryString(commonName))));
