/**
 * An inlet that runs its own code with its own enrolled key: it reaches an outlet through a relay or
 * on the direct path, completes the end-to-end TLS handshake, and then sends its verdict, stream opens
 * and bytes only when the test says so. Real sockets and real TLS; only the inlet's logic is crafted.
 */
import { once } from 'node:events';
import type { Socket } from 'node:net';
import { connect as connectTls, type TLSSocket } from 'node:tls';
import { DirectListener } from '../../src/node/direct-listener.ts';
import type { StoredIdentity } from '../../src/node/identity-store.ts';
import { ServiceChannel, controllerTarget } from '../../src/wire/control-channel.ts';
import { e2eProtocolVersion } from '../../src/wire/protocol/e2e.ts';
import { FrameType, encodeFrame, encodeWindow } from '../../src/wire/protocol/mux-frame.ts';
import type { ControllerOperations, RelayOperations } from '../../src/wire/protocol.ts';
import { dialSplice } from '../../src/wire/splice.ts';
import { clientContext, e2eAlpn } from '../../src/wire/tls-contexts.ts';

export interface CraftedChannel {
  readonly socket: TLSSocket;
  /** When the socket closed (performance-free: Date.now()), once it has. */
  readonly closedAt: Promise<number>;
  /** The outlet's verdict line, once it came. */
  readonly outletVerdict: Promise<string>;
  /** Sends the verdict an honest inlet of end-to-end protocol 5 would send; false if the socket is gone. */
  sendVerdict(allow: string, saw: readonly string[]): boolean;
  /** Opens stream `id` with `bytes` right behind it; false if the socket is gone. */
  openStream(id: number, bytes: Buffer): boolean;
  /** Every frame type the outlet sent after its verdict, in order. */
  readonly framesSeen: number[];
}

const credentialsOf = (identity: StoredIdentity) => ({
  key: identity.privateKey,
  certificate: identity.certificate,
  authority: identity.authority,
  projectId: identity.record.projectId,
});

/** The inlet's TLS client over `raw`, with its verdict held back. */
export async function craftedChannel(raw: Socket, identity: StoredIdentity): Promise<CraftedChannel> {
  // The direct listener's connections are half-open (for warm streams): the outlet's close is an end here.
  raw.allowHalfOpen = false;
  const socket = connectTls({
    socket: raw,
    secureContext: clientContext(credentialsOf(identity)),
    rejectUnauthorized: true,
    ALPNProtocols: e2eAlpn,
    checkServerIdentity: () => undefined,
  });
  socket.on('error', () => socket.destroy());
  const closedAt = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now())));
  await once(socket, 'secureConnect');
  const framesSeen: number[] = [];
  let buffered = Buffer.alloc(0);
  let verdictSeen = false;
  let resolveVerdict: (line: string) => void = () => undefined;
  const outletVerdict = new Promise<string>((resolve) => (resolveVerdict = resolve));
  socket.on('data', (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    if (!verdictSeen) {
      const end = buffered.indexOf(10);
      if (end < 0) return;
      verdictSeen = true;
      resolveVerdict(buffered.subarray(0, end).toString());
      buffered = buffered.subarray(end + 1);
    }
    while (buffered.length >= 9) {
      const length = buffered.readUInt32BE(5);
      if (buffered.length < 9 + length) return;
      framesSeen.push(buffered[0] as number);
      buffered = buffered.subarray(9 + length);
    }
  });
  const write = (bytes: Buffer | string) => !socket.destroyed && socket.write(bytes) !== undefined;
  return {
    socket,
    closedAt,
    outletVerdict,
    framesSeen,
    sendVerdict: (allow, saw) =>
      write(`${JSON.stringify({ accept: true, saw, want: allow, protocol: e2eProtocolVersion, mode: 'session' })}\n`),
    openStream: (id, bytes) =>
      write(
        Buffer.concat([
          encodeFrame(FrameType.open, id, encodeWindow({ initial: 128 * 1024, most: 4 * 1024 * 1024 })),
          encodeFrame(FrameType.data, id, bytes),
        ]),
      ),
  };
}

/** The relay of the project (the controller's own) and a splice to an outlet of `via` there. */
export async function relayedRaw(identity: StoredIdentity, via: string, allow: string): Promise<Socket> {
  const creds = { key: identity.privateKey, certificate: identity.certificate };
  const control = await ServiceChannel.open<ControllerOperations>(controllerTarget(identity.record), creds);
  try {
    const [entry] = (await control.request('relays', {})).relays;
    if (!entry) throw new Error('the project has no relay');
    const relay = await ServiceChannel.open<RelayOperations>(
      { service: 'relay', address: entry.address, fingerprint: entry.fingerprint },
      creds,
    );
    try {
      const grant = await relay.request('connect', { relay: via, allow });

      return await dialSplice(entry.address, grant.splice, 'inlet', grant.secret);
    } finally {
      relay.close();
    }
  } finally {
    control.close();
  }
}

/**
 * The direct path: a listener of the inlet's, advertised through the controller for the outlets of
 * `via`; resolves with the connection the outlet dials, and what to close when done (the advert
 * lives while its control connection does).
 */
export async function directRaw(
  identity: StoredIdentity,
  via: string,
  allow: string,
): Promise<{ raw: Socket; close(): Promise<void> }> {
  const listener = await DirectListener.bind('127.0.0.1:0');
  const dialled = new Promise<Socket>((resolve) => listener.serve(resolve));
  const creds = { key: identity.privateKey, certificate: identity.certificate };
  const control = await ServiceChannel.open<ControllerOperations>(controllerTarget(identity.record), creds);
  const close = async () => {
    control.destroy();
    await listener.close();
  };
  try {
    await control.request('advertise', {
      via,
      allow,
      addresses: listener.addresses(),
      secret: listener.secret,
      warm: 0,
    });
    return { raw: await dialled, close };
  } catch (error) {
    await close();
    throw error;
  }
}
