/**
 * A pool asked for in a manifest (outlet.replicas: 2) and run from what the compiler made: the outlet
 * ticket as the guide issues it (one ticket, two enrollments), the outlet compose file as docker-compose
 * resolves it with that ticket, and each of its services' commands run as the image would run them
 * (only the status ports become 0). Both replicas enroll with the one ticket and join the inlet's pool.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { compileUseCase } from '../../src/compile/compile.ts';
import { ticketCommand } from '../../src/compile/guide.ts';
import { manifestProblems } from '../../src/compile/manifest.ts';
import { resolveUseCase } from '../../src/compile/model.ts';
import type { UseCaseManifest } from '../../src/shared/types/manifest.ts';
import { ready } from '../support/echo-portal.ts';
import { inletPort, startPortal, statusWhen, type NodeShow, type Running } from '../support/processes.ts';
import { startProject, type ProjectProcesses } from '../support/project-processes.ts';
import { startEchoServer } from '../support/tcp.ts';

const execFileAsync = promisify(execFile);

interface ResolvedService {
  readonly container_name: string;
  readonly command: string[];
  readonly environment: Record<string, string>;
  readonly volumes: string[];
}

/** Opens a connection through `port` and waits for the echo of a first byte: it stays open. */
async function held(port: number): Promise<Socket> {
  const socket = connect({ host: '127.0.0.1', port });
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.once('data', () => resolve());
    socket.write('x');
  });
  return socket;
}

describe('end to end: a pool of outlets from the compiled compose file (outlet.replicas: 2)', function () {
  this.timeout(120_000);
  let project: ProjectProcesses;
  let echo: Awaited<ReturnType<typeof startEchoServer>>;
  const nodes: Running[] = [];

  before(async () => {
    [project, echo] = await Promise.all([startProject(), startEchoServer()]);
  });
  after(async () => {
    for (const node of nodes) await node.stop();
    await project?.close();
    await echo?.close();
  });

  it('enrolls both replicas with the one ticket, and the inlet spreads connections over them', async () => {
    const text = [
      'usecase: pool',
      'title: A pooled service',
      'outlet:',
      `  to: 127.0.0.1:${echo.port}`,
      '  replicas: 2',
      'inlet:',
      '  port: 15432',
    ].join('\n');
    const { manifest, problems } = manifestProblems('pool.yaml', `${text}\n`);
    assert.deepEqual(problems, []);
    const useCase = resolveUseCase(manifest as UseCaseManifest);
    const dir = join(project.dir, 'compiled');
    await mkdir(dir, { recursive: true });
    const compose = compileUseCase(manifest as UseCaseManifest).find((file) => file.path === 'outlet.compose.yaml');
    await writeFile(join(dir, 'outlet.compose.yaml'), compose?.content ?? '');

    // The guide's ticket command: one ticket that allows both enrollments.
    const outletFlags = ticketCommand(useCase.tickets.outlet).slice(3);
    assert.deepEqual(outletFlags.slice(2, 4), ['--usage-count', '2']);
    const ticket = await project.ticket(outletFlags);
    const { stdout } = await execFileAsync('docker-compose', ['-f', 'outlet.compose.yaml', 'config'], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, ENROLLMENT_TICKET: ticket },
    });
    const services = (parse(stdout) as { services: Record<string, ResolvedService> }).services;
    assert.deepEqual(Object.keys(services).sort(), ['node-1', 'node-2']);

    for (const [name, service] of Object.entries(services)) {
      assert.equal(service.environment.ENROLLMENT_TICKET, ticket, `${name} enrolls with the one ticket`);
      const home = join(project.dir, name);
      // The image runs `portal` with the service's command; its keys volume is a folder of the home here.
      const command = service.command.map((argument) =>
        argument.replace(/^http-server-port: \d+$/m, 'http-server-port: 0'),
      );
      const node = startPortal(home, command, {
        ...service.environment,
        PORTAL_SEALING_KEY_FILE: join(home, 'keys', 'node-seal.key'),
        PORTAL_HEARTBEAT: '500ms',
      });
      nodes.push(node);
      await node.waitFor(ready);
    }

    const inletTicket = await project.ticket(ticketCommand(useCase.tickets.inlet).slice(3));
    const inlet = await project.startNode(
      'inlet',
      { 'http-server-port': 0, 'tcp-inlet': { from: '127.0.0.1:0', via: 'pool', allow: 'pool-outlet' } },
      inletTicket,
    );
    nodes.push(inlet);
    await inlet.waitFor(ready);
    const inletHome = join(project.dir, 'inlet');
    // Both replicas open in the pool (the inlet's first session keeper shows without an outlet until it
    // knows which one it reached: the open members with an outlet are what serve).
    const open = (shown: NodeShow) => (shown.inlets[0]?.outlets ?? []).filter((member) => member.session === 'open');
    const shown = await statusWhen(
      inletHome,
      (now) => new Set(open(now).flatMap((member) => (member.outlet ? [member.outlet] : []))).size === 2,
      30_000,
    );
    assert.equal(open(shown).length >= 2, true);

    const port = await inletPort(inletHome);
    const sockets: Socket[] = [];
    for (let i = 0; i < 6; i += 1) sockets.push(await held(port));
    // Spread three and three over the two nodes.
    await statusWhen(inletHome, (now) => {
      const byNode = new Map<string, number>();
      for (const member of now.inlets[0]?.outlets ?? [])
        if (member.outlet) byNode.set(member.outlet, (byNode.get(member.outlet) ?? 0) + member.clients);
      return byNode.size >= 2 && [...byNode.values()].filter((clients) => clients === 3).length === 2;
    });
    for (const socket of sockets) socket.destroy();
  });
});
