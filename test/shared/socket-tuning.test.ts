import assert from 'node:assert/strict';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';
import {
  dataPathHighWaterMark,
  dataPathTuning,
  streamSocketHighWaterMark,
  streamSocketTuning,
  withSocketTuning,
} from '../../src/shared/socket-tuning.ts';

describe('data-path socket tuning', () => {
  it('adds the tuning to the options, leaving them as they were', () => {
    const options = { host: '127.0.0.1', port: 1 };
    assert.deepEqual(withSocketTuning(options, dataPathTuning), {
      host: '127.0.0.1',
      port: 1,
      allowHalfOpen: true,
      noDelay: true,
      highWaterMark: dataPathHighWaterMark,
    });
    assert.deepEqual(options, { host: '127.0.0.1', port: 1 });
    assert.equal(withSocketTuning(options, { ...dataPathTuning, allowHalfOpen: false }).allowHalfOpen, false);
  });

  it('reaches the sockets that net.connect and tls.connect make, and those a server accepts', async () => {
    const accepted: Socket[] = [];
    const server = createServer(dataPathTuning, (socket) => {
      accepted.push(socket);
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const target = { host: '127.0.0.1', port: (server.address() as AddressInfo).port };
    const plain = connect(withSocketTuning(target, dataPathTuning));
    const secure = connectTls(withSocketTuning({ ...target, rejectUnauthorized: false }, dataPathTuning));
    const untuned = connectTls({ ...target, rejectUnauthorized: false });
    for (const socket of [plain, secure, untuned]) socket.on('error', () => undefined);
    for (const socket of [plain, secure]) {
      assert.equal(socket.readableHighWaterMark, dataPathHighWaterMark);
      assert.equal(socket.writableHighWaterMark, dataPathHighWaterMark);
      assert.equal(socket.allowHalfOpen, true);
    }
    // Without the tuning, a TLS socket has the stream defaults: what the tuning is for.
    assert.notEqual(untuned.readableHighWaterMark, dataPathHighWaterMark);
    assert.equal(untuned.allowHalfOpen, false);
    while (accepted.length < 3) await new Promise((resolve) => setTimeout(resolve, 10));
    for (const socket of accepted) {
      assert.equal(socket.readableHighWaterMark, dataPathHighWaterMark);
      assert.equal(socket.allowHalfOpen, true);
    }
    for (const socket of [plain, secure, untuned]) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it("keeps a paused stream socket's read-ahead to a read or two: the rest waits in the kernel", async () => {
    // A target that answers with 8 MiB at once, read by a socket a stalled stream has paused.
    const answer = Buffer.alloc(8 * 1024 * 1024, 1);
    const server = createServer((socket) => {
      socket.on('error', () => socket.destroy());
      socket.end(answer);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const target = { host: '127.0.0.1', port: (server.address() as AddressInfo).port };
    const heldBy = async (tuning: typeof streamSocketTuning | typeof dataPathTuning) => {
      const socket = connect(withSocketTuning(target, tuning));
      // As a stream out of credit does: the first chunk is held, and the socket paused.
      await new Promise((resolve) =>
        socket.once('data', () => {
          socket.pause();
          resolve(undefined);
        }),
      );
      // Read-ahead stops once the buffer reaches the mark; the answer is larger than both marks.
      let last = -1;
      while (socket.readableLength !== last) {
        last = socket.readableLength;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      socket.destroy();
      return last;
    };
    const small = await heldBy(streamSocketTuning);
    const large = await heldBy(dataPathTuning);
    await new Promise<void>((resolve) => server.close(() => resolve()));
    console.log(`      a paused socket held ${small} bytes with the stream tuning, ${large} with the data-path one`);
    // At most the mark and one read of 64 KiB beyond it.
    assert.ok(small <= streamSocketHighWaterMark + 64 * 1024, `the paused stream socket held ${small} bytes`);
    assert.ok(large >= dataPathHighWaterMark, `the data-path socket held ${large} bytes`);
  });
});
