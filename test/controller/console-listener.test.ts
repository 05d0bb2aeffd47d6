/**
 * What a client that never signs in can cost the console's listener, performed: connections held open
 * past the cap, headers sent a byte at a time, and TLS handshakes begun and never finished.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { request as httpsRequest } from 'node:https';
import { serveConsole, type RunningConsole } from '../../src/controller/console/serve.ts';
import { createServerCertificate } from '../../src/pki/authority.ts';

const limits = {
  connections: 8,
  handshakes: 8,
  headersTimeoutMs: 600,
  requestTimeoutMs: 1500,
  keepAliveMs: 500,
  timeoutCheckMs: 100,
};
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

describe('console listener over TLS: handshakes begun and never finished', () => {
  let running: RunningConsole;
  let port: number;
  const held: Socket[] = [];

  before(async () => {
    const tls = createServerCertificate('console-handshakes');
    running = await serveConsole({
      host: '0.0.0.0',
      port: 0,
      tls: { key: tls.privateKey, certificate: tls.certificate },
      // A handshake's own time is long here, so that only the bound can close the flood this soon.
      limits: { ...limits, headersTimeoutMs: 30_000, requestTimeoutMs: 30_000 },
      app: () => ({ fetch: () => new Response('the console') }),
    });
    port = Number(new URL(running.url).port);
  });
  after(async () => {
    held.splice(0).forEach((socket) => socket.destroy());
    await running.close();
  });

  it('answers a newcomer over TLS while a flood of silent connections holds handshakes open', async () => {
    const flood = await Promise.all(
      Array.from({ length: limits.handshakes * 4 }, async () => {
        const socket = connect({ host: '127.0.0.1', port });
        socket.on('error', () => undefined);
        await once(socket, 'connect');
        held.push(socket);
        return socket;
      }),
    );
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const sent = httpsRequest(`https://127.0.0.1:${port}/`, { rejectUnauthorized: false }, (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      });
      sent.on('error', reject);
      sent.end();
    });
    assert.deepEqual(answer, { status: 200, body: 'the console' });
    const stillOpen = () => flood.filter((socket) => !socket.closed).length;
    for (let waited = 0; stillOpen() > limits.handshakes && waited < 2000; waited += 20)
      await new Promise((resolve) => setTimeout(resolve, 20));
    assert.ok(stillOpen() <= limits.handshakes, `${stillOpen()} of ${flood.length} handshakes still held`);
  });
});
