/**
 * PKCS#10 certificate requests (RFC 2986) as Portal makes and reads them: an ECDSA P-256 key, a common
 * name, and optionally the controller's challenge as a challengePassword attribute inside the signed
 * part. A request arrives from a peer not yet trusted, so reading checks every element it relies on.
 */
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import * as der from './der.ts';
import { spkiOf } from './keys.ts';
import { Oid, nameWithCommonName, signedBy } from './x509-names.ts';

export interface ReadRequest {
  /** The requested key as SubjectPublicKeyInfo DER, in its one canonical form. */
  readonly publicKey: Buffer;
  readonly challenge: string | undefined;
}

export function createRequest(privateKeyPem: string, publicKeyPem: string, commonName: string, challenge?: string) {
  const spki = spkiOf(publicKeyPem);
  const attributes =
    challenge === undefined
      ? []
      : [der.sequence(der.oid(Oid.challengePassword), der.setOf(der.directoryString(challenge)))];
  const info = der.sequence(
    der.smallInteger(0),
    nameWithCommonName(commonName),
    spki,
    // attributes [0] IMPLICIT SET OF Attribute
    der.element(0xa0, Buffer.concat(attributes)),
  );
  return der.toPem(signedBy(privateKeyPem, info), 'CERTIFICATE REQUEST');
}

export class RequestUnreadable extends Error {}
export class RequestNotSelfSigned extends Error {}

/** Reads a PEM request: RequestUnreadable when it is not one, RequestNotSelfSigned when its own key did not sign it. */
export function readRequest(pem: string, options: { checkSignature: boolean }): ReadRequest {
  const parts = partsOf(pem);
  let key: KeyObject;
  try {
    key = keyOf(parts.spki);
  } catch (error) {
    throw new RequestUnreadable(error instanceof Error ? error.message : 'unreadable');
  }
  if (options.checkSignature && !verify('sha256', parts.info, key, parts.signature))
    throw new RequestNotSelfSigned('not signed by its own key');
  return { publicKey: key.export({ type: 'spki', format: 'der' }), challenge: parts.challenge };
}

/**
 * Reads a request for the key whose SubjectPublicKeyInfo digest is `keyDigest` (a key certified
 * before, whose holder has just proven it holds it, as a member does in its TLS handshake): its key's
 * bytes are compared with the known key's, not imported and checked again, and its signature, which
 * would prove what the handshake proved, is not checked. Undefined when the request is for another key
 * or in a form other than the canonical one; RequestUnreadable when it is not a request.
 */
export function readRequestOfKnownKey(
  pem: string,
  keyDigest: string,
  digestOf: (spki: Buffer) => string,
): ReadRequest | undefined {
  const parts = partsOf(pem);
  return digestOf(parts.spki) === keyDigest ? { publicKey: parts.spki, challenge: parts.challenge } : undefined;
}

/** The parts of a PEM request, its structure checked; its key not yet imported. */
function partsOf(pem: string): { info: Buffer; spki: Buffer; challenge: string | undefined; signature: Buffer } {
  const bytes = der.fromPem(pem, 'CERTIFICATE REQUEST');
  if (!bytes) throw new RequestUnreadable('not PEM');
  try {
    return parse(bytes);
  } catch (error) {
    throw new RequestUnreadable(error instanceof Error ? error.message : 'unreadable');
  }
}

function parse(bytes: Buffer) {
  const outer = der.expect(bytes, 0, der.Tag.sequence);
  const [info, algorithm, signature, ...extra] = der.children(bytes, outer);
  if (!info || !algorithm || !signature || extra.length > 0) throw new der.DerError('not a request');
  if (info.tag !== der.Tag.sequence || signature.tag !== der.Tag.bitString) throw new der.DerError('not a request');
  const [algorithmOid] = der.children(bytes, der.expect(bytes, algorithm.start, der.Tag.sequence));
  if (
    !algorithmOid ||
    algorithmOid.tag !== der.Tag.oid ||
    der.oidText(der.contentOf(bytes, algorithmOid)) !== Oid.ecdsaWithSha256
  )
    throw new der.DerError('not signed with ECDSA and SHA-256');
  const bits = der.contentOf(bytes, signature);
  if (bits[0] !== 0) throw new der.DerError('signature of partial bytes');

  const [version, , spki, attributes] = der.children(bytes, info);
  if (!version || !spki || !attributes) throw new der.DerError('request info incomplete');
  if (version.tag !== der.Tag.integer || !der.contentOf(bytes, version).equals(Buffer.from([0])))
    throw new der.DerError('not a version 1 request');
  if (spki.tag !== der.Tag.sequence || attributes.tag !== 0xa0) throw new der.DerError('request info malformed');
  return {
    info: der.bytesOf(bytes, info),
    spki: der.bytesOf(bytes, spki),
    challenge: challengeIn(bytes, attributes),
    signature: bits.subarray(1),
  };
}

/** The requested key, imported: it must be an ECDSA P-256 key. */
function keyOf(spki: Buffer): KeyObject {
  const key = createPublicKey({ key: spki, format: 'der', type: 'spki' });
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1')
    throw new der.DerError('not an ECDSA P-256 key');
  return key;
}

const stringTags: readonly number[] = [der.Tag.printableString, der.Tag.utf8String, der.Tag.ia5String];

function challengeIn(bytes: Buffer, attributes: der.Element): string | undefined {
  for (const attribute of der.children(bytes, attributes)) {
    const [type, values] = der.children(bytes, der.expect(bytes, attribute.start, der.Tag.sequence, attributes.end));
    if (type?.tag !== der.Tag.oid || der.oidText(der.contentOf(bytes, type)) !== Oid.challengePassword) continue;
    if (values?.tag !== der.Tag.set) throw new der.DerError('challenge malformed');
    const [value] = der.children(bytes, values);
    if (!value || !stringTags.includes(value.tag)) throw new der.DerError('challenge is not a string');
    return der.contentOf(bytes, value).toString('utf8');
  }
  return undefined;
}
