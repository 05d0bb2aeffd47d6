/**
 * A real HTTP server process for tests: Python's http.server on loopback port 0, serving a temporary
 * folder of the given files (such as `health`, for a `GET /health` check). Its port is read from the
 * line it prints once it listens.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { start } from './processes.ts';

export interface FileServer {
  readonly port: number;
  /** The requests it logged so far, one line each (… "GET /health HTTP/1.1" 200 -). */
  requests(): string[];
  /** Resolves with the first line it logged (past or future) that matches `pattern`, such as a request. */
  served(pattern: RegExp): Promise<string>;
  stop(): Promise<void>;
}

/** Serves `files` (name → content) from a fresh folder; resolves once the server listens. */
export async function startFileServer(files: Readonly<Record<string, string>>): Promise<FileServer> {
  const dir = await mkdtemp(join(tmpdir(), 'portal-http-'));
  for (const [name, content] of Object.entries(files)) await writeFile(join(dir, name), content);
  // -u: unbuffered, so the line that gives the port arrives as soon as it is printed.
  const server = start('python3', ['-u', '-m', 'http.server', '--bind', '127.0.0.1', '--directory', dir, '0']);
  try {
    const serving = await server.waitFor(/^Serving HTTP on \S+ port \d+ /);
    const port = Number(/ port (\d+) /.exec(serving)?.[1]);
    const request = / "[A-Z]+ \S+ HTTP\/[\d.]+" \d{3} /;
    return {
      port,
      requests: () => server.lines.filter((line) => request.test(line)),
      served: (pattern) => server.waitFor(pattern, 10_000),
      async stop() {
        await server.stop();
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}
