/** Members of a test project, as an end-to-end session needs them: a key and a certificate its CA issued. */
import { createCertificateRequest, issueCertificate, type Authority } from '../../src/pki/authority.ts';
import { generateKeyPair } from '../../src/pki/keys.ts';
import type { SessionCredentials } from '../../src/wire/e2e-session.ts';

export function sessionMember(
  authority: Authority,
  projectId: string,
  nodeId: string,
  attributes: readonly string[],
): SessionCredentials {
  const keys = generateKeyPair();
  const request = createCertificateRequest(keys.privateKey, keys.publicKey, nodeId);
  const identity = {
    projectId,
    nodeId,
    attributes: [...attributes],
    relays: [],
    admin: false,
    tls: false,
    relayNode: false,
  };
  const certificate = issueCertificate({ authority, request, identity, lifetimeMs: 3600_000, dnsNames: [] });
  return { key: keys.privateKey, certificate, authority: authority.certificate, projectId };
}
