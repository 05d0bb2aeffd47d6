/**
 * The raw half of a relay splice: a plain TCP connection to the relay that names its splice, role and
 * secret in one line, after which it carries the two nodes' end-to-end TLS untouched.
 */
import { connect, type NetConnectOpts, type Socket } from 'node:net';
import { parseHostPort } from '../shared/address.ts';
import { RuntimeFailure } from '../shared/errors.ts';
import { dataPathHighWaterMark } from '../shared/socket-tuning.ts';
import { splicePreambleOf, type SpliceRole } from './protocol.ts';

/**
 * `halfOpen`: keep reading after the peer's FIN, for a stream whose TLS carries a client's half-close;
 * a session's connection is not half-open, so that a relay that goes away ends it at once.
 */
export function dialSplice(relay: string, splice: string, role: SpliceRole, secret: string, halfOpen = false): Promise<Socket> {
  const parsed = parseHostPort(relay);
  if (!parsed.ok) return Promise.reject(new RuntimeFailure('RELAY_ADDRESS', `bad relay address ${relay}`));
  return new Promise((resolve, reject) => {
    // highWaterMark is a stream option the Socket constructor passes on; @types/node does not list it.
    const options = { host: parsed.address.host.replace(/^\[|\]$/g, ''), port: parsed.address.port, noDelay: true, allowHalfOpen: halfOpen, highWaterMark: dataPathHighWaterMark };
    const socket = connect(options as NetConnectOpts);
    socket.once('error', reject);
    socket.once('connect', () => {
      socket.off('error', reject);
      socket.write(splicePreambleOf(splice, role, secret));
      resolve(socket);
    });
  });
}
