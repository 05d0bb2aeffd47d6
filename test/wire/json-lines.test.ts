import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { maxLineBytes, readJsonLines, readOneJsonLine, serveJsonLines } from '../../src/wire/json-lines.ts';
import { PortalError } from '../../src/shared/errors.ts';

/** A connected loopback pair: the server's end and the client's. */
async function socketPair(): Promise<{ server: Socket; client: Socket; close: () => void }> {
  let accepted: (socket: Socket) => void = () => undefined;
  const serverSide = new Promise<Socket>((resolve) => (accepted = resolve));
  const listener = createServer((socket) => accepted(socket));
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const client = connect({ host: '127.0.0.1', port: (listener.address() as AddressInfo).port });
  const server = await serverSide;
  listener.close();
  for (const socket of [client, server]) socket.on('error', () => undefined);
  return { server, client, close: () => (client.destroy(), server.destroy()) };
}

const tick = (ms = 50) => new Promise((resolve) => setTimeout(resolve, ms));

describe('JSON lines', () => {
  it('reads one line and leaves every later byte for the next reader, even from a paused stream', async () => {
    const stream = new PassThrough();
    stream.pause();
    const line = readOneJsonLine(stream, 1000);
    stream.write('{"verdict":true}\nTLS-OR-HTTP2-BYTES');
    assert.deepEqual(await line, { verdict: true });
    const rest: Buffer[] = [];
    assert.equal(stream.isPaused(), true, 'left paused for whoever reads next');
    stream.on('data', (chunk: Buffer) => rest.push(chunk));
    stream.resume();
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(Buffer.concat(rest).toString(), 'TLS-OR-HTTP2-BYTES');
  });

  it('stops at garbage and at a line longer than the bound, reporting each once', async () => {
    const errors: string[] = [];
    const codes: string[] = [];
    const garbage = new PassThrough();
    readJsonLines(
      garbage,
      () => undefined,
      (error) => {
        errors.push(error.message);
        codes.push(error.code);
      },
    );
    garbage.write('not json\n{"ok":1}\n');
    const long = new PassThrough();
    readJsonLines(
      long,
      () => undefined,
      (error) => {
        errors.push(error.message);
        codes.push(error.code);
      },
    );
    long.write(Buffer.alloc(maxLineBytes + 1, 0x61));
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(errors, [
      'the peer sent something that is not a JSON line',
      `the peer sent a line longer than ${maxLineBytes} bytes`,
    ]);
    assert.deepEqual(codes, ['JSON_LINE_INVALID', 'JSON_LINE_TOO_LONG']);
  });

  it('times out when no line comes', async () => {
    const waited = readOneJsonLine(new PassThrough(), 20);
    await assert.rejects(waited, /no answer within 20 ms/);
    await assert.rejects(waited, { code: 'ANSWER_MISSING' });
  });
});

describe('JSON lines served with backpressure', () => {
  it('stops reading requests while the peer reads no answers, and answers every one once it reads', async () => {
    const { server, client, close } = await socketPair();
    let handled = 0;
    serveJsonLines(
      server,
      (message) => ((handled += 1), Promise.resolve({ id: (message as { id: number }).id, pad: 'x'.repeat(1000) })),
      () => server.destroy(),
      { maxInFlight: 8, maxQueuedBytes: 64 * 1024 * 1024 },
    );
    const requests = 100_000;
    client.pause();
    for (let id = 0; id < requests; id += 1) client.write(`{"id":${id}}\n`);
    await tick(300);
    const whileNotReading = handled;
    // What the kernel's buffers hold, and no more: about 1 KiB an answer.
    assert.ok(whileNotReading < 20_000, `answered ${whileNotReading} of ${requests} to a peer that read nothing`);
    assert.ok(server.writableLength < 2 * 1024 * 1024, `queued ${server.writableLength} bytes`);
    let answers = 0;
    let partial = '';
    client.on('data', (chunk: Buffer) => {
      const text = partial + chunk.toString();
      const lines = text.split('\n');
      partial = lines.pop() ?? '';
      answers += lines.length;
    });
    client.resume();
    // Wait while answers keep coming: a busy machine answers slower, a stuck server not at all.
    let stalledSince = Date.now();
    for (let seen = answers; answers < requests && Date.now() - stalledSince < 10_000; await tick())
      if (answers !== seen) [seen, stalledSince] = [answers, Date.now()];
    close();
    assert.equal(answers, requests);
  });

  it('reads no further line while maxInFlight requests are being answered', async () => {
    const { server, client, close } = await socketPair();
    const waiting: (() => void)[] = [];
    serveJsonLines(
      server,
      () => new Promise((resolve) => waiting.push(() => resolve({ ok: true }))),
      () => server.destroy(),
      { maxInFlight: 3 },
    );
    for (let id = 0; id < 50; id += 1) client.write(`{"id":${id}}\n`);
    await tick();
    assert.equal(waiting.length, 3);
    waiting.shift()?.();
    await tick();
    assert.equal(waiting.length, 3, 'one done, one more taken');
    close();
  });

  it('closes a connection whose unread pushed messages pass the bound', async () => {
    const { server, client, close } = await socketPair();
    client.pause();
    let reason: unknown;
    server.on('error', (error) => (reason = error));
    const service = serveJsonLines(
      server,
      () => Promise.resolve(undefined),
      () => server.destroy(),
      { maxInFlight: 1, maxQueuedBytes: 256 * 1024 },
    );
    const event = { event: 'dial', pad: 'y'.repeat(4096) };
    for (let i = 0; i < 10_000 && !server.destroyed; i += 1) service.send(event);
    assert.equal(server.destroyed, true);
    await tick();
    assert.ok(reason instanceof PortalError);
    assert.equal(reason.code, 'PEER_NOT_READING');
    close();
  });
});
