/**
 * The raw half of a relay splice: a plain TCP connection to the relay that names its splice, role and
 * secret in one line, after which it carries the two nodes' end-to-end TLS untouched.
 */
import { connect, type Socket } from 'node:net';
import { parseHostPort, socketHost } from '../shared/address.ts';
import { RuntimeFailure } from '../shared/errors.ts';
import { dataPathTuning, withSocketTuning } from '../shared/socket-tuning.ts';
import { spliceDialTimeoutMs } from './limits.ts';
import { splicePreambleOf, type SpliceRole } from './protocol.ts';

/**
 * `halfOpen`: keep reading after the peer's FIN, for a stream whose TLS carries a client's half-close;
 * a session's connection is not half-open, so that a relay that goes away ends it at once.
 *
 * The socket has an `error` listener from its first moment to its last: a relay that resets after
 * the connect, during the preamble or mid-handshake must not take the process down with it.
 */
export function dialSplice(
  relay: string,
  splice: string,
  role: SpliceRole,
  secret: string,
  halfOpen = false,
): Promise<Socket> {
  const parsed = parseHostPort(relay);
  if (!parsed.ok) return Promise.reject(new RuntimeFailure('RELAY_ADDRESS', `bad relay address ${relay}`));
  return new Promise((resolve, reject) => {
    const target = { host: socketHost(parsed.address.host), port: parsed.address.port };
    const socket = connect(withSocketTuning(target, { ...dataPathTuning, allowHalfOpen: halfOpen }));
    let connected = false;
    const timer = setTimeout(() => {
      const message = `no connection to the relay at ${relay} within ${spliceDialTimeoutMs} ms`;
      socket.destroy(
        new RuntimeFailure('RELAY_UNREACHABLE', message, {
          hint: 'check that this machine can reach the relay; the node tries again by itself',
        }),
      );
    }, spliceDialTimeoutMs);
    socket.on('error', (error) => {
      clearTimeout(timer);
      // A system error keeps its errno code (ECONNREFUSED, ECONNRESET): what the kernel said.
      if (!connected) reject(error);
      // After the connect, whoever carries the socket hears of it by its close.
      socket.destroy();
    });
    socket.once('connect', () => {
      connected = true;
      clearTimeout(timer);
      socket.write(splicePreambleOf(splice, role, secret));
      resolve(socket);
    });
  });
}
