/**
 * What the controller does, independent of how requests reach it: projects and their certificate
 * authorities, one-time admin codes, enrollment tickets (stored hashed, consumed atomically), members
 * and their certificates.
 */
import { X509Certificate, createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import {
  challengeOf,
  createAuthority,
  issueCertificate,
  publicKeyDigest,
  readCertificateRequest,
  type Authority,
} from '../pki/authority.ts';
import { identityOf, type PeerIdentity } from '../pki/identity.ts';
import { seal, unseal } from '../pki/seal.ts';
import { verifyMember } from '../pki/verify.ts';
import { x509 } from '../pki/x509.ts';
import { durationRanges, durationSyntax, rangeProblem } from '../shared/duration.ts';
import { InputError, RuntimeFailure } from '../shared/errors.ts';
import type { EnrollmentAnswer as Enrollment, ProjectInfo, TicketBody as TicketRequest } from '../wire/protocol.ts';
import { encodeAdminCode, encodeTicket } from '../wire/ticket.ts';
import { RateLimiter } from '../shared/rate-limiter.ts';
import { ChallengeBook, reissueLimits } from './reissue.ts';
import type { Store } from './store/open.ts';

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

const namePattern = /^[a-z0-9][a-z0-9-]{0,62}$/;

const hash = (secret: string) => createHash('sha256').update(secret).digest('hex');
const newId = (prefix: string) => prefix + randomBytes(8).toString('hex');
const newSecret = () => randomBytes(32).toString('base64url');

function sameHash(expected: string, secret: string): boolean {
  const a = Buffer.from(expected, 'hex');
  const b = Buffer.from(hash(secret), 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** What the controller reads from a certificate request before it signs anything. */
interface CheckedRequest {
  /** SHA-256 of the requested public key (SPKI DER). */
  readonly keyDigest: string;
  readonly challenge: string | undefined;
}

export class ControllerService {
  private readonly authorities = new Map<string, Authority>();
  private readonly challenges = new ChallengeBook();
  // Timed by the `now` each call passes (Date.now() unless a test gives another).
  private readonly challengesPerSource = new RateLimiter(
    reissueLimits.perSource.perSecond,
    reissueLimits.perSource.burst,
    reissueLimits.sourcesRemembered,
  );
  private readonly challengesOverall = new RateLimiter(reissueLimits.overall.perSecond, reissueLimits.overall.burst);
  private settingsNow: ControllerSettings;

  constructor(
    private readonly store: Store,
    settings: ControllerSettings,
  ) {
    this.settingsNow = settings;
  }

  get settings(): ControllerSettings {
    return this.settingsNow;
  }

  /** The address written into tickets, once the listening port is known. */
  bindAddress(publicAddress: string): void {
    this.settingsNow = { ...this.settingsNow, publicAddress };
  }

  /** How many projects the controller hosts. */
  async projectCount(): Promise<number> {
    const row = await this.store
      .selectFrom('projects')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }

  /** A one-time code that lets its holder create a project and become its administrator. */
  async createAdminCode(lifetimeMs: number, now = Date.now()): Promise<string> {
    const code = newSecret();
    await this.store
      .insertInto('admin_codes')
      .values({ code_hash: hash(code), expires_at: now + lifetimeMs, used_at: null })
      .execute();
    return encodeAdminCode({ controller: this.settings.publicAddress, fingerprint: this.settings.fingerprint, code });
  }

  async adminEnroll(
    code: string,
    request: string,
    projectName: string | undefined,
    now = Date.now(),
  ): Promise<Enrollment> {
    // The code first (one hashed lookup), then the request's signature, then a key generation: a
    // wrong code costs the controller no public-key work. The transaction below decides.
    const known = await this.store
      .selectFrom('admin_codes')
      .select('code_hash')
      .where('code_hash', '=', hash(code))
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    if (!known) throw invalidAdminCode();
    const { keyDigest } = await this.checkRequest(request);
    const projectId = newId('p');
    const authority = await createAuthority(projectId, new Date(now));
    const identity: PeerIdentity = {
      projectId,
      nodeId: newId('a'),
      attributes: [],
      relays: [],
      admin: true,
      tls: false,
      relayNode: false,
    };
    await this.store.transaction().execute(async (trx) => {
      const used = await trx
        .updateTable('admin_codes')
        .set({ used_at: now })
        .where('code_hash', '=', hash(code))
        .where('used_at', 'is', null)
        .where('expires_at', '>', now)
        .executeTakeFirst();
      if (used.numUpdatedRows === 0n) throw invalidAdminCode();
      await trx
        .insertInto('projects')
        .values({
          id: projectId,
          name: projectName ?? 'default',
          network_domain: this.settings.networkDomain,
          ca_certificate: authority.certificate,
          ca_private_key: seal(this.settings.sealingKey, Buffer.from(authority.privateKey)).toString('base64'),
          created_at: now,
        })
        .execute();
      await trx
        .insertInto('members')
        .values({
          node_id: identity.nodeId,
          project_id: projectId,
          attribute: null,
          relay: null,
          tls: 0,
          admin: 1,
          ticket_id: null,
          enrolled_at: now,
          public_key_sha256: keyDigest,
        })
        .execute();
    });
    this.authorities.set(projectId, authority);
    return this.certify(identity, request, now);
  }

  async issueTicket(admin: PeerIdentity, request: TicketRequest, now = Date.now()): Promise<string> {
    this.requireAdmin(admin);
    if (request.relayNode) {
      if (request.attribute || request.relay || request.tls)
        throw badFlag('--relay-node', 'it alone: a relay node has no attribute, relay name or TLS certificate');
    } else if (!namePattern.test(request.attribute)) {
      throw badFlag('--attribute', 'a name of lower-case letters, digits and dashes, such as postgres-inlet');
    }
    if (request.relay !== undefined && !namePattern.test(request.relay))
      throw badFlag('--relay', 'a name of lower-case letters, digits and dashes, such as postgres');
    if (!Number.isInteger(request.usageCount) || request.usageCount < 1)
      throw badFlag('--usage-count', 'a whole number of 1 or more');
    // The CLI checks the same bounds; a client of another version may not.
    const lifetime = rangeProblem(request.expiresInMs, durationRanges.ticket);
    if (lifetime !== undefined)
      throw new InputError('BAD_FLAG', `--expires-in ${lifetime}`, {
        hint: `give ${durationSyntax(durationRanges.ticket)}`,
      });
    const ticketId = newId('t');
    const secret = newSecret();
    await this.store
      .insertInto('tickets')
      .values({
        id: ticketId,
        project_id: admin.projectId,
        secret_hash: hash(secret),
        attribute: request.attribute,
        relay: request.relay ?? null,
        tls: request.tls ? 1 : 0,
        relay_node: request.relayNode ? 1 : 0,
        expires_at: now + request.expiresInMs,
        uses_left: request.usageCount,
        created_at: now,
      })
      .execute();
    return encodeTicket({
      controller: this.settings.publicAddress,
      fingerprint: this.settings.fingerprint,
      projectId: admin.projectId,
      ticketId,
      secret,
      grants: {
        attribute: request.attribute,
        ...(request.relay ? { relay: request.relay } : {}),
        ...(request.tls ? { tls: true } : {}),
        ...(request.relayNode ? { relayNode: true } : {}),
      },
    });
  }

  /**
   * Enrolls the holder of a ticket. The ticket is checked first (an id lookup and a hash: a guessed or
   * altered ticket costs no signature check), then the request, and the use is taken in the same
   * transaction that records the member: a failed enrollment consumes nothing, and of N concurrent
   * enrollments with a one-use ticket exactly one succeeds.
   */
  async enroll(ticketId: string, secret: string, request: string, now = Date.now()): Promise<Enrollment> {
    const known = await this.store
      .selectFrom('tickets')
      .select('secret_hash')
      .where('id', '=', ticketId)
      .executeTakeFirst();
    if (!known || !sameHash(known.secret_hash, secret)) throw unknownTicket();
    const { keyDigest } = await this.checkRequest(request);
    const nodeId = newId('n');
    const ticket = await this.store.transaction().execute(async (trx) => {
      const row = await trx.selectFrom('tickets').selectAll().where('id', '=', ticketId).executeTakeFirst();
      if (!row || !sameHash(row.secret_hash, secret)) throw unknownTicket();
      const taken = await trx
        .updateTable('tickets')
        .set((eb) => ({ uses_left: eb('uses_left', '-', 1) }))
        .where('id', '=', ticketId)
        .where('uses_left', '>', 0)
        .where('expires_at', '>', now)
        .executeTakeFirst();
      if (taken.numUpdatedRows === 0n) {
        throw row.expires_at <= now
          ? new InputError('TICKET_EXPIRED', `the ticket expired at ${new Date(row.expires_at).toISOString()}`, {
              hint: 'issue a new one with portal project ticket',
            })
          : new InputError('TICKET_CONSUMED', 'the ticket has been used already (it allows no more enrollments)', {
              hint: 'issue a new one with portal project ticket; a node that enrolled once keeps its identity in PORTAL_HOME',
            });
      }
      await trx
        .insertInto('members')
        .values({
          node_id: nodeId,
          project_id: row.project_id,
          attribute: row.attribute,
          relay: row.relay,
          tls: row.tls,
          relay_node: row.relay_node,
          admin: 0,
          ticket_id: row.id,
          enrolled_at: now,
          public_key_sha256: keyDigest,
        })
        .execute();
      return row;
    });
    const identity: PeerIdentity = {
      projectId: ticket.project_id,
      nodeId,
      attributes: ticket.attribute ? [ticket.attribute] : [],
      relays: ticket.relay ? [ticket.relay] : [],
      admin: false,
      tls: ticket.tls === 1,
      relayNode: ticket.relay_node === 1,
    };
    return this.certify(identity, request, now);
  }

  /**
   * A fresh certificate for a member authenticated by a valid certificate, for the key it enrolled
   * with, from what the store says it is (not what it claims).
   */
  async renew(peer: PeerIdentity, request: string, now = Date.now()): Promise<Enrollment> {
    const { keyDigest } = await this.checkRequest(request);
    const member = await this.memberFor(peer.projectId, peer.nodeId, keyDigest);
    return this.certify(member, request, now);
  }

  /**
   * A one-time challenge for re-issuing an expired certificate. Anyone may ask, so this is where the
   * re-issue path is rate-limited: per node the asker names, and overall (which bounds the signature
   * checks that anonymous peers can cause, whatever names they give).
   */
  /** A challenge for a re-issue request from `source` (an IPv4 address or an IPv6 /64, as sourceKeyOf gives it): its own allowance first, then everyone's. */
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
      parsed = { certificate, identity, challenge: challengeFromPem(request) };
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
    const certificateKey = publicKeyDigest(parsed.certificate.publicKey.export({ type: 'spki', format: 'der' }));
    const known = await this.store
      .selectFrom('members')
      .select(['project_id', 'public_key_sha256'])
      .where('node_id', '=', parsed.identity.nodeId)
      .executeTakeFirst();
    if (!known || known.project_id !== parsed.identity.projectId) throw notAMember();
    if (known.public_key_sha256 !== null && known.public_key_sha256 !== certificateKey)
      throw reissueRefused('the certificate is not for the key this member enrolled with');
    const authority = await this.authorityOf(parsed.identity.projectId).catch(() => undefined);
    const ca = authority ? new X509Certificate(authority.certificate) : undefined;
    if (!ca || !parsed.certificate.checkIssued(ca) || !parsed.certificate.verify(ca.publicKey))
      throw reissueRefused('the certificate was not issued by the project');
    const { keyDigest } = await this.checkRequest(request);
    if (keyDigest !== certificateKey) throw reissueRefused('the request is for another key than the certificate');
    const member = await this.memberFor(parsed.identity.projectId, parsed.identity.nodeId, keyDigest);
    return this.certify(member, request, now);
  }

  async project(admin: PeerIdentity): Promise<ProjectInfo> {
    this.requireAdmin(admin);
    const row = await this.store
      .selectFrom('projects')
      .selectAll()
      .where('id', '=', admin.projectId)
      .executeTakeFirstOrThrow();
    return {
      id: row.id,
      name: row.name,
      controller: this.settings.publicAddress,
      network_domain: row.network_domain,
      created_at: new Date(row.created_at).toISOString(),
    };
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
    return verifyMember(certificate, new X509Certificate(authority.certificate), now);
  }

  async authorityOf(projectId: string): Promise<Authority> {
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
    const authority = {
      certificate: row.ca_certificate,
      privateKey: unseal(this.settings.sealingKey, Buffer.from(row.ca_private_key, 'base64')).toString(),
    };
    this.authorities.set(projectId, authority);
    return authority;
  }

  private async certify(identity: PeerIdentity, request: string, now: number): Promise<Enrollment> {
    const authority = await this.authorityOf(identity.projectId);
    // A --tls inlet serves <label>.<project>.<domain> with its own key: the same request, one more name.
    const dnsNames = identity.tls ? [`*.${identity.projectId}.${await this.networkDomainOf(identity.projectId)}`] : [];
    const certificate = await issueCertificate({
      authority,
      request,
      identity,
      dnsNames,
      lifetimeMs: this.settings.credentialLifetimeMs,
      now: new Date(now),
    });
    return { identity, certificate, authority: authority.certificate, networkDomain: this.settings.networkDomain };
  }

  private async networkDomainOf(projectId: string): Promise<string> {
    const row = await this.store
      .selectFrom('projects')
      .select('network_domain')
      .where('id', '=', projectId)
      .executeTakeFirst();
    return row?.network_domain ?? this.settings.networkDomain;
  }

  private async checkRequest(request: string): Promise<CheckedRequest> {
    try {
      const parsed = await readCertificateRequest(request);
      return { keyDigest: publicKeyDigest(parsed.publicKey.rawData), challenge: challengeOf(parsed) };
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
  private async memberFor(projectId: string, nodeId: string, keyDigest: string): Promise<PeerIdentity> {
    const member = await this.store.selectFrom('members').selectAll().where('node_id', '=', nodeId).executeTakeFirst();
    if (!member || member.project_id !== projectId) throw notAMember();
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
    return {
      projectId: member.project_id,
      nodeId: member.node_id,
      attributes: member.attribute ? [member.attribute] : [],
      relays: member.relay ? [member.relay] : [],
      admin: member.admin === 1,
      tls: member.tls === 1,
      relayNode: member.relay_node === 1,
    };
  }

  private requireAdmin(peer: PeerIdentity): void {
    if (!peer.admin) {
      throw new InputError('NOT_ADMIN', 'only the project administrator may do this', {
        hint: 'run the command where portal enroll was run',
      });
    }
  }
}

function challengeFromPem(request: string): string | undefined {
  return challengeOf(new x509.Pkcs10CertificateRequest(request));
}

function notAMember(): InputError {
  return new InputError('NOT_A_MEMBER', 'this node is not a member of the project any more', {
    hint: 'enroll it again with a new ticket',
  });
}

function reissueRefused(reason: string): InputError {
  return new InputError('REISSUE_REFUSED', `no new certificate: ${reason}`, {
    hint: 'enroll the node again with a new ticket',
  });
}

function unknownTicket(): InputError {
  return new InputError('TICKET_UNKNOWN', 'this controller did not issue that ticket', {
    hint: 'check that the ticket belongs to this project and was copied whole',
  });
}

function invalidAdminCode(): InputError {
  return new InputError('ADMIN_CODE_INVALID', 'the admin code is unknown, used already or expired', {
    hint: 'restart portal controller start for a fresh code, or ask its operator',
  });
}

function badFlag(flag: string, expected: string): InputError {
  return new InputError('BAD_FLAG', `${flag} is not valid`, { hint: `give ${expected}` });
}
