import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { Socket, connect, createServer, type AddressInfo, type Server } from 'node:net';
import { MuxSession, StreamRefused, muxLimits, type IncomingStream } from '../../src/wire/mux.ts';

/** A server on a loopback port; every socket it or its clients open is closed by `closeAll`. */
const opened: (Server | Socket)[] = [];
async function listen(onSocket: (socket: Socket) => void): Promise<number> {
  const server = createServer({ allowHalfOpen: true }, (socket) => {
    opened.push(socket);
    socket.on('error', () => socket.destroy());
    onSocket(socket);
  });
  opened.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

function dial(port: number): Socket {
  const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
  socket.on('error', () => socket.destroy());
  opened.push(socket);
  return socket;
}

function closeAll(): void {
  for (const item of opened.splice(0)) {
    if (item instanceof Socket) item.destroy();
    else item.close();
  }
}

/** Two ends of one loopback connection: the link a session runs on. */
async function linked(): Promise<[Socket, Socket]> {
  let accepted!: (socket: Socket) => void;
  const serverEnd = new Promise<Socket>((resolve) => (accepted = resolve));
  const port = await listen((socket) => accepted(socket));
  const clientEnd = dial(port);
  await once(clientEnd, 'connect');
  return [clientEnd, await serverEnd];
}

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
  outletOn(outletLink, targetPort, targets);
  const inlet = new MuxSession(inletLink, 'inlet');
  const answers: Promise<void>[] = [];
  const front = await listen((client) => {
    const { answered } = inlet.open(client, 5000);
    answered.catch(() => undefined);
    answers.push(answered);
  });
  return { inlet, front, answers, targets };
}

/** Resolves once the far side reset `socket`; a clean end (what a client would take for a whole stream) fails. */
function resetByPeer(socket: Socket): Promise<void> {
  return new Promise((resolve, reject) => {
    socket.once('end', () => reject(new Error('a clean end where a reset was due')));
    socket.once('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' ? resolve() : reject(error)));
  });
}

function readAll(socket: Socket): Promise<Buffer> {
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  return once(socket, 'end').then(() => Buffer.concat(chunks));
}

/** Frames as a raw peer sees them. */
function onFrames(socket: Socket, handle: (type: number, id: number, body: Buffer) => void): void {
  let pending = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    while (pending.length >= 9 && pending.length >= 9 + pending.readUInt32BE(5)) {
      const length = pending.readUInt32BE(5);
      handle(pending[0] as number, pending.readUInt32BE(1), pending.subarray(9, 9 + length));
      pending = pending.subarray(9 + length);
    }
  });
}

const frameHeader = (type: number, id: number, length: number) => {
  const frame = Buffer.alloc(9);
  frame[0] = type;
  frame.writeUInt32BE(id, 1);
  frame.writeUInt32BE(length, 5);
  return frame;
};

/** Counts what a socket hands the kernel: each call is one system call (and, on TLS, one record). */
function countWrites(socket: Socket): () => number {
  let writes = 0;
  const methods = socket as unknown as Record<'_write' | '_writev', (...args: unknown[]) => void>;
  for (const method of ['_write', '_writev'] as const) {
    const original = methods[method].bind(socket);
    methods[method] = (...args: unknown[]) => {
      writes += 1;
      original(...args);
    };
  }
  return () => writes;
}

