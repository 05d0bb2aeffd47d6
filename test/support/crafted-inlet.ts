/**
 * An inlet that runs its own code with its own enrolled key. It reaches an outlet one of three ways:
 * through the project's relay (relayedRaw), on the direct path through the real DirectListener
 * (directRaw), or on the direct path through a listener of its own that it advertises and reads the
 * outlet's preamble on itself (dialledByOutlet). Over any of them, craftedChannel completes the
 * end-to-end TLS handshake with the certificate it chooses, and then sends its verdict, stream opens
 * and bytes only when the caller says so. Real sockets and real TLS; only the inlet's logic is crafted.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { connect as connectTls, type TLSSocket } from 'node:tls';
import { DirectListener } from '../../src/node/direct-listener.ts';
import type { StoredIdentity } from '../../src/node/identity-store.ts';
import { identityOf } from '../../src/pki/identity.ts';
import {
  ServiceChannel,
  controllerTarget,
  openControlChannel,
  type ControlChannel,
} from '../../src/wire/control-channel.ts';
import { parseDirectPreamble } from '../../src/wire/protocol.ts';
import { e2eProtocolVersion, type Verdict } from '../../src/wire/protocol/e2e.ts';
import { FrameType, encodeFrame, encodeWindow } from '../../src/wire/protocol/mux-frame.ts';
import type { ControllerOperations, RelayOperations } from '../../src/wire/protocol.ts';
import { dialSplice } from '../../src/wire/splice.ts';
import { clientContext, e2eAlpn } from '../../src/wire/tls-contexts.ts';

export interface CraftedChannel {
  readonly socket: TLSSocket;
  /** When the socket closed (performance-free: Date.now()), once it has. */
  readonly closedAt: Promise<number>;
  /** The outlet's verdict line, once it came; rejects if the socket closed before it. */
  readonly outletVerdict: Promise<string>;
  /** The outlet's attributes, from its certificate: what an honest inlet's verdict says it saw. */
  readonly outletAttributes: readonly string[];
  /**
   * Sends the verdict an honest inlet of the current end-to-end protocol would send: it accepts the
   * outlet, saw `saw` and asks for a multiplexed session; false if the socket is gone.
   */
  sendVerdict(allow: string, saw?: readonly string[]): boolean;
  /** Opens stream `id` with `bytes` right behind it; false if the socket is gone. */
  openStream(id: number, bytes: Buffer): boolean;
  /** Every frame type the outlet sent after its verdict, in order. */
  readonly framesSeen: number[];
}

/**
 * The inlet's TLS client over `raw` with `certificate` (one of the identity's own key; by default its
 * enrolled one), with its verdict held back. Rejects if the outlet closes during the handshake.
 */
export async function craftedChannel(
  raw: Socket,
  identity: StoredIdentity,
  certificate = identity.certificate,
): Promise<CraftedChannel> {
  // The direct listener's connections are half-open (for warm streams): the outlet's close is an end here.
  raw.allowHalfOpen = false;
  const socket = connectTls({
    socket: raw,
    secureContext: clientContext({ key: identity.privateKey, certificate, authority: identity.authority }),
    rejectUnauthorized: true,
    ALPNProtocols: e2eAlpn,
    checkServerIdentity: () => undefined,
  });
  socket.on('error', () => socket.destroy());
  const closedAt = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now())));
  await new Promise<void>((resolve, reject) => {
    socket.once('secureConnect', () => resolve());
    socket.once('close', () => reject(new Error('the outlet closed the connection during the TLS handshake')));
  });
  const framesSeen: number[] = [];
  let buffered = Buffer.alloc(0);
  let verdictSeen = false;
  let resolveVerdict: (line: string) => void = () => undefined;
  const outletVerdict = new Promise<string>((resolve, reject) => {
    resolveVerdict = resolve;
    socket.once('close', () => reject(new Error("the connection closed before the outlet's verdict")));
  });
  // Callers that never wait for the verdict must not leave its rejection unhandled.
  outletVerdict.catch(() => undefined);
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
  const peer = socket.getPeerX509Certificate();
  const outletAttributes = (peer ? identityOf(peer)?.attributes : undefined) ?? [];
  const write = (bytes: Buffer | string) => !socket.destroyed && socket.write(bytes) !== undefined;
  return {
    socket,
    closedAt,
    outletVerdict,
    outletAttributes,
    framesSeen,
    sendVerdict: (allow, saw = outletAttributes) => {
      const verdict: Verdict = { accept: true, saw, want: allow, protocol: e2eProtocolVersion, mode: 'session' };
      return write(`${JSON.stringify(verdict)}\n`);
    },
    openStream: (id, bytes) =>
      write(
        Buffer.concat([
          encodeFrame(FrameType.open, id, encodeWindow({ initial: 128 * 1024, most: 4 * 1024 * 1024 })),
          encodeFrame(FrameType.data, id, bytes),
        ]),
      ),
  };
}

/** The outlet's verdict, parsed; rejects if it did not come within `timeoutMs` or the socket closed first. */
export async function outletVerdictWithin(channel: CraftedChannel, timeoutMs: number): Promise<Verdict> {
  let timer: NodeJS.Timeout | undefined;
  const line = await Promise.race([
    channel.outletVerdict,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no verdict from the outlet within ${timeoutMs} ms`)), timeoutMs);
    }),
  ]).finally(() => clearTimeout(timer));
  return JSON.parse(line) as Verdict;
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

export interface DirectDial {
  /** The outlet's connection, past its preamble. */
  readonly raw: Socket;
  /** Closes the listener and the control channel (the advert goes with it). */
  close(): void;
}

/**
 * The direct path through a plain listener of the member's own, not the node's DirectListener: it
 * advertises a path for `via` that allows `allow` and resolves with the first connection that names
 * its secret, the outlet of `via` dialling it. Later dials are closed.
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
