/**
 * A member that runs its own code as an inlet on the direct path: it advertises a listener of its own
 * through the controller (as an inlet does), takes the outlet's dial, and then speaks the end-to-end
 * protocol as it likes: the TLS handshake with the certificate it chooses, and its verdict when it
 * chooses. Real sockets, real TLS, the real outlet at the other end.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { connect as connectTls, type TLSSocket } from 'node:tls';
import { identityOf } from '../../src/pki/identity.ts';
import type { StoredIdentity } from '../../src/node/identity-store.ts';
import { openControlChannel, type ControlChannel } from '../../src/wire/control-channel.ts';
import { readOneJsonLine } from '../../src/wire/json-lines.ts';
import { e2eHandshakeTimeoutMs } from '../../src/wire/limits.ts';
import { parseDirectPreamble } from '../../src/wire/protocol.ts';
import { e2eProtocolVersion, type Verdict } from '../../src/wire/protocol/e2e.ts';
import { clientContext, e2eAlpn } from '../../src/wire/tls-contexts.ts';

export interface DirectDial {
  /** The outlet's connection, past its preamble. */
  readonly raw: Socket;
  /** Closes the listener and the control channel (the advert goes with it). */
  close(): void;
}

/**
 * Advertises a direct path for `via` that allows `allow` and resolves with the first connection that
 * names its secret: the outlet of `via` dialling it. Later dials are closed.
 */
export async function dialledByOutlet(
  identity: StoredIdentity,
  via: string,
  allow: string,
  timeoutMs = 20_000,
): Promise<DirectDial> {
  const secret = randomBytes(24).toString('base64url');
  let server: Server | undefined;
  let control: ControlChannel | undefined;
  const close = () => {
    server?.close();
    control?.destroy();
  };
  try {
    let taken = false;
    let dialled: (raw: Socket) => void = () => undefined;
    const first = new Promise<Socket>((resolve) => (dialled = resolve));
    server = createServer((socket) => {
      socket.on('error', () => socket.destroy());
      if (taken) return void socket.destroy();
      let received = Buffer.alloc(0);
      const onData = (chunk: Buffer) => {
        received = Buffer.concat([received, chunk]);
        const parsed = parseDirectPreamble(received);
        if (parsed.kind === 'incomplete') return;
        socket.off('data', onData);
        if (parsed.kind === 'invalid' || parsed.secret !== secret || taken) return void socket.destroy();
        taken = true;
        socket.pause();
        if (parsed.rest.length > 0) socket.unshift(parsed.rest);
        dialled(socket);
      };
      socket.on('data', onData);
    });
    const listening = server;
    await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
    const { port } = listening.address() as AddressInfo;
    control = await openControlChannel(identity.record, {
      key: identity.privateKey,
      certificate: identity.certificate,
    });
    await control.request('advertise', { via, allow, addresses: [`127.0.0.1:${port}`], secret, warm: 0 });
    let timer: NodeJS.Timeout | undefined;
    const raw = await Promise.race([
      first,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`the outlet of ${via} did not dial within ${timeoutMs} ms`)),
          timeoutMs,
        );
      }),
    ]).finally(() => clearTimeout(timer));
    return { raw, close };
  } catch (error) {
    close();
    throw error;
  }
}

export interface CraftedHandshake {
  readonly socket: TLSSocket;
  /** What the outlet said of this member, sent as soon as its TLS handshake was done. */
  readonly outletVerdict: Verdict;
  /** The outlet's attributes, from its certificate: what this side's verdict says it saw. */
  readonly outletAttributes: readonly string[];
}

/**
 * The inlet's TLS handshake over `raw` with `certificate` (a certificate of the member's own key), and
 * the outlet's verdict read; this side's verdict is not sent (see sendVerdict).
 */
export async function handshakeAsInlet(
  raw: Socket,
  identity: StoredIdentity,
  certificate = identity.certificate,
): Promise<CraftedHandshake> {
  raw.allowHalfOpen = false;
  const socket = connectTls({
    socket: raw,
    secureContext: clientContext({ key: identity.privateKey, certificate, authority: identity.authority }),
    rejectUnauthorized: true,
    ALPNProtocols: e2eAlpn,
    checkServerIdentity: () => undefined,
  });
  socket.on('error', () => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    socket.once('secureConnect', () => resolve());
    socket.once('close', () => reject(new Error('the outlet closed the connection during the TLS handshake')));
  });
  const outletVerdict = (await readOneJsonLine(socket, e2eHandshakeTimeoutMs)) as Verdict;
  const peer = socket.getPeerX509Certificate();
  return { socket, outletVerdict, outletAttributes: (peer ? identityOf(peer)?.attributes : undefined) ?? [] };
}

/** This side's verdict: it accepts the outlet and asks for a multiplexed session. */
export function sendVerdict(socket: TLSSocket, outletAttributes: readonly string[], allow: string): void {
  const verdict: Verdict = {
    accept: true,
    saw: outletAttributes,
    want: allow,
    protocol: e2eProtocolVersion,
    mode: 'session',
  };
  socket.write(`${JSON.stringify(verdict)}\n`);
}
