import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { Socket } from 'node:net';
import fc from 'fast-check';
import { PortalError } from '../../src/shared/errors.ts';
import { GoAwayCode, MuxSession, RefusalCode } from '../../src/wire/mux.ts';
import { FrameReader } from '../../src/wire/mux/frame-reader.ts';
import {
  FrameType,
  checkHeader,
  encodeCredit,
  encodeFrame,
  encodeGoAway,
  encodeHeader,
  encodeRefusal,
  encodeWindow,
  frameLimits,
  type FrameHeader,
  type MuxRole,
} from '../../src/wire/protocol/mux-frame.ts';
import { acceptFrame, closeAll, dial, goAwayOf, linked, listen, onFrames, openFrame } from '../support/mux-peers.ts';
import { chunked, describeError, fuzz, longRun, timed } from './fuzz.ts';

const role = fc.constantFrom<MuxRole>('inlet', 'outlet');
const u32 = fc.oneof(fc.integer({ min: 0, max: 70_000 }), fc.integer({ min: 0, max: 0xffff_ffff }));

/** A header with any type byte, the real ones or not. */
function header(type: number, id: number, length: number): Buffer {
  const bytes = encodeHeader(FrameType.open, id, length);
  bytes[0] = type;
  return bytes;
}

/** The body a frame of `type` would carry, with values a peer might get wrong. */
function bodyOf(type: number): fc.Arbitrary<Buffer> {
  switch (type) {
    case FrameType.open:
    case FrameType.accept:
      return fc.tuple(u32, u32).map(([initial, most]) => encodeWindow({ initial, most }));
    case FrameType.refuse:
      return fc
        .tuple(fc.integer({ min: 0, max: 3 }), fc.string({ maxLength: 40 }))
        .map(([code, reason]) => encodeRefusal(code as RefusalCode, reason));
    case FrameType.data:
      return fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes));
    case FrameType.credit:
      return u32.map(encodeCredit);
    case FrameType.ping:
    case FrameType.pong:
      return fc.uint8Array({ minLength: 8, maxLength: 8 }).map((bytes) => Buffer.from(bytes));
    case FrameType.goAway:
      return fc.integer({ min: 0, max: 4 }).map((code) => encodeGoAway(code as GoAwayCode));
    default:
      return fc.constant(Buffer.alloc(0));
  }
}

/** A frame a peer might send: mostly well-formed ones on the first few streams, now and then anything. */
const frame: fc.Arbitrary<Buffer> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc
      .tuple(fc.integer({ min: FrameType.open, max: FrameType.goAway }), fc.oneof(fc.integer({ min: 0, max: 4 }), u32))
      .chain(([type, id]) => bodyOf(type).map((body) => Buffer.concat([header(type, id, body.length), body]))),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.integer({ min: 0, max: 255 }), u32, fc.uint8Array({ maxLength: 24 }))
      .map(([type, id, body]) => Buffer.concat([header(type, id, body.length), Buffer.from(body)])),
  },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 24 }).map((bytes) => Buffer.from(bytes)) },
);

/** What a peer does next in a session that mostly keeps to the protocol. */
interface Move {
  readonly kind: 'open' | 'answer' | 'data' | 'end' | 'reset' | 'credit' | 'ping' | 'goAway';
  readonly id: number;
  readonly size: number;
}

const move: fc.Arbitrary<Move> = fc.record({
  kind: fc.constantFrom('open', 'answer', 'data', 'end', 'reset', 'credit', 'ping', 'goAway'),
  id: fc.integer({ min: 1, max: 3 }),
  // Now and then more than a window: what a peer that ignores the windows sends.
  size: fc.oneof({ weight: 9, arbitrary: fc.integer({ min: 0, max: 64 }) }, fc.constant(frameLimits.openAllowance + 1)),
});

