/**
 * What every way to a certificate shares (enrollment, renewal, re-issue): each project's certificate
 * authority (its key sealed in the store, opened once and kept), reading a certificate request before
 * anything is signed, the member as the store knows it, and the signing itself.
 */
import { X509Certificate } from 'node:crypto';
import type { Selectable } from 'kysely';
import {
  issueCertificate,
  issuedExpiry,
  prepareAuthority,
  publicKeyDigest,
  readCertificateRequest,
  type Authority,
  type PreparedAuthority,
} from '../pki/authority.ts';
import { readRequestOfKnownKey, type ReadRequest } from '../pki/pkcs10.ts';
import { identityOf, type PeerIdentity } from '../pki/identity.ts';
import { unseal } from '../pki/seal.ts';
import { verifyMember } from '../pki/verify.ts';
import { InputError } from '../shared/errors.ts';
import type { EnrollmentAnswer as Enrollment } from '../wire/protocol.ts';
import { identityOfRow } from './member-identity.ts';
import { noteCertificate } from './project-members.ts';
import { memberRevoked, type Revocations } from './revocations.ts';
import type { Store } from './store/open.ts';
import type { MemberTable } from './store/schema.ts';

export interface ControllerSettings {
  /** host:port that nodes dial; written into tickets. Empty until the server listens (see bindAddress). */
  readonly publicAddress: string;
  /** SHA-256 of the controller's TLS certificate; written into tickets. */
  readonly fingerprint: string;
  readonly networkDomain: string;
  /** Lifetime of node certificates; nodes renew at half of it. */
  readonly credentialLifetimeMs: number;
  /** Key that seals project CA keys in the store. */
  readonly sealingKey: Buffer;
}

/** What the controller reads from a certificate request before it signs anything. */
export interface CheckedRequest {
  /** SHA-256 of the requested public key (SPKI DER). */
  readonly keyDigest: string;
  readonly challenge: string | undefined;
  /** The request as read and checked: certify takes it rather than reading it again. */
  readonly read: ReadRequest;
}

export class MemberCertificates {
  private readonly authorities = new Map<string, PreparedAuthority>();

  constructor(
    private readonly store: Store,
    /** The controller's settings now (its address is known only once it listens). */
    private readonly settings: () => ControllerSettings,
    private readonly revocations: Revocations,
  ) {}

  /** Keeps a project's authority just created, so that it is not unsealed again. */
  remember(projectId: string, authority: Authority): void {
    this.authorities.set(projectId, prepareAuthority(authority));
  }

  /**
   * The identity of a TLS peer, if its certificate chains to its project's CA and is valid now;
   * undefined otherwise.
   */
  async verifyPeer(certificate: X509Certificate | undefined, now = Date.now()): Promise<PeerIdentity | undefined> {
    const identity = certificate ? identityOf(certificate) : undefined;
    if (!identity) return undefined;
    const authority = await this.authorityOf(identity.projectId).catch(() => undefined);
    if (!authority) return undefined;
    // A revoked member's certificate proves nothing, though it has not expired.
    if (await this.revocations.isRevoked(identity.nodeId)) return undefined;
    return verifyMember(certificate, authority.parsed, now);
  }

  async authorityOf(projectId: string): Promise<PreparedAuthority> {
    const cached = this.authorities.get(projectId);
    if (cached) return cached;
    const row = await this.store
      .selectFrom('projects')
      .select(['ca_certificate', 'ca_private_key'])
      .where('id', '=', projectId)
      .executeTakeFirst();
    if (!row)
      throw new InputError('PROJECT_UNKNOWN', `no project ${projectId} on this controller`, {
        hint: 'check the controller address',
      });
    const authority = prepareAuthority({
      certificate: row.ca_certificate,
      privateKey: unseal(this.settings().sealingKey, Buffer.from(row.ca_private_key, 'base64')).toString(),
    });
    this.authorities.set(projectId, authority);
    return authority;
  }

