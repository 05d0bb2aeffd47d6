/**
 * A local process that holds a status server's connections, some idle and some dribbling a request's
 * headers one byte a second, opening another whenever one is closed; and the probes that judge whether
 * the server is still seen: an HTTP health probe and `portal node show`, each timed.
 */
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { portalBundle } from './processes.ts';

export interface StatusHold {
  /** Connections open now. */
  held(): number;
  /** Connections opened in all, the first ones included. */
  opened(): number;
  stop(): void;
}

/** `idle` connections that send nothing and `dribbling` ones that send a request one byte a second. */
export async function holdStatusServer(port: number, idle = 16, dribbling = 16): Promise<StatusHold> {
  const sockets = new Set<Socket>();
  let opened = 0;
  let stopped = false;
  const headers = Buffer.from('GET /show HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Hold: ');
  const one = (dribble: boolean): Promise<void> =>
    new Promise((resolve) => {
      opened += 1;
      const socket = connect(port, '127.0.0.1');
      sockets.add(socket);
      let offset = 0;
      const drip = dribble
        ? setInterval(() => {
            if (!socket.destroyed) socket.write(offset < headers.length ? headers.subarray(offset, ++offset) : 'a');
          }, 1000)
        : undefined;
      socket.on('error', () => socket.destroy());
      socket.once('connect', () => resolve());
      socket.once('close', () => {
        clearInterval(drip);
        sockets.delete(socket);
        resolve();
        // Closed by the server: the holder is back at once, as a hostile local process would be.
        if (!stopped) setTimeout(() => void one(dribble), 10);
      });
    });
  await Promise.all([
    ...Array.from({ length: idle }, () => one(false)),
    ...Array.from({ length: dribbling }, () => one(true)),
  ]);
  return {
    held: () => [...sockets].filter((socket) => !socket.destroyed && !socket.connecting).length,
    opened: () => opened,
    stop() {
      stopped = true;
      for (const socket of sockets) socket.destroy();
    },
  };
}

export interface ProbeResult {
  readonly ms: number;
  /** The HTTP status, or the process's exit code; undefined when it had none within the limit. */
  readonly code: number | undefined;
  readonly output: string;
}

/** One request on a fresh connection, as a health checker sends it; gives up after `limitMs`. */
export function probeStatus(port: number, method: 'GET' | 'HEAD', path: string, limitMs: number): Promise<ProbeResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    const asked = request({ host: '127.0.0.1', port, method, path, agent: false, timeout: limitMs }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ ms: elapsed(), code: response.statusCode, output: body.slice(0, 200) }));
    });
    asked.on('timeout', () => asked.destroy(new Error(`no answer within ${limitMs} ms`)));
    asked.on('error', (error) => resolve({ ms: elapsed(), code: undefined, output: error.message }));
    asked.end();
  });
}

/** `portal node show` with `home`, killed after `limitMs`: its exit code and first line. */
export function probeNodeShow(home: string, limitMs: number): Promise<ProbeResult> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [portalBundle, 'node', 'show'], {
      env: { ...process.env, NODE_DEVELOPER: undefined, PORTAL_HOME: home },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), limitMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({
        ms: Math.round(performance.now() - started),
        code: code ?? undefined,
        output: output.split('\n')[0] ?? '',
      });
    });
  });
}
