/**
 * The status server of every process, attacked as a local process could: connections past the cap,
 * silent and dribbling connections, oversized headers, bodies and other methods. Each bound is
 * asserted as a figure, and a scrape still succeeds afterwards.
 */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { Counter, Registry } from 'prom-client';
import { statusLimits } from '../../src/shared/limits.ts';
import { serveStatus } from '../../src/shared/process-status.ts';
import type { RunningStatusServer } from '../../src/shared/status-server.ts';

/** A raw connection: what it received, and when it closed (ms after it was opened). */
interface Probe {
  readonly socket: Socket;
  received: string;
  readonly closed: Promise<number>;
}

function probe(port: number, send?: string): Probe {
  const opened = performance.now();
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  const result: Probe = {
    socket,
    received: '',
    closed: new Promise((resolve) => socket.once('close', () => resolve(performance.now() - opened))),
  };
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (result.received += chunk));
  if (send !== undefined) socket.write(send);
  return result;
}

describe('status server: bounded against a local attacker', function () {
  this.timeout(30_000);
  const registry = new Registry();
  const scrapes = new Counter({ name: 'portal_test_total', help: 'a test counter', registers: [registry] });
  let problem: string | undefined;
  let status: RunningStatusServer;

  before(async () => {
    status = await serveStatus({
      listen: { host: '127.0.0.1', port: 0 },
      flag: '127.0.0.1:0',
      process: 'relay',
      registries: [registry],
      health: () => problem,
    });
  });

  after(async () => {
    await status.close();
  });

  const get = (path: string) => fetch(`http://127.0.0.1:${status.port}${path}`);

  it('answers /metrics and /healthz: 200 while serving, 503 with the reason otherwise', async () => {
    scrapes.inc(3);
    const metrics = await get('/metrics');
    assert.equal(metrics.status, 200);
    assert.match(await metrics.text(), /^portal_test_total 3$/m);
    problem = undefined;
    const serving = await get('/healthz');
    assert.equal(serving.status, 200);
    assert.equal(await serving.text(), '{"status":"serving","process":"relay"}\n');
    problem = 'its connection to the controller 127.0.0.1:1 is down';
    const down = await get('/healthz');
    assert.equal(down.status, 503);
    assert.deepEqual(await down.json(), { status: 'unavailable', process: 'relay', reason: problem });
    problem = undefined;
    assert.equal((await get('/nothing')).status, 404);
  });

  it(`holds ${statusLimits.connections} connections, closes the next, times out silent and slow ones`, async () => {
    // One dribbles its headers (a slowloris), the others send nothing.
    const slow = probe(status.port, 'GET /metrics HTTP/1.1\r\n');
    const dribble = setInterval(() => slow.socket.write('X-Slow: 1\r\n'), 200);
    const silent = Array.from({ length: statusLimits.connections - 1 }, () => probe(status.port));
    await Promise.all([slow, ...silent].map((one) => new Promise((resolve) => one.socket.once('connect', resolve))));
    // Accepted connections are counted as the server sees them: give it the time to.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const extra = probe(status.port, 'GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    const extraClosedMs = await extra.closed;
    assert.equal(extra.received, '', 'the connection past the cap is closed without an answer');
    assert.ok(extraClosedMs < 1000, `closed after ${Math.round(extraClosedMs)} ms`);
    const slowMs = await slow.closed;
    clearInterval(dribble);
    const closedMs = await Promise.all(silent.map((one) => one.closed));
    const latest = Math.max(slowMs, ...closedMs);
    console.log(
      `      ${statusLimits.connections} connections held, all closed after ${Math.round(latest)} ms at most`,
    );
    assert.ok(latest < statusLimits.headersTimeoutMs + 2 * statusLimits.timeoutCheckMs, `${latest} ms`);
    assert.match(slow.received, /^HTTP\/1\.1 408 /);
    // Closed with Node's 408, or without a word: never served.
    for (const one of silent) assert.match(one.received, /^(HTTP\/1\.1 408 Request Timeout\r\n[^]*)?$/);
    assert.equal((await get('/metrics')).status, 200, 'a scrape is answered once they are gone');
  });

  it('refuses headers past their size (431), a body (413), another method (405), and reads no further', async () => {
    const large = probe(status.port, `GET /metrics HTTP/1.1\r\nX-Big: ${'a'.repeat(statusLimits.headerBytes)}\r\n\r\n`);
    await large.closed;
    assert.match(large.received, /^HTTP\/1\.1 431 /);

    const chunked = probe(
      status.port,
      'GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n',
    );
    // An endless body: the server answers and closes rather than read it.
    const feed = setInterval(() => chunked.socket.write(`400\r\n${'b'.repeat(0x400)}\r\n`), 5);
    const chunkedMs = await chunked.closed;
    clearInterval(feed);
    assert.match(chunked.received, /^HTTP\/1\.1 413 /);
    assert.ok(chunkedMs < 2000, `closed after ${Math.round(chunkedMs)} ms`);

    const posted = probe(status.port, 'DELETE /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await posted.closed;
    assert.match(posted.received, /^HTTP\/1\.1 405 /);
    assert.match(posted.received, /\r\nallow: GET, HEAD\r\n/i);
  });

  it('refuses a request addressed to another name (DNS rebinding) with 421', async () => {
    const rebound = probe(status.port, 'GET /metrics HTTP/1.1\r\nHost: evil.example\r\n\r\n');
    await rebound.closed;
    assert.match(rebound.received, /^HTTP\/1\.1 421 /);
    assert.doesNotMatch(rebound.received, /portal_test_total/);
  });

  it('makes one rendering for scrapes that arrive together', async () => {
    let renderings = 0;
    const counted = new Registry();
    new Counter({
      name: 'portal_rendered_total',
      help: 'renderings',
      registers: [counted],
      // As slow as a store query: scrapes arriving meanwhile share this rendering.
      async collect() {
        renderings += 1;
        await new Promise((resolve) => setTimeout(resolve, 200));
      },
    });
    const server = await serveStatus({
      listen: { host: '127.0.0.1', port: 0 },
      flag: '0',
      process: 'controller',
      registries: [counted],
      health: () => undefined,
    });
    try {
      const answers = await Promise.all(
        Array.from({ length: 10 }, () => fetch(`http://127.0.0.1:${server.port}/metrics`)),
      );
      assert.deepEqual(
        answers.map((answer) => answer.status),
        Array(10).fill(200),
      );
      assert.ok(renderings <= 2, `${renderings} renderings for 10 scrapes`);
    } finally {
      await server.close();
    }
  });
});
