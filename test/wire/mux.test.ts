import assert from 'node:assert/strict';
import { once } from 'node:events';
import { Socket, createServer, type AddressInfo } from 'node:net';
import {
  GoAwayCode,
  MuxSession,
  RefusalCode,
  SessionClosed,
  SessionGoneAway,
  SessionProtocolError,
  StreamRefused,
  muxDefaults,
  type IncomingStream,
} from '../../src/wire/mux.ts';
import { InputError } from '../../src/shared/errors.ts';
import { settingsOf } from '../../src/wire/mux/options.ts';
import { versionHint } from '../../src/wire/protocol.ts';
import { e2eProtocolVersion, parseVerdict } from '../../src/wire/protocol/e2e.ts';
import {
  FrameType,
  decodeCredit,
  decodeRefusal,
  decodeWindow,
  encodeCredit,
  encodeFrame,
  encodeHeader,
  encodeRefusal,
  frameLimits,
  type AdvertisedWindow,
} from '../../src/wire/protocol/mux-frame.ts';
import {
  acceptFrame,
  closeAll,
  countWrites,
  dial,
  frameName,
  goAwayOf,
  linked,
  listen,
  onFrames,
  openFrame,
  readAll,
  resetByPeer,
  sha,
  track,
  turn,
} from '../support/mux-peers.ts';

/** An outlet's session on `link` whose streams go to `targetPort`, accepted once connected unless told not to. */
function outletOn(
  link: Socket,
  targetPort: number,
  targets: Socket[] = [],
  accept = true,
  maxStreams?: number,
): MuxSession {
  return new MuxSession(link, 'outlet', {
    ...(maxStreams === undefined ? {} : { maxStreams }),
    onStream: (stream: IncomingStream) => {
      const target = dial(targetPort);
      targets.push(target);
      void stream.attach(target);
      if (accept) target.once('connect', () => stream.accept());
    },
  });
}

interface Pair {
  readonly inlet: MuxSession;
  readonly outlet: MuxSession;
  /** The port clients connect to: each connection rides a stream of the inlet's session. */
  readonly front: number;
  /** What became of each client's stream at the inlet. */
  readonly answers: Promise<void>[];
  /** The outlet's target sockets, in the order the streams came. */
  readonly targets: Socket[];
}

/** An inlet and an outlet session over one loopback connection, the outlet's streams going to `targetPort`. */
async function pair(targetPort: number): Promise<Pair> {
  const targets: Socket[] = [];
  const [inletLink, outletLink] = await linked();
  const outlet = outletOn(outletLink, targetPort, targets);
  const inlet = new MuxSession(inletLink, 'inlet');
  const answers: Promise<void>[] = [];
  const front = await listen((client) => {
    const { answered } = inlet.open(client, 5000);
    answered.catch(() => undefined);
    answers.push(answered);
  });
  return { inlet, outlet, front, answers, targets };
}

function windowOf(body: Buffer): AdvertisedWindow {
  const window = decodeWindow(FrameType.open, body);
  if (typeof window === 'string') assert.fail(window);
  return window;
}

/** A frame as a test names it: its type, stream and, for data, its bytes. */
const described = (type: number, id: number, body: Buffer) =>
  `${frameName(type)}:${id}${type === FrameType.data ? `:${body.toString()}` : ''}`;

