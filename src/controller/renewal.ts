/**
 * A member's next certificate: renewed while its certificate is valid, re-issued once it expired (say,
 * during a controller outage) against a one-time challenge, always for the key it enrolled with and
 * from what the store says it is.
 */
import { X509Certificate } from 'node:crypto';
import { challengeInPem, publicKeyDigest } from '../pki/authority.ts';
import { identityOf, type PeerIdentity } from '../pki/identity.ts';
import { RuntimeFailure } from '../shared/errors.ts';
import { RateLimiter } from '../shared/rate-limiter.ts';
import type { EnrollmentAnswer as Enrollment } from '../wire/protocol.ts';
import type { AuditTrail } from './audit-trail.ts';
import { certificateExpiry } from './audit-events.ts';
import { notAMember, reissueRefused, type MemberCertificates } from './member-certificates.ts';
import { ChallengeBook, reissueLimits } from './reissue.ts';
import { memberRevoked, type Revocations } from './revocations.ts';
import type { Store } from './store/open.ts';

export class Renewals {
  private readonly challenges = new ChallengeBook();
  // Timed by the `now` each call passes (Date.now() unless a test gives another).
  private readonly challengesPerSource = new RateLimiter(
    reissueLimits.perSource.perSecond,
    reissueLimits.perSource.burst,
    reissueLimits.sourcesRemembered,
  );
  private readonly challengesOverall = new RateLimiter(reissueLimits.overall.perSecond, reissueLimits.overall.burst);

  constructor(
    private readonly store: Store,
    private readonly certificates: MemberCertificates,
    private readonly revocations: Revocations,
    private readonly audit: AuditTrail,
  ) {}

  /**
   * A fresh certificate for a member authenticated by a valid certificate, for the key it enrolled
   * with, from what the store says it is (not what it claims).
   */
  async renew(peer: PeerIdentity, request: string, now = Date.now()): Promise<Enrollment> {
    const { member, read } = await this.certificates.memberRequest(peer.projectId, peer.nodeId, request);
    const renewed = await this.certificates.certify(member, read, now);
    await this.audit.record(member.projectId, 'renewed', [member.nodeId], {
      expires_at: new Date(this.certificates.expiryOf(now)).toISOString(),
    });
    return renewed;
  }

  /**
   * A one-time challenge for re-issuing an expired certificate, to a request from `source` (an IPv4
   * address or an IPv6 /64, as sourceKeyOf gives it). Anyone may ask, so this is where the re-issue
   * path is rate-limited: per source first, then overall (which bounds the signature checks that
   * anonymous peers can cause, whatever names they give).
   */
  reissueChallenge(source: string, now = Date.now()): { challenge: string } {
    if (!this.challengesPerSource.take(source, now) || !this.challengesOverall.take('', now)) {
      throw new RuntimeFailure('RATE_LIMITED', 'too many re-issue requests; try again in a few seconds', {
        hint: 'the node retries by itself',
      });
    }
    return { challenge: this.challenges.issue(now) };
  }

  /**
   * A new certificate for a member whose certificate expired (during a controller outage, say). The
   * expired certificate must chain to the project's CA; the request must be signed by the same key,
   * which must be the key the member enrolled with, and carry a challenge from reissueChallenge; the
   * member must not have been removed. Cheap checks come first: the challenge, then the store, then
   * the two signatures. An expired certificate authenticates nothing else.
   */
  async reissue(certificatePem: string, request: string, now = Date.now()): Promise<Enrollment> {
    let parsed: { certificate: X509Certificate; identity: PeerIdentity; challenge: string | undefined };
    try {
      const certificate = new X509Certificate(certificatePem);
      const identity = identityOf(certificate);
      if (!identity) throw new Error('not a Portal certificate');
      parsed = { certificate, identity, challenge: challengeInPem(request) };
    } catch {
      throw reissueRefused('the expired certificate or the request cannot be read');
    }
    if (parsed.challenge === undefined || !this.challenges.redeem(parsed.challenge, now)) {
      throw new RuntimeFailure(
        'CHALLENGE_UNKNOWN',
        'the re-issue request carries no fresh challenge from this controller',
        { hint: 'ask for a new challenge (the node does so by itself)' },
      );
    }
    const { projectId, nodeId } = parsed.identity;
    // Refusals of a member this project knows go to its trail; a stranger's names no project of ours.
    const refused = (error: unknown): never => {
      const reason = error instanceof Error ? error.message.slice(0, 200) : 'refused';
      this.audit.tally(projectId, 'reissue-refused', [nodeId], { reason });
      throw error;
    };
    const certificateKey = publicKeyDigest(parsed.certificate.publicKey.export({ type: 'spki', format: 'der' }));
    const known = await this.store
      .selectFrom('members')
      .select(['project_id', 'public_key_sha256'])
      .where('node_id', '=', parsed.identity.nodeId)
      .executeTakeFirst();
    if (!known || known.project_id !== parsed.identity.projectId) throw notAMember();
    // Refused before the signatures are checked: a revoked member costs the controller nothing more.
    if (await this.revocations.isRevoked(parsed.identity.nodeId)) throw memberRevoked(parsed.identity.nodeId);
    if (known.public_key_sha256 !== null && known.public_key_sha256 !== certificateKey)
      return refused(reissueRefused('the certificate is not for the key this member enrolled with'));
    const authority = await this.certificates.authorityOf(parsed.identity.projectId).catch(() => undefined);
    const ca = authority ? new X509Certificate(authority.certificate) : undefined;
    if (!ca || !parsed.certificate.checkIssued(ca) || !parsed.certificate.verify(ca.publicKey))
      return refused(reissueRefused('the certificate was not issued by the project'));
    let keyDigest: string;
    try {
      ({ keyDigest } = this.certificates.checkRequest(request));
    } catch (error) {
      return refused(error);
    }
    if (keyDigest !== certificateKey)
      return refused(reissueRefused('the request is for another key than the certificate'));
    const member = await this.certificates.memberFor(projectId, nodeId, keyDigest).catch(refused);
    const reissued = await this.certificates.certify(member, request, now);
    await this.audit.record(projectId, 'reissued', [nodeId], { expires_at: certificateExpiry(reissued.certificate) });
    return reissued;
  }
}
