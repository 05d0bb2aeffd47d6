/**
 * The portal most end-to-end tests run: an echo server as the target, an outlet that registers the
 * relay `echo` and allows `echo-inlet`, and an inlet enrolled as `echo-inlet` that allows
 * `echo-outlet`, each its own process in a project started by the test.
 */
import { join } from 'node:path';
import { inletPort, type Running } from './processes.ts';
import type { ProjectProcesses } from './project-processes.ts';
import { roundTrip, startEchoServer } from './tcp.ts';

export const ready = /Portal node setup completed successfully/;

export interface EchoPortal {
  readonly echo: Awaited<ReturnType<typeof startEchoServer>>;
  readonly outlet: Running;
  readonly inlet: Running;
  /** The inlet's listening port. */
  readonly port: number;
  /** The nodes' configurations, to start them again. */
  readonly outletConfig: object;
  readonly inletConfig: object;
}

/**
 * Starts the echo target and both nodes (with `env`, such as PORTAL_HEARTBEAT) and waits until both are
 * set up; `inletKeys` adds keys to the inlet's tcp-inlet (such as direct: false); `target` starts
 * another echo server in place of startEchoServer.
 */
export async function startEchoPortal(
  project: ProjectProcesses,
  env: NodeJS.ProcessEnv = {},
  inletKeys: object = {},
  target: () => Promise<EchoPortal['echo']> = startEchoServer,
): Promise<EchoPortal> {
  const echo = await target();
  const outletTicket = await project.ticket(['--attribute', 'echo-outlet', '--relay', 'echo']);
  const inletTicket = await project.ticket(['--attribute', 'echo-inlet']);
  const outletConfig = {
    'http-server-port': 0,
    relay: 'echo',
    'tcp-outlet': { to: `127.0.0.1:${echo.port}`, allow: 'echo-inlet' },
  };
  const outlet = await project.startNode('outlet', outletConfig, outletTicket, env);
  const inletConfig = {
    'http-server-port': 0,
    'tcp-inlet': { from: '127.0.0.1:0', via: 'echo', allow: 'echo-outlet', ...inletKeys },
  };
  const inlet = await project.startNode('inlet', inletConfig, inletTicket, env);
  await Promise.all([outlet.waitFor(ready), inlet.waitFor(ready)]);
  return { echo, outlet, inlet, port: await inletPort(join(project.dir, 'inlet')), outletConfig, inletConfig };
}

/** Tries a round trip until one succeeds; resolves with the milliseconds it took. */
export async function timeUntilWorking(port: number, limitMs: number, everyMs = 50): Promise<number> {
  const started = Date.now();
  for (;;) {
    const answer = await roundTrip(port, Buffer.from('ping')).catch(() => Buffer.alloc(0));
    if (answer.toString() === 'ping') return Date.now() - started;
    if (Date.now() - started > limitMs) throw new Error(`no working connection within ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
