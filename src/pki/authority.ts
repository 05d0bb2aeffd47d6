/**
 * The project certificate authority: a self-signed CA per project that signs short-lived node
 * certificates from certificate requests. The node's private key never reaches it: only the request.
 */
import { X509Certificate, createHash, randomBytes } from 'node:crypto';
import { InputError } from '../shared/errors.ts';
import { clockSkewMs, selfSignedLifetimeMs } from '../shared/limits.ts';
import { identityUris, type PeerIdentity } from './identity.ts';
import { generateKeyPair, type KeyPairPem } from './keys.ts';
import type * as X509 from '@peculiar/x509';
import { importPrivateKey, importPublicKey, signingAlgorithm, x509Toolkit } from './x509.ts';

export interface Authority {
  readonly certificate: string;
  readonly privateKey: string;
}

export interface IssueOptions {
  readonly authority: Authority;
  /** PKCS#10 request, PEM, signed by the key to certify. */
  readonly request: string;
  readonly identity: PeerIdentity;
  readonly lifetimeMs: number;
  /** DNS names for a TLS server certificate (inlets that serve TLS). */
  readonly dnsNames?: readonly string[];
  readonly now?: Date;
}

function serialNumber(): string {
  // Positive 64-bit serial: clear the top bit.
  const bytes = randomBytes(8);
  bytes[0] = (bytes[0] as number) & 0x7f;
  return bytes.toString('hex');
}

export async function createAuthority(projectId: string, now = new Date()): Promise<Authority> {
  const x509 = await x509Toolkit();
  const keys: KeyPairPem = generateKeyPair();
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serialNumber(),
    name: `CN=Portal project ${projectId}`,
    notBefore: new Date(now.getTime() - clockSkewMs),
    notAfter: new Date(now.getTime() + selfSignedLifetimeMs),
    signingAlgorithm,
    keys: { privateKey: await importPrivateKey(keys.privateKey), publicKey: await importPublicKey(keys.publicKey) },
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
    ],
  });
  return { certificate: certificate.toString('pem'), privateKey: keys.privateKey };
}

/**
 * A certificate request for `privateKey`, as the node sends it. A `challenge` from the controller goes
 * into the signed part (PKCS#9 challengePassword), so the request proves possession of the key now.
 */
export async function createCertificateRequest(
  privateKey: string,
  publicKey: string,
  commonName: string,
  challenge?: string,
): Promise<string> {
  const x509 = await x509Toolkit();
  const request = await x509.Pkcs10CertificateRequestGenerator.create({
    name: `CN=${commonName}`,
    keys: { privateKey: await importPrivateKey(privateKey), publicKey: await importPublicKey(publicKey) },
    signingAlgorithm,
    ...(challenge === undefined ? {} : { attributes: [new x509.ChallengePasswordAttribute(challenge)] }),
  });
  return request.toString('pem');
}

/** The challenge a request carries in its signed part, if any. */
export async function challengeOf(request: X509.Pkcs10CertificateRequest): Promise<string | undefined> {
  const x509 = await x509Toolkit();
  const attribute = request.attributes.find((candidate) => candidate instanceof x509.ChallengePasswordAttribute);
  return attribute?.password;
}

/** The challenge of a PEM request, read without checking its signature; throws when it does not parse. */
export async function challengeInPem(pem: string): Promise<string | undefined> {
  return challengeOf(new (await x509Toolkit()).Pkcs10CertificateRequest(pem));
}

/** SHA-256 (hex) of a public key's SubjectPublicKeyInfo DER: how the controller remembers a member's key. */
export function publicKeyDigest(spkiDer: ArrayBuffer | Uint8Array): string {
  return createHash('sha256').update(new Uint8Array(spkiDer)).digest('hex');
}

/** Reads and checks a request: it must parse and be signed by the key it carries. */
export async function readCertificateRequest(pem: string): Promise<X509.Pkcs10CertificateRequest> {
  const x509 = await x509Toolkit();
  let request: X509.Pkcs10CertificateRequest;
  try {
    request = new x509.Pkcs10CertificateRequest(pem);
  } catch {
    throw invalidRequest('the certificate request is not a PEM PKCS#10 request');
  }
  if (!(await request.verify())) throw invalidRequest('the certificate request is not signed by its own key');
  return request;
}

/** Nodes make their requests with this module: one that does not read back is a client's bug. */
const invalidRequest = (message: string) =>
  new InputError('REQUEST_INVALID', message, { hint: 'this is a bug in the client: report it' });

export async function issueCertificate(options: IssueOptions): Promise<string> {
  const x509 = await x509Toolkit();
  const now = options.now ?? new Date();
  const request = await readCertificateRequest(options.request);
  const authorityCertificate = new x509.X509Certificate(options.authority.certificate);
  const names: X509.JsonGeneralName[] = [
    ...identityUris(options.identity).map((value) => ({ type: 'url' as const, value })),
    ...(options.dnsNames ?? []).map((value) => ({ type: 'dns' as const, value })),
  ];
  const certificate = await x509.X509CertificateGenerator.create({
    serialNumber: serialNumber(),
    subject: `CN=${options.identity.nodeId}`,
    issuer: authorityCertificate.subject,
    notBefore: new Date(now.getTime() - clockSkewMs),
    notAfter: new Date(now.getTime() + options.lifetimeMs),
    signingAlgorithm,
    publicKey: request.publicKey,
    signingKey: await importPrivateKey(options.authority.privateKey),
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth, x509.ExtendedKeyUsage.clientAuth]),
      new x509.SubjectAlternativeNameExtension(names),
      await x509.AuthorityKeyIdentifierExtension.create(authorityCertificate),
    ],
  });
  return certificate.toString('pem');
}

/** A self-signed TLS certificate for the controller; clients pin it by fingerprint. */
export async function createServerCertificate(
  commonName: string,
  now = new Date(),
): Promise<KeyPairPem & { certificate: string }> {
  const x509 = await x509Toolkit();
  const keys = generateKeyPair();
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serialNumber(),
    name: `CN=${commonName}`,
    notBefore: new Date(now.getTime() - clockSkewMs),
    notAfter: new Date(now.getTime() + selfSignedLifetimeMs),
    signingAlgorithm,
    keys: { privateKey: await importPrivateKey(keys.privateKey), publicKey: await importPublicKey(keys.publicKey) },
    extensions: [new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: commonName }])],
  });
  return { ...keys, certificate: certificate.toString('pem') };
}

/** SHA-256 of the certificate's DER, lower-case hex: what tickets pin. */
export function fingerprintOf(certificatePem: string): string {
  return createHash('sha256').update(new X509Certificate(certificatePem).raw).digest('hex');
}
