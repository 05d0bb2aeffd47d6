/** Whether a peer's certificate proves a member of a project: issued by its CA, valid now, naming it. */
import { X509Certificate } from 'node:crypto';
import { identityOf, type PeerIdentity } from './identity.ts';

/** The member `certificate` proves, or undefined when it does not chain to `authority` or is not valid at `now`. */
export function verifyMember(
  certificate: X509Certificate | undefined,
  authority: X509Certificate,
  now = Date.now(),
): PeerIdentity | undefined {
  if (!certificate) return undefined;
  const identity = identityOf(certificate);
  if (!identity) return undefined;
  const valid = Date.parse(certificate.validFrom) <= now && now < Date.parse(certificate.validTo);
  return valid && certificate.checkIssued(authority) && certificate.verify(authority.publicKey) ? identity : undefined;
}
