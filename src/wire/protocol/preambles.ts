/**
 * The one-line preambles of the raw connections (relay splices, direct paths): one line, then the two
 * nodes' end-to-end TLS, which nothing in between reads.
 */
import { protocolVersion } from './version.ts';

/** `PORTAL-SPLICE/<version> <splice> <role> <secret>`: half of a relay splice. */
export const spliceMagic = `PORTAL-SPLICE/${protocolVersion}`;
const spliceFamily = 'PORTAL-SPLICE';

/** The longest preamble a relay reads before it gives up on a connection. */
export const maxPreambleBytes = 256;

export type SpliceRole = 'inlet' | 'outlet';

export type SplicePreamble =
  | { readonly kind: 'incomplete' }
  | { readonly kind: 'invalid'; readonly reason: string }
  | {
      readonly kind: 'splice';
      readonly splice: string;
      readonly role: SpliceRole;
      readonly secret: string;
      readonly rest: Buffer;
    };

const token = /^[A-Za-z0-9_-]{1,64}$/;

export const splicePreambleOf = (splice: string, role: SpliceRole, secret: string) =>
  `${spliceMagic} ${splice} ${role} ${secret}\n`;

/**
 * Reads `PORTAL-SPLICE/2 <splice> <role> <secret>\n` from the bytes received so far: `incomplete` while
 * more may follow, `invalid` as soon as the bytes cannot become a preamble (naming the version when a
 * peer of another one sent it), else the fields and the bytes after the line (the start of the TLS).
 */
export function parseSplicePreamble(received: Buffer): SplicePreamble {
  const newline = received.indexOf(0x0a);
  const head = received
    .subarray(0, newline < 0 ? Math.min(received.length, spliceMagic.length) : newline)
    .toString('latin1');
  if (!(newline < 0 ? spliceMagic.startsWith(head) : head.startsWith(`${spliceMagic} `))) {
    const other = head.startsWith(spliceFamily) && (newline >= 0 || head.length === spliceMagic.length);
    return {
      kind: 'invalid',
      reason: other ? `a splice preamble of another protocol version than ${protocolVersion}` : 'not a splice preamble',
    };
  }
  if (newline < 0)
    return received.length > maxPreambleBytes
      ? { kind: 'invalid', reason: 'preamble too long' }
      : { kind: 'incomplete' };
  if (newline > maxPreambleBytes) return { kind: 'invalid', reason: 'preamble too long' };
  const [, splice, role, secret, ...extra] = head.split(' ');
  if (
    !splice ||
    !secret ||
    extra.length > 0 ||
    !token.test(splice) ||
    !token.test(secret) ||
    (role !== 'inlet' && role !== 'outlet')
  ) {
    return { kind: 'invalid', reason: 'malformed splice preamble' };
  }
  return { kind: 'splice', splice, role, secret, rest: received.subarray(newline + 1) };
}

/** `PORTAL-DIRECT/<version> <secret>`: an outlet dialling an inlet's direct path. */
export const directMagic = `PORTAL-DIRECT/${protocolVersion}`;

export const directPreambleOf = (secret: string) => `${directMagic} ${secret}\n`;

export type DirectPreamble =
  | { readonly kind: 'incomplete' }
  | { readonly kind: 'invalid'; readonly reason: string }
  | { readonly kind: 'direct'; readonly secret: string; readonly rest: Buffer };

/** Reads `PORTAL-DIRECT/2 <secret>\n` as parseSplicePreamble reads a splice's line. */
export function parseDirectPreamble(received: Buffer): DirectPreamble {
  const newline = received.indexOf(0x0a);
  const head = received
    .subarray(0, newline < 0 ? Math.min(received.length, directMagic.length) : newline)
    .toString('latin1');
  if (!(newline < 0 ? directMagic.startsWith(head) : head.startsWith(`${directMagic} `)))
    return { kind: 'invalid', reason: 'not a direct preamble of this protocol version' };
  if (newline < 0)
    return received.length > maxPreambleBytes
      ? { kind: 'invalid', reason: 'preamble too long' }
      : { kind: 'incomplete' };
  if (newline > maxPreambleBytes) return { kind: 'invalid', reason: 'preamble too long' };
  const [, secret, ...extra] = head.split(' ');
  if (!secret || extra.length > 0 || !token.test(secret))
    return { kind: 'invalid', reason: 'malformed direct preamble' };
  return { kind: 'direct', secret, rest: received.subarray(newline + 1) };
}