const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');

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
    'resets clients and targets, never ends them, ' +
      "when the link ends without their streams' ends (a relay killed mid-transfer)",
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
      outletHolds <= muxLimits.window,
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
        raw.write(Buffer.concat([frameHeader(4, id, chunk.length), chunk]));
      }
    };
    onFrames(raw, (type, id, body) => {
      if (type !== 7) return;
      credit.set(id, (credit.get(id) ?? 0) + body.readUInt32BE(0));
      pump(id);
    });
    for (let id = 1; id <= streams; id += 1) {
      credit.set(id, muxLimits.initialWindow);
      raw.write(frameHeader(1, id, 0));
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
    const bound = (streams - 2) * muxLimits.initialWindow + grownWindows;
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
    onFrames(raw, (type, id, body) => {
      if (type === 1) raw.write(Buffer.concat([frameHeader(2, id, 0), frameHeader(5, id, 0)]));
      else if (type === 4) dataBytes += body.length;
      else seen.push(type === 5 ? 'end' : type === 6 ? 'reset' : String(type));
    });
    const front = await listen((client) => void inlet.open(client, 5000).answered.catch(() => undefined));
    const client = dial(front);
    client.resume();
    // The outlet's end reaches the client; then the client sends a whole window and more, and ends.
    await once(client, 'end');
    client.write(Buffer.alloc(muxLimits.initialWindow, 1));
    while (dataBytes < muxLimits.initialWindow) await new Promise((resolve) => setTimeout(resolve, 5));
    client.end(Buffer.alloc(1000, 2));
    await once(client, 'close');
    assert.deepEqual(seen, [], 'nothing but data before the credit');
    const credit = Buffer.alloc(4);
    credit.writeUInt32BE(muxLimits.initialWindow);
    raw.write(Buffer.concat([frameHeader(7, 1, 4), credit]));
    while (seen.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.deepEqual(seen, ['end']);
    assert.equal(dataBytes, muxLimits.initialWindow + 1000);
  });

  it('sends the end of a client that half-closed before its stream was opened', async () => {
    const [inletLink, raw] = await linked();
    const inlet = new MuxSession(inletLink, 'inlet');
    const seen: number[] = [];
    onFrames(raw, (type) => seen.push(type));
    const front = await listen((client) => {
      client.pause();
      client.once('end', () => void inlet.open(client, 5000).answered.catch(() => undefined));
      client.read(0);
    });
    dial(front).end();
    while (seen.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.deepEqual(seen, [1, 5], 'open, then end');
  });

  it('sends an open with the first bytes in one write, ids in order, and opens for a silent client too', async () => {
    const [inletLink, raw] = await linked();
    const inlet = new MuxSession(inletLink, 'inlet');
    const writes = countWrites(inletLink);
    const seen: string[] = [];
    onFrames(raw, (type, id, body) => seen.push(`${type}:${id}${body.length > 0 ? `:${body.toString()}` : ''}`));
    // Paused: a client's bytes stay in the kernel until its stream reads them, as when one comes the
    // moment its connection is accepted.
    const accepted: Socket[] = [];
    const server = createServer({ pauseOnConnect: true }, (socket) => {
      opened.push(socket);
      accepted.push(socket);
    });
    opened.push(server);
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
    assert.deepEqual(seen, ['1:1', '1:2', '1:3', '4:3:hi'], 'every open, in order, then the bytes');
    assert.equal(writes(), 1, 'the opens and the bytes in one write');
  });

  it(
    "sends an accept with the target's first bytes in one write, " + 'or alone once a silent target has waited',
    async () => {
      const [raw, link] = await linked();
      const writes = countWrites(link);
      // The first target speaks at once; the second says nothing.
      let targets = 0;
      outletOn(link, await listen((socket) => (targets += 1) === 1 && socket.write('hello')));
      const seen: string[] = [];
      onFrames(raw, (type, id, body) => seen.push(`${type}:${id}${body.length > 0 ? `:${body.toString()}` : ''}`));
      raw.write(frameHeader(1, 1, 0));
      while (seen.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
      assert.deepEqual(seen, ['2:1', '4:1:hello']);
      assert.equal(writes(), 1, 'the accept and the bytes in one write');
      const opened = Date.now();
      raw.write(frameHeader(1, 2, 0));
      while (seen.length < 3) await new Promise((resolve) => setTimeout(resolve, 5));
      assert.equal(seen[2], '2:2');
      assert.ok(Date.now() - opened >= 90, `the lone accept came after ${Date.now() - opened} ms`);
    },
  );

  it('sends no accept for a stream the inlet reset while the accept waited', async () => {
    const [raw, link] = await linked();
    const targets: Socket[] = [];
    outletOn(link, await listen(() => undefined), targets);
    const seen: string[] = [];
    onFrames(raw, (type, id) => seen.push(`${type}:${id}`));
    raw.write(frameHeader(1, 1, 0));
    // Reset once the target is connected: its accept is then waiting for a frame to go with.
    while (targets.length < 1 || targets[0]?.connecting) await new Promise((resolve) => setTimeout(resolve, 5));
    raw.write(frameHeader(6, 1, 0));
    // Past the longest an accept waits (100 ms), then a ping: its pong comes after anything the outlet sent.
    await new Promise((resolve) => setTimeout(resolve, 150));
    raw.write(Buffer.concat([frameHeader(8, 0, 8), Buffer.alloc(8)]));
    while (!seen.includes('9:0')) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.deepEqual(seen, ['9:0'], 'only the pong');
  });

  it('closes the session of a peer that floods pings and reads none of the answers', async () => {
    const [raw, link] = await linked();
    raw.pause();
    const outlet = outletOn(link, await listen(() => undefined));
    const closed = once(outlet, 'close');
    let ended = false;
    void closed.then(() => (ended = true));
    const ping = Buffer.concat([frameHeader(8, 0, 8), Buffer.alloc(8)]);
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
      if (type === 2) answers.set(id, 'accept');
      if (type === 3) answers.set(id, `refuse: ${body.toString()}`);
    });
    raw.write(Buffer.concat([1, 2, 3, 4, 5, 6].map((id) => frameHeader(1, id, 0))));
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

  describe('closes the session of a peer that breaks the protocol', () => {
    const cases: [string, Buffer][] = [
      ['an unknown frame type', frameHeader(42, 1, 0)],
      ['an accept from the inlet side', frameHeader(2, 1, 0)],
      ['a frame longer than the bound', frameHeader(4, 1, muxLimits.frameBody + 1)],
      ['stream ids that do not grow', Buffer.concat([frameHeader(1, 5, 0), frameHeader(1, 5, 0)])],
      ['a ping on a stream', frameHeader(8, 3, 8)],
    ];
    for (const [what, bytes] of cases) {
      it(what, async () => {
        const [raw, link] = await linked();
        const outlet = outletOn(link, await listen(() => undefined));
        const closed = once(outlet, 'close');
        raw.write(bytes);
        await closed;
        await once(raw, 'end');
      });
    }

    it('data beyond the window', async () => {
      const [raw, link] = await linked();
      // Never accepted: nothing is acknowledged, so the window is all the peer may send.
      const outlet = outletOn(link, await listen(() => undefined), [], false);
      const closed = once(outlet, 'close');
      raw.write(frameHeader(1, 1, 0));
      const body = Buffer.alloc(muxLimits.initialWindow + 1);
      raw.write(Buffer.concat([frameHeader(4, 1, body.length), body]));
      await closed;
    });
  });
});