/** The frames of `moves` as the peer of `as` would send them: an outlet's peer opens streams, an inlet's answers. */
function framesOf(as: MuxRole, moves: readonly Move[]): Buffer {
  let opened = 0;
  const window = { initial: frameLimits.openAllowance, most: 4 * frameLimits.openAllowance };
  const frames = moves.map(({ kind, id, size }) => {
    switch (kind) {
      case 'open':
        // An inlet's peer opens nothing: it ends a stream instead.
        return as === 'outlet' ? openFrame((opened += 1), window) : encodeFrame(FrameType.end, id);
      case 'answer':
        if (as === 'outlet') return encodeFrame(FrameType.ping, 0, Buffer.alloc(8, size));
        if (size % 2 === 0) return acceptFrame(id, window);
        return encodeFrame(FrameType.refuse, id, encodeRefusal((size % 4) as RefusalCode, 'no'));
      case 'data':
        return encodeFrame(FrameType.data, id, Buffer.alloc(size, id));
      case 'end':
        return encodeFrame(FrameType.end, id);
      case 'reset':
        return encodeFrame(FrameType.reset, id);
      case 'credit':
        return encodeFrame(FrameType.credit, id, encodeCredit(size));
      case 'ping':
        return encodeFrame(FrameType.ping, 0, Buffer.alloc(8, size));
      case 'goAway':
        return encodeFrame(FrameType.goAway, 0, encodeGoAway((size % 3) as GoAwayCode));
    }
  });
  return Buffer.concat(frames);
}

/** Some bytes of `bytes` flipped. */
const flipped = (bytes: Buffer): fc.Arbitrary<Buffer> =>
  fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })), { minLength: 1, maxLength: 3 }).map((flips) => {
    const copy = Buffer.from(bytes);
    for (const [at, mask] of flips) {
      if (copy.length > 0) copy.writeUInt8(copy.readUInt8(at % copy.length) ^ mask, at % copy.length);
    }
    return copy;
  });

/** What the peer of `as` sends: a session that mostly keeps to the protocol, or any frames; some bytes flipped. */
const receivedBy = (as: MuxRole): fc.Arbitrary<Buffer> =>
  fc
    .oneof(
      fc.array(move, { maxLength: 16 }).map((moves) => framesOf(as, moves)),
      fc.array(frame, { maxLength: 12 }).map((frames) => Buffer.concat(frames)),
    )
    .chain((bytes) => fc.oneof({ weight: 2, arbitrary: fc.constant(bytes) }, flipped(bytes)));

const received = role.chain((as) => fc.tuple(fc.constant(as), receivedBy(as)));

interface Decoded {
  /** Each frame read: its type, stream and whole body. */
  readonly frames: string[];
  readonly problem: string | undefined;
}

/** What a reader makes of `chunks` as `as` would: the frames, and the problem that stopped it. */
function decode(as: MuxRole, chunks: readonly Buffer[]): Decoded {
  const frames: string[] = [];
  let lastOpened = 0;
  let dataOf: number | undefined;
  const reader = new FrameReader({
    reading: () => true,
    checkHeader: (read: FrameHeader) => {
      const problem = checkHeader(read, as, lastOpened);
      if (problem !== undefined) return problem;
      if (read.type === FrameType.open) lastOpened = read.id;
      dataOf = read.type === FrameType.data ? read.id : undefined;
      if (dataOf !== undefined) frames.push(`data ${read.id} `);
      return undefined;
    },
    data: (id, piece) => {
      // A data body's pieces come in order, right after its header, and nothing else comes between.
      assert.equal(id, dataOf, 'the pieces of the data frame just announced');
      frames[frames.length - 1] += piece.toString('hex');
    },
    control: (type, id, body) => {
      assert.notEqual(type, FrameType.data);
      frames.push(`${type} ${id} ${body.toString('hex')}`);
    },
  });
  let problem: string | undefined;
  for (const chunk of chunks) problem = reader.read(chunk) ?? problem;
  return { frames, problem };
}

