/**
 * How a node becomes a member: a one-time admin code creates a project and its administrator; the
 * administrator issues tickets (stored hashed, each good for so many enrollments until it expires); a
 * ticket enrolls a node with what it grants, its use taken atomically with the member it records.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createAuthority } from '../pki/authority.ts';
import type { PeerIdentity } from '../pki/identity.ts';
import { seal } from '../pki/seal.ts';
import { durationRanges, durationSyntax, rangeProblem } from '../shared/duration.ts';
import { InputError } from '../shared/errors.ts';
import type { EnrollmentAnswer as Enrollment, TicketBody as TicketRequest } from '../wire/protocol.ts';
import { encodeAdminCode, encodeTicket } from '../wire/ticket.ts';
import { attributeColumns, attributesOfRow, requestedAttributes } from './member-attributes.ts';
import type { AuditTrail } from './audit-trail.ts';
import { certificateExpiry } from './audit-events.ts';
import type { CheckedRequest, ControllerSettings, MemberCertificates } from './member-certificates.ts';
import { requireAdmin } from './projects.ts';
import { relayNames } from './relay-grant.ts';
import { identityOfRow } from './member-identity.ts';
import type { Store } from './store/open.ts';
import { sameSecret } from '../shared/secret-compare.ts';

const hash = (secret: string) => createHash('sha256').update(secret).digest('hex');
const newId = (prefix: string) => prefix + randomBytes(8).toString('hex');
const newSecret = () => randomBytes(32).toString('base64url');

function sameHash(expected: string, secret: string): boolean {
  return sameSecret(Buffer.from(hash(secret), 'hex'), Buffer.from(expected, 'hex'));
}

export class Enrollments {
  constructor(
    private readonly store: Store,
    private readonly certificates: MemberCertificates,
    /** The controller's settings now (its address is known only once it listens). */
    private readonly settings: () => ControllerSettings,
    private readonly audit: AuditTrail,
  ) {}

  /** A one-time code that lets its holder create a project and become its administrator. */
  async createAdminCode(lifetimeMs: number, now = Date.now()): Promise<string> {
    const code = newSecret();
    await this.store
      .insertInto('admin_codes')
      .values({ code_hash: hash(code), expires_at: now + lifetimeMs, used_at: null })
      .execute();
    return encodeAdminCode({
      controller: this.settings().publicAddress,
      fingerprint: this.settings().fingerprint,
      code,
    });
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
    const { keyDigest } = this.certificates.checkRequest(request);
    const projectId = newId('p');
    const authority = createAuthority(projectId, new Date(now));
    const identity: PeerIdentity = {
      projectId,
      nodeId: newId('a'),
      attributes: [],
      relays: [],
      admin: true,
      tls: false,
      relayNode: false,
    };
    const settings = this.settings();
    await this.store.transaction().execute(async (trx) => {
      const used = await trx
        .updateTable('admin_codes')
        .set({ used_at: now })
        .where('code_hash', '=', hash(code))
        .where('used_at', 'is', null)
        .where('expires_at', '>', now)
        .executeTakeFirst();
      if (used.numUpdatedRows === 0n) throw invalidAdminCode();
      // The first project: every other code was printed because there was none (by each replica that
      // started on the empty database, say), and lies in their logs; none of them is needed any more.
      const first = (await trx.selectFrom('projects').select('id').limit(1).executeTakeFirst()) === undefined;
      if (first)
        await trx
          .updateTable('admin_codes')
          .set({ expires_at: now })
          .where('used_at', 'is', null)
          .where('expires_at', '>', now)
          .execute();
      await trx
        .insertInto('projects')
        .values({
          id: projectId,
          name: projectName ?? 'default',
          network_domain: settings.networkDomain,
          ca_certificate: authority.certificate,
          ca_private_key: seal(settings.sealingKey, Buffer.from(authority.privateKey)).toString('base64'),
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
    this.certificates.remember(projectId, authority);
    const enrolled = await this.certificates.certify(identity, request, now);
    await this.audit.record(projectId, 'project-created', [identity.nodeId], {
      name: projectName ?? 'default',
      role: 'administrator',
      expires_at: certificateExpiry(enrolled.certificate),
    });
    return enrolled;
  }

  async issueTicket(admin: PeerIdentity, request: TicketRequest, now = Date.now()): Promise<string> {
    requireAdmin(admin);
    if (request.admin) {
      if (request.attribute || request.relay || request.tls || request.relayNode)
        throw badFlag('--admin', 'it alone: an administrator has no attribute, relay name or TLS certificate');
    } else if (request.relayNode) {
      if (request.attribute || request.relay || request.tls)
        throw badFlag('--relay-node', 'it alone: a relay node has no attribute, relay name or TLS certificate');
    } else if (request.attribute === '') {
      throw badFlag('--attribute', 'a name of lower-case letters, digits and dashes, such as postgres-inlet');
    }
    const attributes = requestedAttributes(request.attribute);
    const relays = relayNames(request.relay);
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
        ...attributeColumns(attributes),
        // The grant as a comma-joined list: names hold no comma, and the column stays one text.
        relay: relays.length > 0 ? relays.join(',') : null,
        tls: request.tls ? 1 : 0,
        relay_node: request.relayNode ? 1 : 0,
        admin: request.admin ? 1 : 0,
        expires_at: now + request.expiresInMs,
        uses_left: request.usageCount,
        created_at: now,
        issued_by: admin.nodeId,
      })
      .execute();
    await this.audit.record(admin.projectId, 'ticket-issued', [admin.nodeId], {
      ticket: ticketId,
      by: admin.nodeId,
      attributes: attributes.join(',') || null,
      admin: request.admin === true,
      relay: relays.length > 0 ? relays.join(',') : null,
      tls: request.tls === true,
      relay_node: request.relayNode === true,
      uses: request.usageCount,
      expires_at: new Date(now + request.expiresInMs).toISOString(),
    });
    return encodeTicket({
      controller: this.settings().publicAddress,
      fingerprint: this.settings().fingerprint,
      projectId: admin.projectId,
      ticketId,
      secret,
      grants: {
        attribute: attributes.join(','),
        ...(relays.length > 0 ? { relay: relays.join(',') } : {}),
        ...(request.tls ? { tls: true } : {}),
        ...(request.relayNode ? { relayNode: true } : {}),
        ...(request.admin ? { admin: true } : {}),
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
      .select(['secret_hash', 'project_id', 'admin'])
      .where('id', '=', ticketId)
      .executeTakeFirst();
    // A ticket id nobody issued names no project, so no trail holds its refusal.
    if (!known) throw unknownTicket();
    const refused = (reason: string, error: unknown): never => {
      this.audit.tally(known.project_id, 'ticket-refused', [], { ticket: ticketId, reason });
      throw error;
    };
    if (!sameHash(known.secret_hash, secret)) return refused('wrong-secret', unknownTicket());
    let checked: CheckedRequest;
    try {
      checked = this.certificates.checkRequest(request);
    } catch (error) {
      return refused('bad-request', error);
    }
    const { keyDigest } = checked;
    const nodeId = newId(known.admin === 1 ? 'a' : 'n');
    const ticket = await this.takeTicket(ticketId, secret, nodeId, keyDigest, now).catch((error: unknown) =>
      refused(ticketRefusal(error), error),
    );
    const identity = identityOfRow(ticket.project_id, nodeId, ticket);
    const enrolled = await this.certificates.certify(identity, checked.read, now);
    await this.audit.record(ticket.project_id, 'ticket-used', [nodeId], {
      ticket: ticketId,
      uses_left: ticket.uses_left - 1,
    });
    await this.audit.record(ticket.project_id, 'enrolled', [nodeId], {
      ticket: ticketId,
      attributes: attributesOfRow(ticket).join(',') || null,
      admin: ticket.admin === 1,
      relay: ticket.relay,
      tls: ticket.tls === 1,
      relay_node: ticket.relay_node === 1,
      expires_at: certificateExpiry(enrolled.certificate),
    });
    return enrolled;
  }

  /** Takes one use of the ticket and records the member, in one transaction; the ticket's row as it was. */
  private takeTicket(ticketId: string, secret: string, nodeId: string, keyDigest: string, now: number) {
    return this.store.transaction().execute(async (trx) => {
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
        // Read again: a cancel or another enrollment may have changed the row since it was read above.
        const current =
          (await trx.selectFrom('tickets').selectAll().where('id', '=', ticketId).executeTakeFirst()) ?? row;
        if (current.cancelled_at !== null)
          throw new InputError(
            'TICKET_CANCELLED',
            `the ticket was cancelled at ${new Date(Number(current.cancelled_at)).toISOString()}`,
            { hint: 'ask an administrator for a new one (portal project ticket)' },
          );
        throw row.expires_at <= now
          ? new InputError('TICKET_EXPIRED', `the ticket expired at ${new Date(row.expires_at).toISOString()}`, {
              hint: 'issue a new one with portal project ticket',
            })
          : new InputError('TICKET_CONSUMED', 'the ticket has been used already (it allows no more enrollments)', {
              hint:
                'issue a new one with portal project ticket; ' +
                'a node that enrolled once keeps its identity in PORTAL_HOME',
            });
      }
      await trx
        .insertInto('members')
        .values({
          node_id: nodeId,
          project_id: row.project_id,
          ...attributeColumns(attributesOfRow(row)),
          relay: row.relay,
          tls: row.tls,
          relay_node: row.relay_node,
          admin: row.admin,
          ticket_id: row.id,
          enrolled_at: now,
          public_key_sha256: keyDigest,
        })
        .execute();
      return row;
    });
  }
}

/** The reason a ticket-refused record gives for a failed use of a ticket. */
function ticketRefusal(error: unknown): string {
  if (!(error instanceof InputError)) return 'error';
  return error.code === 'TICKET_EXPIRED' ? 'expired' : error.code === 'TICKET_CONSUMED' ? 'used-up' : 'refused';
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
