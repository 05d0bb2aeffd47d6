/**
 * What a client that never signs in can cost the console's listener, performed: connections held open
 * past the cap, and headers sent a byte at a time.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { serveConsole, type RunningConsole } from '../../src/controller/console/serve.ts';

const limits = { connections: 8, headersTimeoutMs: 600, requestTimeoutMs: 1500, keepAliveMs: 500, timeoutCheckMs: 100 };
const unusedTls = { key: '', certificate: '' };

describe('console listener: what a client that never signs in can cost', () => {
  let running: RunningConsole;
  let port: number;
  const held: Socket[] = [];
  const open = async () => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.on('error', () => undefined);
    await once(socket, 'connect');
    held.push(socket);
    return socket;
  };
  const get = async () => {
    const response = await fetch(`http://127.0.0.1:${port}/`, { headers: { connection: 'close' } });
    return { status: response.status, text: await response.text() };
  };

  before(async () => {
    running = await serveConsole({
      host: '127.0.0.1',
      port: 0,
      tls: unusedTls,
      limits,
      app: () => ({ fetch: () => new Response('the console') }),
    });
    port = Number(new URL(running.url).port);
  });
  afterEach(() => held.splice(0).forEach((socket) => socket.destroy()));
  after(() => running.close());

  it('answers a newcomer while silent connections fill the cap, the oldest giving way', async () => {
    const silent = await Promise.all(Array.from({ length: limits.connections * 3 }, open));
    assert.deepEqual(await get(), { status: 200, text: 'the console' });
    // The server closed the rest; their closes reach this side within moments.
    const stillOpen = () => silent.filter((socket) => !socket.closed).length;
    for (let waited = 0; stillOpen() > limits.connections && waited < 2000; waited += 20)
      await new Promise((resolve) => setTimeout(resolve, 20));
    assert.ok(stillOpen() <= limits.connections, `${stillOpen()} of ${silent.length} silent connections still open`);
  });

  it('closes a connection whose headers come a byte at a time, once their time is up', async () => {
    const slow = await open();
    const started = Date.now();
    const request = 'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ';
    let sent = 0;
    const drip = setInterval(() => {
      if (slow.writable && sent < 200) slow.write(request[sent % request.length] ?? 'a', () => undefined);
      sent += 1;
    }, 20);
    try {
      // Closed by the server: a write may fail first (EPIPE), which is not what is waited for.
      await new Promise((resolve) => slow.once('close', resolve));
    } finally {
      clearInterval(drip);
    }
    const tookMs = Date.now() - started;
    assert.ok(tookMs < limits.headersTimeoutMs + 1000, `closed after ${tookMs} ms`);
    assert.deepEqual(await get(), { status: 200, text: 'the console' });
  });
});
