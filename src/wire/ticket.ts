/**
 * Enrollment tickets and admin codes as opaque strings. A ticket carries everything a node needs to
 * enroll safely: where the controller is, the fingerprint that pins its certificate, and the one-time
 * secret (the controller keeps only its hash). The alphabet is [A-Za-z0-9._-] so a ticket survives
 * shells, YAML and stack parameters unquoted.
 */
import { InputError } from '../shared/errors.ts';

export interface ControllerPin {
  /** host:port of the controller. */
  readonly controller: string;
  /** SHA-256 of the controller certificate, hex. */
  readonly fingerprint: string;
}

export interface EnrollmentTicket extends ControllerPin {
  readonly projectId: string;
  readonly ticketId: string;
  readonly secret: string;
  /** What the ticket grants, so a node can check its configuration before using it up (the controller decides). */
  readonly grants?: {
    /** The attributes, comma-joined (`--attribute a --attribute team=ops` gives "a,team=ops"). */
    readonly attribute: string;
    /** The relay names the node may register, comma-joined (`--relay a --relay b` gives "a,b"). */
    readonly relay?: string;
    readonly tls?: boolean;
    readonly relayNode?: boolean;
    /** The ticket enrolls another administrator (`portal enroll --ticket`). */
    readonly admin?: boolean;
  };
}

export interface AdminCode extends ControllerPin {
  readonly code: string;
}

const ticketPrefix = 'pt1.';
const codePrefix = 'pa1.';

export function encodeTicket(ticket: EnrollmentTicket): string {
  const grants = ticket.grants
    ? {
        a: ticket.grants.attribute,
        ...(ticket.grants.relay ? { r: ticket.grants.relay } : {}),
        ...(ticket.grants.tls ? { t: true } : {}),
        ...(ticket.grants.relayNode ? { n: true } : {}),
        ...(ticket.grants.admin ? { d: true } : {}),
      }
    : {};
  const body = {
    c: ticket.controller,
    f: ticket.fingerprint,
    p: ticket.projectId,
    k: ticket.ticketId,
    s: ticket.secret,
    ...grants,
  };
  return ticketPrefix + Buffer.from(JSON.stringify(body)).toString('base64url');
}

export function encodeAdminCode(code: AdminCode): string {
  return (
    codePrefix +
    Buffer.from(JSON.stringify({ c: code.controller, f: code.fingerprint, s: code.code })).toString('base64url')
  );
}

export function decodeTicket(text: string): EnrollmentTicket {
  const body = decodeBody(
    text.trim(),
    ticketPrefix,
    'enrollment ticket',
    'give the contents of the .ticket file that portal project ticket wrote',
  );
  const { c, f, p, k, s } = body;
  if (
    ![c, f, p, k, s].every((value) => typeof value === 'string' && value.length > 0) ||
    !/^[0-9a-f]{64}$/.test(String(f))
  ) {
    throw malformed('enrollment ticket', 'give the contents of the .ticket file that portal project ticket wrote');
  }
  const { a, r, t, n, d } = body;
  const granted = {
    attribute: String(a),
    ...(typeof r === 'string' ? { relay: r } : {}),
    ...(t === true ? { tls: true } : {}),
    ...(n === true ? { relayNode: true } : {}),
    ...(d === true ? { admin: true } : {}),
  };
  const grants = typeof a === 'string' ? { grants: granted } : {};
  return {
    controller: String(c),
    fingerprint: String(f),
    projectId: String(p),
    ticketId: String(k),
    secret: String(s),
    ...grants,
  };
}

export function decodeAdminCode(text: string): AdminCode {
  const body = decodeBody(text.trim(), codePrefix, 'admin code', 'give the code that portal controller start printed');
  const { c, f, s } = body;
  if (![c, f, s].every((value) => typeof value === 'string' && value.length > 0) || !/^[0-9a-f]{64}$/.test(String(f))) {
    throw malformed('admin code', 'give the code that portal controller start printed');
  }
  return { controller: String(c), fingerprint: String(f), code: String(s) };
}

function decodeBody(text: string, prefix: string, what: string, hint: string): Record<string, unknown> {
  if (!text.startsWith(prefix) || !/^[A-Za-z0-9_-]+$/.test(text.slice(prefix.length))) throw malformed(what, hint);
  try {
    const body = JSON.parse(Buffer.from(text.slice(prefix.length), 'base64url').toString('utf8')) as unknown;
    if (body === null || typeof body !== 'object') throw new Error('not an object');
    return body as Record<string, unknown>;
  } catch {
    throw malformed(what, hint);
  }
}

function malformed(what: string, hint: string): InputError {
  const code = what === 'admin code' ? 'ADMIN_CODE_MALFORMED' : 'TICKET_MALFORMED';
  return new InputError(code, `the ${what} is malformed (cut short or changed?)`, { hint });
}
