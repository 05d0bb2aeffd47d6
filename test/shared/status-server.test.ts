/**
 * The status server of every process, attacked as a local process could: connections held to the cap,
 * silent, dribbling and idle, oversized headers, bodies and other methods. Each bound is asserted as a
 * figure, and probes are answered during the hold, not only afterwards.
 */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { Counter, Registry } from 'prom-client';
import { statusLimits } from '../../src/shared/limits.ts';
import { serveStatus } from '../../src/shared/process-status.ts';
import type { RunningStatusServer } from '../../src/shared/status-server.ts';
import { until } from '../support/in-process.ts';

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

  it('answers /metrics, /healthz and /readyz: 200 while serving, 503 with the reason otherwise', async () => {
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
    // A relay or a controller is ready exactly when it serves: /readyz answers as /healthz does.
    const unready = await get('/readyz');
    assert.equal(unready.status, 503);
    assert.deepEqual(await unready.json(), { status: 'unavailable', process: 'relay', reason: problem });
    problem = undefined;
    assert.equal((await get('/readyz')).status, 200);
    assert.equal((await get('/nothing')).status, 404);
  });

  it(
    `answers /healthz and /metrics while ${statusLimits.connections} connections are held silent, ` +
      'dribbling or idle; the oldest give way, the rest time out',
    async () => {
      // One dribbles its headers (a slowloris), one idles after an answer (kept alive), the rest send nothing.
      const slow = probe(status.port, 'GET /metrics HTTP/1.1\r\n');
      const dribble = setInterval(() => slow.socket.write('X'), 100);
      const idle = probe(status.port, 'HEAD / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      const silent = Array.from({ length: statusLimits.connections - 2 }, () => probe(status.port));
      const held: Probe[] = [slow, idle, ...silent];
      try {
        await heldThenProbed();
      } finally {
        clearInterval(dribble);
        for (const one of held) one.socket.destroy();
      }

      async function heldThenProbed() {
        await Promise.all(held.map((one) => new Promise((resolve) => one.socket.once('connect', resolve))));
        await until(() => idle.received.startsWith('HTTP/1.1 200') || undefined, 'the idle connection to be answered');
        await until(
          () => status.connections.size === statusLimits.connections || undefined,
          'the server to hold every connection',
        );
        const evictedBefore = status.connections.evicted;
        // Probes as a health checker makes them: a new connection each, kept open after its answer (so
        // that it is held in turn; fetch would reuse one, which a later probe may make give way), answered
        // within a bound.
        const timings: number[] = [];
        for (const [method, path] of [
          ['GET', '/healthz'],
          ['GET', '/metrics'],
          ['GET', '/healthz'],
          ['HEAD', '/'],
        ] as const) {
          const started = performance.now();
          const asked = probe(status.port, `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
          held.push(asked);
          await until(() => /^HTTP\/1\.1 \d{3} /.test(asked.received) || undefined, `${path} answered`, 2000);
          assert.match(asked.received, /^HTTP\/1\.1 200 /, `${path} answered during the hold`);
          timings.push(performance.now() - started);
        }
        const slowest = Math.max(...timings);
        assert.ok(slowest < 1000, `a probe took ${Math.round(slowest)} ms during the hold`);
        // Each probe's connection made one held connection give way, the oldest first: the dribbler,
        // then the idle one.
        assert.ok(
          status.connections.evicted - evictedBefore >= 2,
          `${status.connections.evicted - evictedBefore} gave way`,
        );
        assert.ok((await slow.closed) < 2000, 'the oldest (the dribbler) gave way at once');
        assert.ok((await idle.closed) < 2000, 'the idle one gave way next');
        clearInterval(dribble);
        const closedMs = await Promise.all(silent.map((one) => one.closed));
        const latest = Math.max(...closedMs);
        console.log(
          `      ${statusLimits.connections} connections held: ` +
            `4 probes answered in ${Math.round(slowest)} ms at most; ` +
            `every held connection closed after ${Math.round(latest)} ms at most`,
        );
        assert.ok(latest < statusLimits.headersTimeoutMs + 2 * statusLimits.timeoutCheckMs + 1000, `${latest} ms`);
        // Closed with Node's 408, or without a word: never served.
        for (const one of silent) assert.match(one.received, /^(HTTP\/1\.1 408 Request Timeout\r\n[^]*)?$/);
        assert.doesNotMatch(slow.received, /portal_test_total/);
      }
    },
  );

  it('answers a probe while every held connection dribbles its headers from many sockets at once', async () => {
    // Twice the cap, each sending a byte every 50 ms: newcomers keep pushing the oldest out.
    const dribblers = Array.from({ length: 2 * statusLimits.connections }, () =>
      probe(status.port, 'GET /metrics HTTP/1.1\r\n'),
    );
    const feed = setInterval(() => dribblers.forEach((one) => one.socket.write('Y')), 50);
    try {
      await until(
        () => status.connections.size === statusLimits.connections || undefined,
        'the server to hold every connection',
      );
      const started = performance.now();
      const health = await fetch(`http://127.0.0.1:${status.port}/healthz`, { signal: AbortSignal.timeout(2000) });
      assert.equal(health.status, 200);
      assert.ok(performance.now() - started < 1000, `${Math.round(performance.now() - started)} ms`);
    } finally {
      clearInterval(feed);
      dribblers.forEach((one) => one.socket.destroy());
    }
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
