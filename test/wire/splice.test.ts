import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { createAuthority, type Authority } from '../../src/pki/authority.ts';
import {
  SessionFailed,
  acceptOutletChannel,
  openInletChannel,
  type SessionCredentials,
} from '../../src/wire/e2e-session.ts';
import { dialSplice } from '../../src/wire/splice.ts';
import { sessionMember } from '../support/session-members.ts';

type Step = 'accept' | 'preamble' | 'handshake' | 'handshake-fin';

const member = (authority: Authority, nodeId: string, attribute: string) =>
  sessionMember(authority, 'splice', nodeId, [attribute]);

/**
 * A relay's splice port that resets the connection at `step`: at once, once the preamble line is in,
 * or part way through the handshake (after the inlet's first TLS bytes; toward an outlet, which
 * waits for a ClientHello, after the first bytes of one).
 */
function resettingRelay(step: Step): Promise<{ server: Server; address: string; resets: () => number }> {
  let resets = 0;
  const reset = (socket: Socket) => {
    resets += 1;
    // A relay that goes away cleanly sends a FIN, not a reset: mid-handshake, that must fail as fast.
    if (step === 'handshake-fin') socket.end();
    else socket.resetAndDestroy();
  };
  const server = createServer((socket) => {
    socket.on('error', () => undefined);
    if (step === 'accept') return reset(socket);
    let seen = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      seen = Buffer.concat([seen, chunk]);
      const end = seen.indexOf(0x0a);
      if (end < 0 || socket.destroyed) return;
      if (step === 'preamble') return reset(socket);
      const role = seen.subarray(0, end).toString().split(' ')[2];
      if (role === 'outlet') {
        // The start of a ClientHello record, then the reset.
        socket.write(Buffer.from([0x16, 0x03, 0x01, 0x00, 0xc8, 0x01, 0x00, 0x00]), () => reset(socket));
      } else if (seen.length > end + 1) {
        reset(socket);
      }
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, address: `127.0.0.1:${(server.address() as AddressInfo).port}`, resets: () => resets }),
    ),
  );
}

describe('relay splices: a relay that resets at every step', () => {
  let inlet: SessionCredentials;
  let outlet: SessionCredentials;

  before(() => {
    const authority = createAuthority('splice');
    inlet = member(authority, 'inlet', 'app-inlet');
    outlet = member(authority, 'outlet', 'app-outlet');
  });

  for (const step of ['accept', 'preamble', 'handshake', 'handshake-fin'] as const) {
    for (const role of ['inlet', 'outlet'] as const) {
      it(
        `fails the ${role}'s attempt with an error, ` + `and nothing else, when the relay resets after the ${step}`,
        async () => {
          const relay = await resettingRelay(step);
          const uncaught: Error[] = [];
          const onUncaught = (error: Error) => uncaught.push(error);
          process.prependListener('uncaughtException', onUncaught);
          try {
            // Twenty at once: the reset meets each socket at a slightly different moment.
            const attempts = Array.from({ length: 20 }, async () => {
              const raw = await dialSplice(relay.address, 'a'.repeat(24), role, 'secret', true);
              // The reset may reach a socket only after it is handed over: the write of the preamble,
              // or the handshake, then fails on a socket that must still have a listener.
              const channel =
                role === 'inlet'
                  ? openInletChannel(raw, inlet, 'app-outlet', 'session', 5000)
                  : acceptOutletChannel(raw, outlet, 'app-inlet', 5000);
              await channel;
            });
            const started = Date.now();
            const results = await Promise.allSettled(attempts);
            // At once, not after the handshake's 10 s deadline: a half-open socket would wait for it.
            assert.ok(Date.now() - started < 2000, `failed after ${Date.now() - started} ms`);
            for (const result of results) {
              assert.equal(result.status, 'rejected');
              const reason = result.reason as Error & { code?: string };
              // Either the dial itself failed (reset before the connect completed) or the session did.
              assert.ok(
                reason instanceof SessionFailed || ['ECONNRESET', 'EPIPE', 'ECONNREFUSED'].includes(reason.code ?? ''),
                `unexpected: ${reason.message}`,
              );
            }
            assert.equal(relay.resets(), 20);
            // A late error event (the preamble's write) arrives on a later turn: give it one.
            await new Promise((resolve) => setTimeout(resolve, 50));
            assert.deepEqual(uncaught, []);
          } finally {
            process.off('uncaughtException', onUncaught);
            relay.server.close();
            await once(relay.server, 'close');
          }
        },
      );
    }
  }
});