describe('session multiplexer (the streams of an end-to-end session)', () => {
  afterEach(closeAll);

  it('carries bytes both ways, each half-close on its own, and the answer before the client waits', async () => {
    // The target answers "bye" only once the client has finished sending.
    const targetPort = await listen((socket) => {
      const got = readAll(socket);
      void got.then((data) => socket.end(Buffer.concat([Buffer.from('got '), data, Buffer.from(' bye')])));
    });
    const { front, answers } = await pair(targetPort);
    const client = dial(front);
    client.end('hello');
    assert.equal((await readAll(client)).toString(), 'got hello bye');
    await answers[0];
  });

  it('carries 32 MiB each way on 4 streams at once, intact', async () => {
    const targetPort = await listen((socket) => socket.pipe(socket));
    const { front } = await pair(targetPort);
    const payload = Buffer.alloc(8 * 1024 * 1024);
    for (let i = 0; i < payload.length; i += 4) payload.writeUInt32LE((i * 2654435761) >>> 0, i);
    const runs = [0, 1, 2, 3].map(async () => {
      const client = dial(front);
      const echoed = readAll(client);
      client.end(payload);
      return sha(await echoed);
    });
    assert.deepEqual(await Promise.all(runs), Array(4).fill(sha(payload)));
  });

  it('refuses a stream whose target cannot be reached, naming why', async () => {
    const closedPort = await listen(() => undefined);
    closeAll();
    const { front, answers } = await pair(closedPort);
    const client = dial(front);
    // A reset, not a clean end with no bytes: the client knows it was not served.
    await resetByPeer(client);
    while (answers.length === 0) await new Promise((resolve) => setImmediate(resolve));
    await assert.rejects(
      answers[0] as Promise<void>,
      (error: Error) => error instanceof StreamRefused && error.message === 'the outlet cannot reach its target',
    );
  });

  it(
    "resets clients and targets, never ends them, when the link ends without their streams' ends " +
      '(a relay killed mid-transfer)',
    async () => {
      const targets: Socket[] = [];
      const targetPort = await listen((socket) => {
        targets.push(socket);
        socket.on('error', () => undefined);
        socket.write(Buffer.alloc(64 * 1024, 1));
      });
      const [inletLink, outletLink] = await linked();
      outletOn(outletLink, targetPort);
      const inlet = new MuxSession(inletLink, 'inlet');
      const clients: Socket[] = [];
      const front = await listen((client) => void inlet.open(client, 5000).answered.catch(() => undefined));
      for (let i = 0; i < 3; i += 1) clients.push(dial(front));
      for (const client of clients) {
        client.write('x');
        await once(client, 'data');
      }
      const resets = clients.map((client) => resetByPeer(client));
      const targetResets = targets.map((target) => resetByPeer(target));
      // What the far side sees when the process between dies: a FIN, with no stream's end before it.
      outletLink.end();
      await Promise.all([...resets, ...targetResets]);
    },
  );

  it('resets the other side when a client goes away without a half-close', async () => {
    const targetPort = await listen(() => undefined);
    const { front, targets, answers } = await pair(targetPort);
    const client = dial(front);
    client.write('x');
    while (answers.length === 0) await new Promise((resolve) => setImmediate(resolve));
    await answers[0];
    client.resetAndDestroy();
    await once(targets[0] as Socket, 'close');
  });

  it('stalls only the stream whose reader stopped, buffering at most its window, and loses nothing', async () => {
    let stalled: Socket | undefined;
    const targetPort = await listen((socket) => {
      if (stalled) {
        socket.pipe(socket);
        return;
      }
      stalled = socket;
      socket.pause();
    });
    const { front, targets } = await pair(targetPort);
    const slow = dial(front);
    const payload = Buffer.alloc(48 * 1024 * 1024, 7);
    slow.end(payload);
    // Wait until what the outlet holds for the stalled target stops growing.
    let outletHolds = -1;
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const now = targets[0]?.writableLength ?? 0;
      if (now > 0 && now === outletHolds) break;
      outletHolds = now;
    }
    assert.ok(
      outletHolds <= muxDefaults.maxWindow,
      `the outlet holds ${outletHolds} bytes for the stalled stream, more than its window`,
    );
    assert.ok(slow.writableLength > 0, 'the client could hand over everything: nothing stalled it');
    // Another client of the same session still gets its answers at once.
    const other = dial(front);
    const echoed = readAll(other);
    other.end('ping');
    assert.equal((await echoed).toString(), 'ping');
    // The reader comes back: every byte arrives.
    const received = readAll(stalled as Socket);
    (stalled as Socket).resume();
    assert.equal(sha(await received), sha(payload));
  });

  it("grows the windows of streams that flow, within the session's bound, and not of stalled ones", async () => {
    // A peer that keeps to its windows: it sends on every stream all the credit it has.
    const [raw, link] = await linked();
    const grownWindows = 2 * 1024 * 1024;
    const stalledTargets: Socket[] = [];
    const drained = await listen((socket) => socket.resume());
    const stalled = await listen((socket) => {
      socket.pause();
      stalledTargets.push(socket);
    });
    const streams = 12;
    let targetsMade = 0;
    new MuxSession(link, 'outlet', {
      grownWindows,
      onStream: (stream: IncomingStream) => {
        // Streams 1 and 2 flow (their target reads); the others stall.
        const target = dial((targetsMade += 1) <= 2 ? drained : stalled);
        void stream.attach(target);
        target.once('connect', () => stream.accept());
      },
    });
    const credit = new Map<number, number>();
    const sent = new Map<number, number>();
    const chunk = Buffer.alloc(64 * 1024, 9);
    const pump = (id: number) => {
      while ((credit.get(id) ?? 0) >= chunk.length) {
        credit.set(id, (credit.get(id) ?? 0) - chunk.length);
        sent.set(id, (sent.get(id) ?? 0) + chunk.length);
        raw.write(Buffer.concat([encodeHeader(FrameType.data, id, chunk.length), chunk]));
      }
    };
    const grant = (id: number, more: number) => {
      credit.set(id, (credit.get(id) ?? 0) + more);
      pump(id);
    };
    onFrames(raw, (type, id, body) => {
      // The accept's window counts what was sent before it; a credit adds to it.
      if (type === FrameType.accept) grant(id, windowOf(body).initial - frameLimits.openAllowance);
      if (type === FrameType.credit) grant(id, decodeCredit(body));
    });
    for (let id = 1; id <= streams; id += 1) {
      credit.set(id, frameLimits.openAllowance);
      raw.write(openFrame(id));
      pump(id);
    }
    // The flowing streams carry on until they have had far more than their windows; the stalled
    // ones wait for credit that does not come, once the kernel's buffers are full.
    while ((sent.get(1) ?? 0) < 64 * 1024 * 1024 || (sent.get(2) ?? 0) < 64 * 1024 * 1024)
      await new Promise((resolve) => setTimeout(resolve, 20));
    const held = () => stalledTargets.reduce((sum, socket) => sum + socket.writableLength, 0);
    let before = -1;
    while (held() !== before) {
      before = held();
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const bound = (streams - 2) * muxDefaults.initialWindow + grownWindows;
    assert.ok(
      held() <= bound,
      `the outlet holds ${held()} bytes for ${streams - 2} stalled streams, more than ${bound}`,
    );
    assert.equal(stalledTargets.length, streams - 2);
  });

  it('answers pings, and closes gracefully: no new streams, the open ones finish', async () => {
    const targetPort = await listen((socket) => socket.pipe(socket));
    const { inlet, front } = await pair(targetPort);
    await new Promise<void>((resolve, reject) => inlet.ping((error) => (error ? reject(error) : resolve())));
    const client = dial(front);
    const echoed = readAll(client);
    client.write('one ');
    await once(client, 'data');
    inlet.close();
    const refused = dial(front);
    await resetByPeer(refused);
    const closed = once(inlet, 'close');
    client.end('two');
    assert.equal((await echoed).toString(), 'one two');
    await closed;
    assert.equal(inlet.destroyed, true);
  });

  it('ends a closing session once its last stream is reset by the peer', async () => {
    const targets: Socket[] = [];
    const targetPort = await listen((socket) => targets.push(socket));
    const { inlet, front, answers } = await pair(targetPort);
    const client = dial(front);
    client.write('x');
    while (answers.length === 0 || targets.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await answers[0];
    const closed = once(inlet, 'close');
    inlet.close();
    assert.equal(inlet.destroyed, false, 'a stream is still open');
    (targets[0] as Socket).resetAndDestroy();
    await closed;
  });

  it('sends the bytes the window held, then the end, when the client closes cleanly meanwhile', async () => {
    const [inletLink, raw] = await linked();
    const inlet = new MuxSession(inletLink, 'inlet');
    const seen: string[] = [];
    let dataBytes = 0;
    // The outlet's window is the least it may be: what the inlet may send before the answer.
    const window = { initial: frameLimits.openAllowance, most: muxDefaults.maxWindow };
    onFrames(raw, (type, id, body) => {
      if (type === FrameType.open) raw.write(Buffer.concat([acceptFrame(id, window), encodeFrame(FrameType.end, id)]));
      else if (type === FrameType.data) dataBytes += body.length;
      else seen.push(frameName(type));
    });
    const front = await listen((client) => void inlet.open(client, 5000).answered.catch(() => undefined));
    const client = dial(front);
    client.resume();
    // The outlet's end reaches the client; then the client sends a whole window and more, and ends.
    await once(client, 'end');
    client.write(Buffer.alloc(window.initial, 1));
    while (dataBytes < window.initial) await new Promise((resolve) => setTimeout(resolve, 5));
    client.end(Buffer.alloc(1000, 2));
    await once(client, 'close');
    assert.deepEqual(seen, [], 'nothing but data before the credit');
    raw.write(encodeFrame(FrameType.credit, 1, encodeCredit(window.initial)));
    while (seen.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.deepEqual(seen, ['end']);
    assert.equal(dataBytes, window.initial + 1000);
  });

  it('sends the end of a client that half-closed before its stream was opened', async () => {
    const [inletLink, raw] = await linked();
    const inlet = new MuxSession(inletLink, 'inlet');
    const seen: string[] = [];
    onFrames(raw, (type) => seen.push(frameName(type)));
    const front = await listen((client) => {
      client.pause();
      client.once('end', () => void inlet.open(client, 5000).answered.catch(() => undefined));
      client.read(0);
    });
    dial(front).end();
    while (seen.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.deepEqual(seen, ['open', 'end'], 'open, then end');
  });

  it('sends an open with the first bytes in one write, ids in order, and opens for a silent client too', async () => {
    const [inletLink, raw] = await linked();
    const inlet = new MuxSession(inletLink, 'inlet');
    const writes = countWrites(inletLink);
    const seen: string[] = [];
    onFrames(raw, (type, id, body) => seen.push(described(type, id, body)));
    // Paused: a client's bytes stay in the kernel until its stream reads them, as when one comes the
    // moment its connection is accepted.
    const accepted: Socket[] = [];
    const server = track(
      createServer({ pauseOnConnect: true }, (socket) => {
        track(socket);
        accepted.push(socket);
      }),
    );
    await once(server.listen(0, '127.0.0.1'), 'listening');
    const front = (server.address() as AddressInfo).port;
    // Clients 1 and 2 wait for the server to speak; client 3 speaks at once.
    const clients = [dial(front), dial(front), dial(front)];
    await Promise.all(clients.map((client) => once(client, 'connect')));
    clients[2]?.write('hi');
    while (accepted.length < 3) await new Promise((resolve) => setTimeout(resolve, 5));
    // The third client's bytes are waiting in its socket when its stream opens.
    await new Promise((resolve) => setTimeout(resolve, 20));
    // Opened from a socket's event, as the inlet opens streams when it accepts a client.
    const [signal, signalled] = await linked();
    signalled.once('data', () => {
      for (const socket of accepted.sort((a, b) => (a.remotePort ?? 0) - (b.remotePort ?? 0))) {
        inlet.open(socket, 5000).answered.catch(() => undefined);
      }
    });
    signal.write('go');
    while (seen.length < 4) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.deepEqual(seen, ['open:1', 'open:2', 'open:3', 'data:3:hi'], 'every open, in order, then the bytes');
    assert.equal(writes(), 1, 'the opens and the bytes in one write');
  });

  it("sends an accept with the target's first bytes in one write, or alone after a silent target's wait", async () => {
    const [raw, link] = await linked();
    const writes = countWrites(link);
    // The first target speaks at once; the second says nothing.
    let targets = 0;
    outletOn(link, await listen((socket) => (targets += 1) === 1 && socket.write('hello')));
    const seen: string[] = [];
    onFrames(raw, (type, id, body) => seen.push(described(type, id, body)));
    raw.write(openFrame(1));
    while (seen.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.deepEqual(seen, ['accept:1', 'data:1:hello']);
    assert.equal(writes(), 1, 'the accept and the bytes in one write');
    const opened = Date.now();
    raw.write(openFrame(2));
    while (seen.length < 3) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal(seen[2], 'accept:2');
    assert.ok(Date.now() - opened >= 90, `the lone accept came after ${Date.now() - opened} ms`);
  });

  it('sends no accept for a stream the inlet reset while the accept waited', async () => {
    const [raw, link] = await linked();
    const targets: Socket[] = [];
    outletOn(link, await listen(() => undefined), targets);
    const seen: string[] = [];
    onFrames(raw, (type, id) => seen.push(`${frameName(type)}:${id}`));
    raw.write(openFrame(1));
    // Reset once the target is connected: its accept is then waiting for a frame to go with.
    while (targets.length < 1 || targets[0]?.connecting) await new Promise((resolve) => setTimeout(resolve, 5));
    raw.write(encodeFrame(FrameType.reset, 1));
    // Past the longest an accept waits (100 ms), then a ping: its pong comes after anything the outlet sent.
    await new Promise((resolve) => setTimeout(resolve, 150));
    raw.write(encodeFrame(FrameType.ping, 0, Buffer.alloc(8)));
    while (!seen.includes('pong:0')) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.deepEqual(seen, ['pong:0'], 'only the pong');
  });

  it('closes the session of a peer that floods pings and reads none of the answers', async () => {
    const [raw, link] = await linked();
    raw.pause();
    const outlet = outletOn(link, await listen(() => undefined));
    const closed = once(outlet, 'close');
    let ended = false;
    void closed.then(() => (ended = true));
    const ping = encodeFrame(FrameType.ping, 0, Buffer.alloc(8));
    const batch = Buffer.concat(Array<Buffer>(4096).fill(ping));
    // The answers first fill the kernel's buffers; past them, the outlet stops at its bound.
    for (let sent = 0; !ended && sent < 256 * 1024 * 1024; sent += batch.length) {
      if (!raw.write(batch)) await Promise.race([once(raw, 'drain'), closed]);
    }
    await closed;
    assert.ok(link.writableLength < 8 * 1024 * 1024, `the outlet holds ${link.writableLength} bytes of answers`);
  });

  it('refuses streams beyond the bound, naming why, and keeps carrying the others', async () => {
    const [raw, link] = await linked();
    const targets: Socket[] = [];
    outletOn(link, await listen((socket) => socket.pipe(socket)), targets, true, 4);
    const answers = new Map<number, string>();
    onFrames(raw, (type, id, body) => {
      if (type === FrameType.accept) answers.set(id, 'accept');
      const refusal = type === FrameType.refuse ? decodeRefusal(body) : undefined;
      if (refusal !== undefined) answers.set(id, `refuse: ${typeof refusal === 'string' ? refusal : refusal.reason}`);
    });
    raw.write(Buffer.concat([1, 2, 3, 4, 5, 6].map((id) => openFrame(id))));
    while (answers.size < 6) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.deepEqual(
      [...answers.entries()].sort(([a], [b]) => a - b),
      [
        [1, 'accept'],
        [2, 'accept'],
        [3, 'accept'],
        [4, 'accept'],
        [5, 'refuse: the outlet carries too many connections on this session'],
        [6, 'refuse: the outlet carries too many connections on this session'],
      ],
    );
    assert.equal(targets.length, 4, 'no target connection beyond the bound');
  });

  describe('closes the session of a peer that breaks the protocol, with a go-away that says so', () => {
    const unknownType = encodeHeader(FrameType.open, 1, 0);
    unknownType[0] = 42;
    const cases: [string, Buffer][] = [
      ['an unknown frame type', unknownType],
      ['an accept from the inlet side', acceptFrame(1)],
      ['a frame longer than the bound', encodeHeader(FrameType.data, 1, frameLimits.dataBody + 1)],
      ['stream ids that do not grow', Buffer.concat([openFrame(5), openFrame(5)])],
      ['a ping on a stream', encodeHeader(FrameType.ping, 3, 8)],
      ['data on a stream never opened', encodeFrame(FrameType.data, 7, Buffer.from('x'))],
      ['an open with no window', encodeFrame(FrameType.open, 1, Buffer.alloc(8))],
      ['credit before the accept', Buffer.concat([openFrame(1), encodeFrame(FrameType.credit, 1, encodeCredit(1))])],
      [
        'data after the end',
        Buffer.concat([openFrame(1), encodeFrame(FrameType.end, 1), encodeFrame(FrameType.data, 1)]),
      ],
      ['an unknown go-away code', encodeFrame(FrameType.goAway, 0, Buffer.from([0, 0, 0, 9]))],
    ];
    for (const [what, bytes] of cases) {
      it(what, async () => {
        const [raw, link] = await linked();
        // Never accepted: the stream stays unanswered while the peer breaks the protocol.
        const outlet = outletOn(link, await listen(() => undefined), [], false);
        const closed = once(outlet, 'close') as Promise<[Error]>;
        const goAway = goAwayOf(raw);
        raw.write(bytes);
        const [why] = await closed;
        assert.ok(why instanceof SessionProtocolError, `closed with ${why.message}`);
        assert.equal(why.code, 'SESSION_PROTOCOL_ERROR');
        assert.match(why.message, /^the peer broke the session protocol: /);
        assert.equal(await goAway, GoAwayCode.protocolError, 'the peer hears a go-away with the code, then the end');
      });
    }

    it('data beyond the window', async () => {
      const [raw, link] = await linked();
      // Never accepted: nothing is acknowledged, so what the inlet may send before the answer is all it may.
      const outlet = outletOn(link, await listen(() => undefined), [], false);
      const closed = once(outlet, 'close') as Promise<[Error]>;
      const goAway = goAwayOf(raw);
      raw.write(openFrame(1));
      const body = Buffer.alloc(frameLimits.openAllowance + 1);
      raw.write(Buffer.concat([encodeHeader(FrameType.data, 1, body.length), body]));
      const [why] = await closed;
      assert.equal((why as SessionProtocolError).code, 'SESSION_PROTOCOL_ERROR');
      assert.equal(await goAway, GoAwayCode.protocolError);
    });
  });
});

describe('session multiplexer: go-away, pings that match their pongs, windows each receiver advertises', () => {
  afterEach(closeAll);

  it('tells the inlet on close that the outlet takes no new streams; the streams it carries finish', async () => {
    const { inlet, outlet, front, answers } = await pair(await listen((socket) => socket.pipe(socket)));
    const client = dial(front);
    const echoed = readAll(client);
    client.write('one ');
    await once(client, 'data');
    const wentAway = once(inlet, 'goaway');
    outlet.close();
    assert.deepEqual(await wentAway, [GoAwayCode.normal]);
    assert.equal(inlet.peerWentAway, GoAwayCode.normal);
    // A new client goes nowhere on this session: refused at once, with the code that sends it elsewhere.
    const refused = dial(front);
    const reset = resetByPeer(refused);
    while (answers.length < 2) await turn();
    await assert.rejects(
      answers[1] as Promise<void>,
      (error: Error) => error instanceof SessionGoneAway && error.code === 'SESSION_GONE_AWAY',
    );
    await reset;
    const closed = once(inlet, 'close') as Promise<[Error]>;
    client.end('two');
    assert.equal((await echoed).toString(), 'one two');
    const [why] = await closed;
    assert.ok(why instanceof SessionClosed, why.message);
    assert.deepEqual(
      [why.code, why.goAway, why.message],
      ['SESSION_CLOSED', GoAwayCode.normal, 'the peer closed the session'],
    );
  });

  it("refuses the opens that cross the outlet's go-away with a code, not a text to match", async () => {
    const [raw, link] = await linked();
    const outlet = outletOn(link, await listen(() => undefined));
    const seen: string[] = [];
    onFrames(raw, (type, id, body) => {
      if (type === FrameType.goAway) seen.push(`goAway:${body.readUInt32BE(0)}`);
      const refusal = type === FrameType.refuse ? decodeRefusal(body) : undefined;
      if (typeof refusal === 'object') seen.push(`refuse:${id}:${refusal.code}:${refusal.reason}`);
    });
    raw.write(openFrame(1));
    while (outlet.size === 0) await turn();
    outlet.close();
    while (seen.length === 0) await turn();
    raw.write(openFrame(2));
    while (seen.length < 2) await turn();
    assert.deepEqual(seen, [
      `goAway:${GoAwayCode.normal}`,
      `refuse:2:${RefusalCode.goingAway}:the outlet is closing the session`,
    ]);
  });

  it('rejects a stream refused as going away with SessionGoneAway, any other with STREAM_REFUSED', async () => {
    const [inletLink, raw] = await linked();
    const inlet = new MuxSession(inletLink, 'inlet');
    onFrames(raw, (type, id) => {
      if (type !== FrameType.open) return;
      const code = id === 1 ? RefusalCode.goingAway : RefusalCode.refused;
      raw.write(encodeFrame(FrameType.refuse, id, encodeRefusal(code, `refusal ${id}`)));
    });
    const opened = await Promise.all([linked(), linked()]);
    const [first, second] = opened.map(([, socket]) => inlet.open(socket, 5000).answered);
    await assert.rejects(
      first as Promise<void>,
      (error: Error) =>
        error instanceof SessionGoneAway && error.code === 'SESSION_GONE_AWAY' && error.message === 'refusal 1',
    );
    await assert.rejects(
      second as Promise<void>,
      (error: Error) =>
        error instanceof StreamRefused &&
        !(error instanceof SessionGoneAway) &&
        error.code === 'STREAM_REFUSED' &&
        error.message === 'refusal 2',
    );
  });

  it("closes the inlet's session with the outlet's word on a violation: its log names the code", async () => {
    const [inletLink, outletLink] = await linked();
    const outlet = outletOn(outletLink, await listen(() => undefined));
    const inlet = new MuxSession(inletLink, 'inlet');
    const outletClosed = once(outlet, 'close') as Promise<[Error]>;
    const inletClosed = once(inlet, 'close') as Promise<[Error]>;
    // Bytes no inlet would send: a ping on a stream.
    inletLink.write(encodeFrame(FrameType.ping, 3, Buffer.alloc(8)));
    const [outletWhy] = await outletClosed;
    assert.equal((outletWhy as SessionProtocolError).code, 'SESSION_PROTOCOL_ERROR');
    const [inletWhy] = await inletClosed;
    assert.ok(inletWhy instanceof SessionClosed, inletWhy.message);
    assert.deepEqual(
      [inletWhy.code, inletWhy.goAway, inletWhy.message],
      ['SESSION_CLOSED', GoAwayCode.protocolError, 'the peer closed the session: protocol error'],
    );
  });

  it("closes a stream's socket cut short right after the peer's end (its FIN still queued)", async () => {
    const [inletLink, raw] = await linked();
    const inlet = new MuxSession(inletLink, 'inlet');
    onFrames(raw, (type, id) => {
      if (type !== FrameType.open) return;
      // The accept, then the end and a violation in one read: the socket is cut while its FIN is queued.
      raw.write(acceptFrame(id));
      setTimeout(
        () => raw.write(Buffer.concat([encodeFrame(FrameType.end, id), encodeHeader(FrameType.ping, 9, 8)])),
        20,
      );
    });
    const [client, socket] = await linked();
    client.resume();
    inlet.open(socket, 5000).answered.catch(() => undefined);
    await once(inlet, 'close');
    const closed = await Promise.race([once(socket, 'close').then(() => true), turn(2000).then(() => false)]);
    assert.equal(closed, true, "the socket's handle closed");
  });

  it('takes a pong that answers no ping for a violation', async () => {
    const [raw, link] = await linked();
    const outlet = outletOn(link, await listen(() => undefined));
    const closed = once(outlet, 'close') as Promise<[Error]>;
    const goAway = goAwayOf(raw);
    raw.write(encodeFrame(FrameType.pong, 0, Buffer.alloc(8)));
    const [why] = await closed;
    assert.deepEqual(
      [(why as SessionProtocolError).code, why.message],
      ['SESSION_PROTOCOL_ERROR', 'the peer broke the session protocol: a pong that answers no ping'],
    );
    assert.equal(await goAway, GoAwayCode.protocolError);
  });

  it('matches each pong to its ping by payload: a pong with another payload is a violation', async () => {
    const [raw, link] = await linked();
    const outlet = outletOn(link, await listen(() => undefined));
    const payloads: Buffer[] = [];
    onFrames(raw, (type, _id, body) => type === FrameType.ping && payloads.push(Buffer.from(body)));
    const answered: string[] = [];
    outlet.ping(() => answered.push('first'));
    outlet.ping(() => answered.push('second'));
    while (payloads.length < 2) await turn();
    assert.notDeepEqual(payloads[0], payloads[1], 'each ping has its own payload');
    // The second answered first: matched by payload, not by order.
    raw.write(encodeFrame(FrameType.pong, 0, payloads[1]));
    while (answered.length < 1) await turn();
    assert.deepEqual(answered, ['second']);
    const closed = once(outlet, 'close') as Promise<[Error]>;
    const other = Buffer.from(payloads[0] as Buffer);
    other[7] = (other[7] as number) ^ 0xff;
    raw.write(encodeFrame(FrameType.pong, 0, other));
    const [why] = await closed;
    assert.equal((why as SessionProtocolError).code, 'SESSION_PROTOCOL_ERROR');
  });

  it('keeps to its bound of pings waiting for their pongs', async () => {
    const [, link] = await linked();
    const outlet = outletOn(link, await listen(() => undefined));
    const sent = Array.from({ length: muxDefaults.outstandingPings + 1 }, () => outlet.ping(() => undefined));
    assert.deepEqual(sent, [...Array<boolean>(muxDefaults.outstandingPings).fill(true), false]);
  });

  it('sends an inlet no more than the window its open advertised, and more as it grants credit', async () => {
    const [raw, link] = await linked();
    outletOn(link, await listen((socket) => socket.write(Buffer.alloc(1024 * 1024, 3))));
    let received = 0;
    onFrames(raw, (type, _id, body) => {
      if (type === FrameType.data) received += body.length;
    });
    const small = 16 * 1024;
    raw.write(openFrame(1, { initial: small, most: small }));
    await settled(() => received);
    assert.equal(received, small);
    raw.write(encodeFrame(FrameType.credit, 1, encodeCredit(small)));
    await settled(() => received);
    assert.equal(received, 2 * small);
  });

  it('sends an outlet no more than the window its accept advertised, counted from the first byte', async () => {
    const [inletLink, raw] = await linked();
    const inlet = new MuxSession(inletLink, 'inlet');
    let received = 0;
    onFrames(raw, (type, id, body) => {
      if (type === FrameType.open)
        raw.write(acceptFrame(id, { initial: frameLimits.openAllowance + 1000, most: 4 * 1024 * 1024 }));
      if (type === FrameType.data) received += body.length;
    });
    const [client, socket] = await linked();
    inlet.open(socket, 5000).answered.catch(() => undefined);
    client.write(Buffer.alloc(1024 * 1024, 4));
    await settled(() => received);
    assert.equal(received, frameLimits.openAllowance + 1000);
  });

  it("advertises an outlet's window no smaller than what the inlet may send before the answer", async () => {
    const [raw, link] = await linked();
    const outlet = new MuxSession(link, 'outlet', {
      initialWindow: 1024,
      maxWindow: 1024,
      onStream: (stream) => {
        void stream.attach(dial(port));
        stream.accept();
      },
    });
    const port = await listen(() => undefined);
    const windows: AdvertisedWindow[] = [];
    onFrames(raw, (type, _id, body) => type === FrameType.accept && windows.push(windowOf(body)));
    raw.write(openFrame(1));
    while (windows.length === 0) await turn();
    assert.deepEqual(windows, [{ initial: frameLimits.openAllowance, most: frameLimits.openAllowance }]);
    assert.equal(outlet.size, 1);
  });

  it('takes bytes beyond the window an inlet advertised for a violation', async () => {
    const [inletLink, raw] = await linked();
    const small = 16 * 1024;
    const inlet = new MuxSession(inletLink, 'inlet', { initialWindow: small, maxWindow: small });
    const opens: AdvertisedWindow[] = [];
    onFrames(raw, (type, id, body) => {
      if (type !== FrameType.open) return;
      opens.push(windowOf(body));
      const data = Buffer.alloc(small + 1);
      raw.write(Buffer.concat([acceptFrame(id), encodeHeader(FrameType.data, id, data.length), data]));
    });
    const closed = once(inlet, 'close') as Promise<[Error]>;
    const goAway = goAwayOf(raw);
    const [, socket] = await linked();
    inlet.open(socket, 5000).answered.catch(() => undefined);
    const [why] = await closed;
    assert.deepEqual(opens, [{ initial: small, most: small }], 'the open advertised the window');
    assert.deepEqual(
      [(why as SessionProtocolError).code, why.message],
      ['SESSION_PROTOCOL_ERROR', 'the peer broke the session protocol: stream 1 sent beyond its window'],
    );
    assert.equal(await goAway, GoAwayCode.protocolError);
  });

  it('takes credit beyond the most a window was advertised to grow to for a violation', async () => {
    const [raw, link] = await linked();
    const outlet = outletOn(link, await listen(() => undefined));
    let accepted = false;
    onFrames(raw, (type) => (accepted ||= type === FrameType.accept));
    raw.write(openFrame(1, { initial: 16 * 1024, most: 32 * 1024 }));
    while (!accepted) await turn();
    const closed = once(outlet, 'close') as Promise<[Error]>;
    raw.write(encodeFrame(FrameType.credit, 1, encodeCredit(16 * 1024 + 1)));
    const [why] = await closed;
    assert.equal(why.message, 'the peer broke the session protocol: credit beyond the window on stream 1');
  });
});

describe('the windows a session is configured with', () => {
  it("advertises each side's own, the outlet's never below what the inlet may send before the answer", () => {
    assert.deepEqual(settingsOf('inlet', { initialWindow: 1024, maxWindow: 4096 }).window, {
      initial: 1024,
      most: 4096,
    });
    assert.deepEqual(settingsOf('outlet', { initialWindow: 1024, maxWindow: 4096 }).window, {
      initial: frameLimits.openAllowance,
      most: frameLimits.openAllowance,
    });
    assert.deepEqual(settingsOf('inlet', {}).window, {
      initial: muxDefaults.initialWindow,
      most: muxDefaults.maxWindow,
    });
  });

  it('refuses a window that is none, or one that grows to less than its start, with MUX_WINDOW_INVALID', () => {
    for (const options of [{ initialWindow: 0 }, { maxWindow: 2 ** 32 }, { initialWindow: 1.5 }, { maxWindow: 10 }])
      assert.throws(
        () => settingsOf('inlet', { ...options }),
        (error: Error) => error instanceof InputError && error.code === 'MUX_WINDOW_INVALID',
      );
  });
});

describe('the end-to-end version', () => {
  it('refuses a peer of end-to-end protocol 4 with the one line that names both versions', () => {
    const verdict = parseVerdict({ accept: true, saw: ['app'], want: 'app', protocol: 4 });
    assert.deepEqual(verdict, {
      mismatch: `the peer node speaks end-to-end protocol 4 and this node ${e2eProtocolVersion}; ${versionHint}`,
    });
    assert.equal(e2eProtocolVersion, 5);
  });
});

/** Waits until `count` stops growing for a while: what a peer keeping to its window has sent. */
async function settled(count: () => number): Promise<void> {
  let before = -1;
  while (count() !== before || count() === 0) {
    before = count();
    await turn(200);
  }
}
