/**
 * The raw half of a relay splice: a plain TCP connection to the relay that names its splice, role and
 * secret in one line, after which it carries the two nodes' end-to-end TLS untouched.
 */
import { connect, type NetConnectOpts, type Socket } from 'node:net';
import { parseHostPort } from '../shared/address.ts';
import { RuntimeFailure } from '../shared/errors.ts';
import { dataPathHighWaterMark } from '../shared/socket-tuning.ts';

export const spliceMagic = 'PORTAL-SPLICE';

/**
 * `halfOpen`: keep reading after the peer's FIN, for a stream whose TLS carries a client's half-close;
 * a session's connection is not half-open, so that a relay that goes away ends it at once.
 */
export function dialSplice(relay: string, splice: string, role: 'inlet' | 'outlet', secret: string, halfOpen = false): Promise<Socket> {
  const parsed = parseHostPort(relay);
  if (!parsed.ok) return Promise.reject(new RuntimeFailure('RELAY_ADDRESS', `bad relay address ${relay}`));
  return new Promise((resolve, reject) => {
    // highWaterMark is a stream option the Socket constructor passes on; @types/node does not list it.
    const options = { host: parsed.address.host.replace(/^\[|\]$/g, ''), port: parsed.address.port, noDelay: true, allowHalfOpen: halfOpen, highWaterMark: dataPathHighWaterMark };
    const socket = connect(options as NetConnectOpts);
    socket.once('error', reject);
    socket.once('connect', () => {
      socket.off('error', reject);
      socket.write(`${spliceMagic} ${splice} ${role} ${secret}\n`);
      resolve(socket);
    });
  });
}

/** The longest preamble a relay reads before it gives up on a connection. */
export const maxPreambleBytes = 256;

export type SplicePreamble =
  | { readonly kind: 'incomplete' }
  | { readonly kind: 'invalid'; readonly reason: string }
  | { readonly kind: 'splice'; readonly splice: string; readonly role: 'inlet' | 'outlet'; readonly secret: string; readonly rest: Buffer };

const token = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Reads `PORTAL-SPLICE <splice> <role> <secret>\n` from the bytes received so far: `incomplete` while
 * more may follow, `invalid` as soon as the bytes cannot become a preamble, else the fields and the
 * bytes after the line (the start of the end-to-end TLS).
 */
export function parseSplicePreamble(received: Buffer): SplicePreamble {
  const newline = received.indexOf(0x0a);
  const head = received.subarray(0, newline < 0 ? Math.min(received.length, spliceMagic.length) : newline).toString('latin1');
  if (!(newline < 0 ? spliceMagic.startsWith(head) : head.startsWith(`${spliceMagic} `))) return { kind: 'invalid', reason: 'not a splice preamble' };
  if (newline < 0) return received.length > maxPreambleBytes ? { kind: 'invalid', reason: 'preamble too long' } : { kind: 'incomplete' };
  if (newline > maxPreambleBytes) return { kind: 'invalid', reason: 'preamble too long' };
  const [, splice, role, secret, ...extra] = head.split(' ');
  if (!splice || !secret || extra.length > 0 || !token.test(splice) || !token.test(secret) || (role !== 'inlet' && role !== 'outlet')) {
    return { kind: 'invalid', reason: 'malformed splice preamble' };
  }
  return { kind: 'splice', splice, role, secret, rest: received.subarray(newline + 1) };
}