/** Rejects after `ms`: a session that neither carries on nor closes is stuck. */
const within = <T>(ms: number, what: Promise<T>): Promise<T> =>
  Promise.race([
    what,
    new Promise<T>((_resolve, reject) => setTimeout(() => reject(new Error(`no close within ${ms} ms`)), ms).unref()),
  ]);

describe('fuzz: the frames of an end-to-end session (src/wire/protocol/mux-frame.ts)', function () {
  if (longRun) this.timeout(0);
  afterEach(closeAll);

  it('reads any bytes without throwing: frames until the first problem, however the bytes arrive', async () => {
    const input = received.chain(([as, bytes]) => fc.tuple(fc.constant(as), fc.constant(bytes), chunked(bytes)));
    await fuzz(
      'mux frame reader',
      fc.property(input, ([as, bytes, chunks]) => {
        const whole = timed(250, () => decode(as, [bytes]));
        const pieces = timed(250, () => decode(as, chunks));
        assert.deepEqual(pieces, whole, 'the same frames and problem however the bytes arrive');
        if (whole.problem !== undefined) {
          assert.ok(whole.problem.length > 0, 'a problem says what it is');
          // A reader stopped by a problem reads nothing more.
          const more = decode(as, [bytes, encodeHeader(FrameType.end, 1, 0)]);
          assert.deepEqual(more, whole);
        }
      }),
      1000,
    );
  });

  it('ends a session fed any frames with a stable code, a violation after a go-away; never hangs', async () => {
    await fuzz(
      'mux session',
      fc.asyncProperty(received, async ([as, bytes]) => {
        try {
          const target = await listen((socket) => socket.resume());
          const [raw, link] = await linked();
          let opens = 0;
          onFrames(raw, (type) => (opens += type === FrameType.open ? 1 : 0));
          const session = sessionOf(as, link, target);
          const closed = once(session, 'close') as Promise<[Error]>;
          const goAway = goAwayOf(raw);
          // The peer of an inlet answers the streams it opened: once their opens are out.
          while (as === 'inlet' && opens < 2) await new Promise((resolve) => setTimeout(resolve, 1));
          raw.end(bytes);
          const [why] = await within(5000, closed);
          assert.ok(why instanceof PortalError, `closed with ${describeError(why)}`);
          assert.ok(
            why.code === 'SESSION_CLOSED' || why.code === 'SESSION_PROTOCOL_ERROR',
            `closed with ${describeError(why)}`,
          );
          if (why.code === 'SESSION_PROTOCOL_ERROR')
            assert.equal(await within(5000, goAway), GoAwayCode.protocolError, 'a violation is told to the peer');
          // Bytes the codec refuses are a violation, unless the peer's go-away closed the session first.
          const decoded = decode(as, [bytes]);
          const wentAway = decoded.frames.some((line) => line.startsWith(`${FrameType.goAway} `));
          if (as === 'outlet' && decoded.problem !== undefined && !wentAway)
            assert.equal(why.code, 'SESSION_PROTOCOL_ERROR', `closed with ${describeError(why)}`);
        } finally {
          closeAll();
        }
      }),
      60,
    );
  });
});

/**
 * A session as `as`: an outlet that refuses every other stream and sends the rest to `target`,
 * accepted once connected; an inlet with two streams open, so that the peer's frames have something
 * to hit.
 */
function sessionOf(as: MuxRole, link: Socket, target: number): MuxSession {
  if (as === 'outlet') {
    let streams = 0;
    return new MuxSession(link, 'outlet', {
      onStream: (stream) => {
        streams += 1;
        if (streams % 2 === 0) return stream.refuse('refused by the fuzz', RefusalCode.refused);
        const socket = dial(target);
        void stream.attach(socket);
        socket.once('connect', () => stream.accept());
      },
    });
  }
  const session = new MuxSession(link, 'inlet');
  for (let i = 0; i < 2; i += 1) session.open(dial(target), 10_000).answered.catch(() => undefined);
  return session;
}
