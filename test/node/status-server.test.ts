import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { request } from 'node:http';
import { connect } from 'node:net';
import type { Server } from 'node:http';
import { promisify } from 'node:util';
import { createMetrics } from '../../src/node/metrics.ts';
import type { NodeShow } from '../../src/node/show.ts';
import { isLoopbackHost, startStatusServer } from '../../src/node/status-server.ts';

/** One real HTTP/1.1 request to 127.0.0.1:port carrying the given Host header. */
function get(port: number, path: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      { host: '127.0.0.1', port, path, method: 'GET', headers: { host }, agent: false },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    outgoing.on('error', reject);
    outgoing.end();
  });
}

describe('node status server: answers only requests addressed to loopback', () => {
  const secret = { project: { id: 'p0123456789abcdef' }, name: 'n0123456789abcdef' };
  let status: { server: Server; port: number };

  before(async () => {
    status = await startStatusServer({
      port: 0,
      show: () => secret as unknown as NodeShow,
      registry: createMetrics().registry,
    });
  });

  after(async () => {
    status.server.closeAllConnections();
    await new Promise<void>((resolve) => status.server.close(() => resolve()));
  });

  it('refuses a DNS-rebinding page (Host: evil.example:port) with 421 and no ids', async () => {
    for (const host of [
      `evil.example:${status.port}`,
      'evil.example:23345',
      `127.0.0.1.evil.example:${status.port}`,
      `localhost.evil.example`,
      `localhost:${status.port + 1}`,
      `localhost:${status.port}@evil`,
    ]) {
      for (const path of ['/show', '/metrics']) {
        const answer = await get(status.port, path, host);
        assert.equal(answer.status, 421, `Host: ${host} ${path}`);
        assert.equal(
          answer.body,
          'misdirected request: this status server answers only for localhost, 127.0.0.1 or [::1]\n',
        );
        assert.ok(!answer.body.includes(secret.project.id) && !answer.body.includes(secret.name));
      }
    }
  });

  it('answers loopback names, with its port or none', async () => {
    for (const host of [
      `localhost:${status.port}`,
      `127.0.0.1:${status.port}`,
      `[::1]:${status.port}`,
      'localhost',
      '127.0.0.1',
      'LOCALHOST',
    ]) {
      const answer = await get(status.port, '/show', host);
      assert.equal(answer.status, 200, `Host: ${host}`);
      assert.deepEqual(JSON.parse(answer.body), secret);
    }
  });

  it(
    'answers fetch (as node show sends it), ' + 'curl localhost:port/show and an HTTP/1.0 request without Host',
    async () => {
      assert.deepEqual(await (await fetch(`http://127.0.0.1:${status.port}/show`)).json(), secret);
      const curl = await promisify(execFile)('curl', ['-sS', '--fail', `localhost:${status.port}/show`]);
      assert.deepEqual(JSON.parse(curl.stdout), secret);
      const raw = await new Promise<string>((resolve, reject) => {
        const socket = connect(status.port, '127.0.0.1', () => socket.end('GET /show HTTP/1.0\r\n\r\n'));
        let text = '';
        socket.setEncoding('utf8');
        socket.on('data', (chunk: string) => (text += chunk));
        socket.on('end', () => resolve(text));
        socket.on('error', reject);
      });
      assert.match(raw, /^HTTP\/1\.1 200 OK\r\n/);
    },
  );

  it('reads Host strictly (pure)', () => {
    assert.equal(isLoopbackHost('localhost:80', 80), true);
    assert.equal(isLoopbackHost('localhost.:80', 80), true);
    assert.equal(isLoopbackHost('[::1]', 80), true);
    assert.equal(isLoopbackHost('[::2]:80', 80), false);
    assert.equal(isLoopbackHost('127.0.0.2:80', 80), false);
    assert.equal(isLoopbackHost('', 80), false);
    assert.equal(isLoopbackHost('localhost:080x', 80), false);
    assert.equal(isLoopbackHost('0.0.0.0:80', 80), false);
  });
});
