import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, connect as connectTcp, type Server, type Socket } from 'node:net';
import { connect as connectTls, type TLSSocket } from 'node:tls';
import { createAuthority, type Authority } from '../../src/pki/authority.ts';
import { SessionFailed, openInletChannel } from '../../src/wire/e2e-session.ts';
import { e2eProtocolVersion, versionHint } from '../../src/wire/protocol.ts';
import {
  HandshakeFailed,
  acceptTlsWith,
  clientContext,
  e2eAlpn,
  type ContextCredentials,
} from '../../src/wire/tls-contexts.ts';
import { sessionMember } from '../support/session-members.ts';

const member = (authority: Authority, nodeId: string): ContextCredentials =>
  sessionMember(authority, 'contexts', nodeId, []);

/** A TLS client over a fresh loopback connection, with the client context these credentials build. */
function dial(port: number, credentials: ContextCredentials): TLSSocket {
  const raw = connectTcp({ host: '127.0.0.1', port });
  return connectTls({
    socket: raw,
    secureContext: clientContext(credentials),
    ALPNProtocols: e2eAlpn,
    checkServerIdentity: () => undefined,
  });
}

describe('end-to-end TLS contexts: built once per set of credentials', () => {
  let authority: Authority;
  let outlet: ContextCredentials;
  let inlet: ContextCredentials;
  let listener: Server;
  let port: number;

  before(async () => {
    authority = createAuthority('contexts');
    outlet = member(authority, 'outlet');
    inlet = member(authority, 'inlet');
    // Each accepted connection is handed to the shared acceptor, as the outlet and the direct path do.
    listener = createServer((raw: Socket) => {
      acceptTlsWith(raw, { ...outlet }).then(
        (socket) => socket.once('data', (line: Buffer) => socket.end(`echo ${line.toString()}`)),
        () => undefined,
      );
    });
    listener.listen(0, '127.0.0.1');
    await once(listener, 'listening');
    port = (listener.address() as { port: number }).port;
  });

  after(() => listener.close());

  it('reuses one client context for equal credentials, and builds another for a new certificate', () => {
    assert.equal(clientContext({ ...inlet }), clientContext({ ...inlet }), 'equal credentials, one context');
    const renewed = member(authority, 'inlet');
    assert.notEqual(clientContext(renewed), clientContext(inlet));
  });

  it('hands each of 40 concurrent handshakes on one acceptor its own socket', async () => {
    const answers = await Promise.all(
      Array.from({ length: 40 }, async (_, index) => {
        const socket = dial(port, inlet);
        await once(socket, 'secureConnect');
        socket.write(String(index));
        const chunks: Buffer[] = [];
        for await (const chunk of socket) chunks.push(chunk as Buffer);
        return Buffer.concat(chunks).toString();
      }),
    );
    assert.deepEqual(
      answers,
      answers.map((_, index) => `echo ${index}`),
    );
  });

  it('still refuses a client whose certificate another CA signed', async () => {
    const stranger = member(createAuthority('elsewhere'), 'stranger');
    const socket = dial(port, { ...stranger, authority: inlet.authority });
    const outcome = await new Promise<string>((resolve) => {
      socket.once('error', (error: NodeJS.ErrnoException) => resolve(`error ${error.code ?? error.message}`));
      socket.once('data', () => resolve('data'));
      socket.once('secureConnect', () => socket.write('hello'));
      socket.once('close', () => resolve('closed'));
    });
    assert.notEqual(outcome, 'data', 'no answer reaches a stranger');
  });

  it('fails a handshake a stranger or a leaving peer does not finish with TLS_HANDSHAKE_FAILED', async () => {
    const failures: unknown[] = [];
    const strict = createServer((raw: Socket) => {
      acceptTlsWith(raw, { ...outlet }).then(
        (socket) => socket.destroy(),
        (error: unknown) => failures.push(error),
      );
    });
    strict.listen(0, '127.0.0.1');
    await once(strict, 'listening');
    try {
      const strictPort = (strict.address() as { port: number }).port;
      const stranger = dial(strictPort, member(createAuthority('elsewhere'), 'stranger'));
      stranger.on('error', () => stranger.destroy());
      const leaving = connectTcp({ host: '127.0.0.1', port: strictPort });
      leaving.once('connect', () => leaving.destroy());
      const deadline = Date.now() + 5000;
      while (failures.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      stranger.destroy();
      assert.equal(failures.length, 2);
      for (const failure of failures) {
        assert.ok(failure instanceof HandshakeFailed);
        assert.equal(failure.code, 'TLS_HANDSHAKE_FAILED');
      }
    } finally {
      strict.close();
    }
  });

  it('tells a node whose peer speaks the earlier end-to-end protocol both versions, and carries nothing', async () => {
    // The peer completes TLS and sends the verdict of protocol 1, which named no version.
    const old = createServer((raw: Socket) => {
      acceptTlsWith(raw, { ...outlet }).then(
        (socket) => socket.write(`${JSON.stringify({ accept: true, saw: [], want: 'inlet' })}\n`),
        () => undefined,
      );
    });
    old.listen(0, '127.0.0.1');
    await once(old, 'listening');
    try {
      const raw = connectTcp({ host: '127.0.0.1', port: (old.address() as { port: number }).port });
      await assert.rejects(
        openInletChannel(raw, { ...inlet, projectId: 'contexts' }, 'outlet', 'session'),
        (error: Error) =>
          error instanceof SessionFailed &&
          error.code === 'SESSION_FAILED' &&
          error.message ===
            `the peer node speaks end-to-end protocol 1 (no version) and this node ${e2eProtocolVersion}; ` +
              `${versionHint}`,
      );
      assert.equal(raw.destroyed, true);
    } finally {
      old.close();
    }
  });
});
