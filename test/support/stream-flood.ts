/**
 * A patched inlet: a member the outlet allows opens a session (splice, end-to-end TLS, verdicts) and
 * writes `open` frames as fast as it can, reading every answer, so that the outlet would dial its
 * target for each. Counts what the outlet answered: accepts and refusals.
 */
import { ServiceChannel } from '../../src/wire/control-channel.ts';
import { openInletChannel, type SessionCredentials } from '../../src/wire/e2e-session.ts';
import type { RelayOperations } from '../../src/wire/protocol.ts';
import { dialSplice } from '../../src/wire/splice.ts';
import type { StoredIdentity } from '../../src/node/identity-store.ts';
import {
  FrameType,
  decodeHeader,
  decodeRefusal,
  encodeFrame,
  encodeWindow,
  frameHeaderSize,
} from '../../src/wire/protocol/mux-frame.ts';
import { muxDefaults } from '../../src/wire/mux.ts';

export interface StreamFlood {
  readonly opened: number;
  readonly accepted: number;
  readonly refused: number;
  readonly reasons: ReadonlySet<string>;
  /** The outlet closed the session before every open was answered. */
  readonly closedEarly: boolean;
  /** Closes the session and the relay channel. */
  close(): void;
}

/**
 * `relayAddress`: the relay (or controller port) to ask; `relay`/`allow`: the relay name and the outlet
 * attribute. With `batch`, the opens go `batch` at a time, each batch once the one before is answered
 * (or after 1 s): a flooder that keeps its session by never letting its answers pile up.
 */
export async function floodStreams(
  identity: StoredIdentity,
  relayAddress: string,
  relayFingerprint: string,
  relay: string,
  allow: string,
  count: number,
  settleMs = 10_000,
  batch = count,
): Promise<StreamFlood> {
  const channel = await ServiceChannel.open<RelayOperations>(
    { service: 'relay', address: relayAddress, fingerprint: relayFingerprint },
    { key: identity.privateKey, certificate: identity.certificate },
  );
  const credentials: SessionCredentials = {
    key: identity.privateKey,
    certificate: identity.certificate,
    authority: identity.authority,
    projectId: identity.record.projectId,
  };
  const grant = await channel.request('connect', { relay, allow });
  const raw = await dialSplice(relayAddress, grant.splice, 'inlet', grant.secret);
  const { socket } = await openInletChannel(raw, credentials, allow, 'session');
  let accepted = 0;
  let refused = 0;
  const reasons = new Set<string>();
  let pending = Buffer.alloc(0);
  let done: () => void = () => undefined;
  const answered = new Promise<void>((resolve) => (done = resolve));
  let closed = false;
  let progress: () => void = () => undefined;
  socket.on('data', (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    while (pending.length >= frameHeaderSize) {
      const { type, length } = decodeHeader(pending);
      const end = frameHeaderSize + length;
      if (pending.length < end) break;
      if (type === FrameType.accept) accepted += 1;
      if (type === FrameType.refuse) {
        refused += 1;
        const refusal = decodeRefusal(pending.subarray(frameHeaderSize, end));
        reasons.add(typeof refusal === 'string' ? refusal : refusal.reason);
      }
      pending = pending.subarray(end);
    }
    progress();
    if (accepted + refused >= count) done();
  });
  socket.on('error', () => undefined);
  socket.once('close', () => {
    closed = true;
    progress();
    done();
  });
  // The verdict's reader paused the socket: the frames after it flow from here.
  socket.resume();
  const window = encodeWindow({ initial: muxDefaults.initialWindow, most: muxDefaults.maxWindow });
  for (let first = 1; first <= count && !closed; first += batch) {
    const last = Math.min(count, first + batch - 1);
    for (let id = first; id <= last; id += 1) socket.write(encodeFrame(FrameType.open, id, window));
    if (last === count) break;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 1000);
      progress = () => {
        if (closed || accepted + refused >= last) {
          clearTimeout(timer);
          resolve();
        }
      };
      progress();
    });
  }
  await Promise.race([answered, new Promise((resolve) => setTimeout(resolve, settleMs))]);
  return {
    opened: count,
    accepted,
    refused,
    reasons,
    closedEarly: closed && accepted + refused < count,
    close() {
      socket.destroy();
      channel.destroy();
    },
  };
}