  /** A certificate for `identity`'s key (`request`: PEM, or as checkRequest read it); its expiry is noted. */
  async certify(identity: PeerIdentity, request: string | ReadRequest, now: number): Promise<Enrollment> {
    // Every way to a certificate ends here: a revoked member gets none, whichever way it asks.
    if (await this.revocations.isRevoked(identity.nodeId)) throw memberRevoked(identity.nodeId);
    const authority = await this.authorityOf(identity.projectId);
    // A --tls inlet serves <label>.<project>.<domain> with its own key: the same request, one more name.
    const dnsNames = identity.tls ? [`*.${identity.projectId}.${await this.networkDomainOf(identity.projectId)}`] : [];
    const lifetimeMs = this.settings().credentialLifetimeMs;
    const certificate = issueCertificate({ authority, request, identity, dnsNames, lifetimeMs, now: new Date(now) });
    await noteCertificate(this.store, identity.nodeId, this.expiryOf(now));
    return { identity, certificate, authority: authority.certificate, networkDomain: this.settings().networkDomain };
  }

  /** When a certificate certify issues at `now` expires (epoch ms), as the certificate says. */
  expiryOf(now: number): number {
    return issuedExpiry(new Date(now), this.settings().credentialLifetimeMs);
  }

  checkRequest(request: string): CheckedRequest {
    try {
      const read = readCertificateRequest(request);
      return { keyDigest: publicKeyDigest(read.publicKey), challenge: read.challenge, read };
    } catch (error) {
      throw new InputError('REQUEST_INVALID', (error as Error).message, {
        hint: 'this is a bug in the client: report it',
      });
    }
  }

  /**
   * The member as the store knows it, if it still belongs to the project and `keyDigest` is its key.
   * A member enrolled before keys were kept gets this key recorded now: from then on it is the only one.
   */
  async memberFor(projectId: string, nodeId: string, keyDigest: string): Promise<PeerIdentity> {
    return this.withKey(await this.memberRow(projectId, nodeId), keyDigest);
  }

  /**
   * A member's request for its next certificate, made on the channel its certificate authenticated
   * (a renewal): the member, and the request as read. A request for the key the member enrolled with is
   * taken by comparing its bytes with that key's recorded digest: the member proved it holds that key
   * when it was recorded (a signed request) and authenticates now with a certificate of the project, so
   * importing the key again and checking the request's signature would prove nothing more, and they are
   * most of what a renewal costs.
   * Any other request is read and checked in full, and refused by memberFor's rules.
   */
  async memberRequest(
    projectId: string,
    nodeId: string,
    request: string,
  ): Promise<{ member: PeerIdentity; read: ReadRequest }> {
    const row = await this.memberRow(projectId, nodeId);
    const enrolled = row.public_key_sha256;
    let read: ReadRequest | undefined;
    try {
      read = enrolled === null ? undefined : readRequestOfKnownKey(request, enrolled, publicKeyDigest);
    } catch {
      // Unreadable: checkRequest says so, in its words.
    }
    const checked = read && enrolled !== null ? { keyDigest: enrolled, read } : this.checkRequest(request);
    return { member: await this.withKey(row, checked.keyDigest), read: checked.read };
  }

  private async memberRow(projectId: string, nodeId: string): Promise<Selectable<MemberTable>> {
    const member = await this.store.selectFrom('members').selectAll().where('node_id', '=', nodeId).executeTakeFirst();
    if (!member || member.project_id !== projectId) throw notAMember();
    return member;
  }

  private async withKey(member: Selectable<MemberTable>, keyDigest: string): Promise<PeerIdentity> {
    const nodeId = member.node_id;
    if (await this.revocations.isRevoked(nodeId)) throw memberRevoked(nodeId);
    if (member.public_key_sha256 === null) {
      await this.store
        .updateTable('members')
        .set({ public_key_sha256: keyDigest })
        .where('node_id', '=', nodeId)
        .where('public_key_sha256', 'is', null)
        .execute();
    } else if (member.public_key_sha256 !== keyDigest) {
      throw reissueRefused('the request is for another key than the one this member enrolled with');
    }
    return identityOfRow(member.project_id, member.node_id, member);
  }

  private async networkDomainOf(projectId: string): Promise<string> {
    const row = await this.store
      .selectFrom('projects')
      .select('network_domain')
      .where('id', '=', projectId)
      .executeTakeFirst();
    return row?.network_domain ?? this.settings().networkDomain;
  }
}

export function notAMember(): InputError {
  return new InputError('NOT_A_MEMBER', 'this node is not a member of the project any more', {
    hint: 'enroll it again with a new ticket',
  });
}

export function reissueRefused(reason: string): InputError {
  return new InputError('REISSUE_REFUSED', `no new certificate: ${reason}`, {
    hint: 'enroll the node again with a new ticket',
  });
}
