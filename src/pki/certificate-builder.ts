/**
 * X.509 v3 certificates (RFC 5280) built and signed with node:crypto: the to-be-signed part in DER,
 * signed ECDSA P-256 with SHA-256. Also what an issuer's certificate must give the certificates it
 * signs: its subject, as its own bytes, and its key identifier.
 */
import { X509Certificate, createHash, randomBytes, type KeyObject } from 'node:crypto';
import * as der from './der.ts';
import { Oid, algorithmIdentifier, signedBy } from './x509-names.ts';

export interface Extension {
  readonly oid: string;
  readonly critical: boolean;
  /** The extension's value, DER: what its OCTET STRING holds. */
  readonly value: Buffer;
}

export interface CertificateParts {
  /** Name DER. */
  readonly issuer: Buffer;
  readonly subject: Buffer;
  readonly notBefore: Date;
  readonly notAfter: Date;
  /** SubjectPublicKeyInfo DER of the certified key. */
  readonly publicKey: Buffer;
  readonly extensions: readonly Extension[];
  /** The key that signs, the issuer's: PKCS#8 PEM, or its key object. */
  readonly signingKey: string | KeyObject;
}

/** Positive, 63 random bits: unpredictable, as CAs' serials should be. */
function serialNumber(): Buffer {
  const bytes = randomBytes(8);
  bytes[0] = ((bytes[0] as number) & 0x7f) | 0x40;
  return bytes;
}

export function buildCertificate(parts: CertificateParts): string {
  const extensions = parts.extensions.map((extension) =>
    der.sequence(
      der.oid(extension.oid),
      ...(extension.critical ? [der.boolean(true)] : []),
      der.octetString(extension.value),
    ),
  );
  const tbs = der.sequence(
    der.explicit(0, der.smallInteger(2)),
    der.unsignedInteger(serialNumber()),
    algorithmIdentifier(Oid.ecdsaWithSha256),
    parts.issuer,
    der.sequence(der.time(parts.notBefore), der.time(parts.notAfter)),
    parts.subject,
    parts.publicKey,
    der.explicit(3, der.sequence(...extensions)),
  );
  return der.toPem(signedBy(parts.signingKey, tbs), 'CERTIFICATE');
}

/** RFC 5280's key identifier, method 1: SHA-1 of the subjectPublicKey bits. */
export function keyIdentifier(spki: Buffer): Buffer {
  const outer = der.expect(spki, 0, der.Tag.sequence);
  const [, bits] = der.children(spki, outer);
  if (bits?.tag !== der.Tag.bitString) throw new der.DerError('not a SubjectPublicKeyInfo');
  return createHash('sha1').update(der.contentOf(spki, bits).subarray(1)).digest();
}

export interface Issuer {
  /** The issuer's subject, byte for byte: the issuer name of what it signs. */
  readonly subject: Buffer;
  /** Its subject key identifier, or one computed from its key when it carries none. */
  readonly keyIdentifier: Buffer;
}

/** What a certificate gives the certificates it signs. */
export function issuerOf(certificatePem: string): Issuer {
  const bytes = Buffer.from(new X509Certificate(certificatePem).raw);
  const certificate = der.expect(bytes, 0, der.Tag.sequence);
  const [tbs] = der.children(bytes, certificate);
  if (tbs?.tag !== der.Tag.sequence) throw new der.DerError('not a certificate');
  const fields = der.children(bytes, tbs);
  // version [0], serialNumber, signature, issuer, validity, subject, subjectPublicKeyInfo, …, extensions [3]
  const offset = fields[0]?.tag === 0xa0 ? 1 : 0;
  const subject = fields[offset + 4];
  const spki = fields[offset + 5];
  if (!subject || !spki) throw new der.DerError('certificate incomplete');
  const extensions = fields.find((field) => field.tag === 0xa3);
  const stated = extensions ? subjectKeyIdentifierIn(bytes, extensions) : undefined;
  return {
    subject: Buffer.from(der.bytesOf(bytes, subject)),
    keyIdentifier: stated ?? keyIdentifier(Buffer.from(der.bytesOf(bytes, spki))),
  };
}

function subjectKeyIdentifierIn(bytes: Buffer, extensions: der.Element): Buffer | undefined {
  const [list] = der.children(bytes, extensions);
  if (!list) return undefined;
  for (const extension of der.children(bytes, list)) {
    const fields = der.children(bytes, extension);
    const [type] = fields;
    const value = fields.at(-1);
    if (type?.tag !== der.Tag.oid || der.oidText(der.contentOf(bytes, type)) !== Oid.subjectKeyIdentifier) continue;
    if (value?.tag !== der.Tag.octetString) return undefined;
    const inner = der.contentOf(bytes, value);
    return Buffer.from(der.contentOf(inner, der.expect(inner, 0, der.Tag.octetString)));
  }
  return undefined;
}
