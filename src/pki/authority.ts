/**
 * The project certificate authority: a self-signed CA per project that signs short-lived node
 * certificates from certificate requests. The node's private key never reaches it: only the request.
 */
import { X509Certificate, createHash, createPrivateKey, type KeyObject } from 'node:crypto';
import { InputError } from '../shared/errors.ts';
import { clockSkewMs, selfSignedLifetimeMs } from '../shared/limits.ts';
import { buildCertificate, issuerOf, keyIdentifier, type Extension, type Issuer } from './certificate-builder.ts';
import * as der from './der.ts';
import { identityUris, type PeerIdentity } from './identity.ts';
import { generateKeyPair, spkiOf, type KeyPairPem } from './keys.ts';
import { RequestNotSelfSigned, createRequest, readRequest, type ReadRequest } from './pkcs10.ts';
import { Oid, nameWithCommonName } from './x509-names.ts';

export interface Authority {
  readonly certificate: string;
  readonly privateKey: string;
}

/**
 * An authority with what signing needs read once, for a controller that signs many certificates: its
 * key object, its name and key identifier, and its certificate parsed.
 */
export interface PreparedAuthority extends Authority {
  readonly signingKey: KeyObject;
  readonly issuer: Issuer;
  readonly parsed: X509Certificate;
}

export function prepareAuthority(authority: Authority): PreparedAuthority {
  return {
    ...authority,
    signingKey: createPrivateKey(authority.privateKey),
    issuer: issuerOf(authority.certificate),
    parsed: new X509Certificate(authority.certificate),
  };
}

const isPrepared = (authority: Authority | PreparedAuthority): authority is PreparedAuthority =>
  'signingKey' in authority;

/**
 * When a certificate issued at `now` for `lifetimeMs` expires, as it says: its times are written in
 * whole seconds.
 */
export const issuedExpiry = (now: Date, lifetimeMs: number): number =>
  Math.floor((now.getTime() + lifetimeMs) / 1000) * 1000;

export interface IssueOptions {
  readonly authority: Authority | PreparedAuthority;
  /** PKCS#10 request, PEM, signed by the key to certify; or the request as readCertificateRequest read it. */
  readonly request: string | ReadRequest;
  readonly identity: PeerIdentity;
  readonly lifetimeMs: number;
  /** DNS names for a TLS server certificate (inlets that serve TLS). */
  readonly dnsNames?: readonly string[];
  readonly now?: Date;
}

const extension = (oid: string, critical: boolean, value: Buffer): Extension => ({ oid, critical, value });

/** SubjectAltName of URIs and DNS names ([6] and [2] IA5String). */
const alternativeNames = (uris: readonly string[], dnsNames: readonly string[]) =>
  extension(
    Oid.subjectAltName,
    false,
    der.sequence(
      ...uris.map((uri) => der.element(0x86, Buffer.from(uri, 'ascii'))),
      ...dnsNames.map((name) => der.element(0x82, Buffer.from(name, 'ascii'))),
    ),
  );

/** A self-signed certificate for a new key: a project's CA or the controller's TLS server. */
function selfSigned(commonName: string, extensions: (spki: Buffer) => Extension[], now: Date) {
  const keys = generateKeyPair();
  const name = nameWithCommonName(commonName);
  const publicKey = spkiOf(keys.publicKey);
  const certificate = buildCertificate({
    issuer: name,
    subject: name,
    notBefore: new Date(now.getTime() - clockSkewMs),
    notAfter: new Date(now.getTime() + selfSignedLifetimeMs),
    publicKey,
    extensions: extensions(publicKey),
    signingKey: keys.privateKey,
  });
  return { ...keys, certificate };
}

export function createAuthority(projectId: string, now = new Date()): Authority {
  const { certificate, privateKey } = selfSigned(
    `Portal project ${projectId}`,
    (publicKey) => [
      extension(Oid.basicConstraints, true, der.sequence(der.boolean(true), der.smallInteger(0))),
      // keyCertSign (5), cRLSign (6)
      extension(Oid.keyUsage, true, der.namedBits([5, 6])),
      extension(Oid.subjectKeyIdentifier, false, der.octetString(keyIdentifier(publicKey))),
    ],
    now,
  );
  return { certificate, privateKey };
}

/**
 * A certificate request for `privateKey`, as the node sends it. A `challenge` from the controller goes
 * into the signed part (PKCS#9 challengePassword), so the request proves possession of the key now.
 */
export function createCertificateRequest(
  privateKey: string,
  publicKey: string,
  commonName: string,
  challenge?: string,
): string {
  return createRequest(privateKey, publicKey, commonName, challenge);
}

/** The challenge of a PEM request, read without checking its signature; throws when it does not parse. */
export function challengeInPem(pem: string): string | undefined {
  return readRequest(pem, { checkSignature: false }).challenge;
}

/** SHA-256 (hex) of a public key's SubjectPublicKeyInfo DER: how the controller remembers a member's key. */
export function publicKeyDigest(spkiDer: ArrayBuffer | Uint8Array): string {
  return createHash('sha256').update(new Uint8Array(spkiDer)).digest('hex');
}

/** Reads and checks a request: it must parse and be signed by the key it carries. */
export function readCertificateRequest(pem: string): ReadRequest {
  try {
    return readRequest(pem, { checkSignature: true });
  } catch (error) {
    if (error instanceof RequestNotSelfSigned)
      throw invalidRequest('the certificate request is not signed by its own key');
    throw invalidRequest('the certificate request is not a PEM PKCS#10 request');
  }
}

/** Nodes make their requests with this module: one that does not read back is a client's bug. */
const invalidRequest = (message: string) =>
  new InputError('REQUEST_INVALID', message, { hint: 'this is a bug in the client: report it' });

export function issueCertificate(options: IssueOptions): string {
  const now = options.now ?? new Date();
  const { authority } = options;
  const request = typeof options.request === 'string' ? readCertificateRequest(options.request) : options.request;
  const issuer = isPrepared(authority) ? authority.issuer : issuerOf(authority.certificate);
  return buildCertificate({
    issuer: issuer.subject,
    subject: nameWithCommonName(options.identity.nodeId),
    notBefore: new Date(now.getTime() - clockSkewMs),
    notAfter: new Date(now.getTime() + options.lifetimeMs),
    publicKey: request.publicKey,
    signingKey: isPrepared(authority) ? authority.signingKey : authority.privateKey,
    extensions: [
      extension(Oid.basicConstraints, true, der.sequence()),
      // digitalSignature (0)
      extension(Oid.keyUsage, true, der.namedBits([0])),
      extension(Oid.extKeyUsage, false, der.sequence(der.oid(Oid.serverAuth), der.oid(Oid.clientAuth))),
      alternativeNames(identityUris(options.identity), options.dnsNames ?? []),
      // keyIdentifier [0] IMPLICIT
      extension(Oid.authorityKeyIdentifier, false, der.sequence(der.element(0x80, issuer.keyIdentifier))),
    ],
  });
}

/** A self-signed TLS certificate for the controller; clients pin it by fingerprint. */
export function createServerCertificate(commonName: string, now = new Date()): KeyPairPem & { certificate: string } {
  return selfSigned(commonName, () => [alternativeNames([], [commonName])], now);
}

/** SHA-256 of the certificate's DER, lower-case hex: what tickets pin. */
export function fingerprintOf(certificatePem: string): string {
  return createHash('sha256').update(new X509Certificate(certificatePem).raw).digest('hex');
}
