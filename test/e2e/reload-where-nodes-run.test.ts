/**
 * Reload where nodes actually run: a compose container (its configuration inline, as spec 2.5 has it),
 * a Kubernetes pod (its ConfigMap a mounted directory the kubelet swaps whole), and two use cases'
 * nodes side by side on one machine. The systemd unit's ExecReload= is run in test/cli/service.test.ts,
 * the quick start's inline node in test/cli/node-reload.test.ts.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, readFile, rename, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { onFreePortsInCommand, resolvedNodeService } from '../support/compose-run.ts';
import { nodeStatus, portal, portalBundle, start, startPortal, type Running } from '../support/processes.ts';
import { onFreePorts, runUseCase, type UseCaseRun } from '../support/usecase-run.ts';

/** `portal …` with `input` on standard input and exactly `env`: what `docker exec -i <container> portal …` runs. */
async function portalIn(
  env: NodeJS.ProcessEnv,
  args: readonly string[],
  input = '',
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [portalBundle, ...args], { env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(input);
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout, stderr };
}

describe('reload where nodes run: compose, Kubernetes, and two use cases on one machine', function () {
  this.timeout(180_000);
  let target: Server;
  let targetPort: number;
  const runs: UseCaseRun[] = [];
  const running: Running[] = [];

  before(async () => {
    target = createServer((socket) => socket.pipe(socket)).listen(0, '127.0.0.1');
    await once(target, 'listening');
    targetPort = (target.address() as { port: number }).port;
  });

  after(async () => {
    for (const node of running) await node.stop();
    for (const run of runs) await run.close();
    target.close();
  });

  it('reloads the compose inlet, started with its configuration inline, from standard input', async () => {
    const run = await runUseCase('postgres');
    runs.push(run);
    await run.startOutlet(() => `127.0.0.1:${targetPort}`);
    // The container's command and environment as docker-compose resolves them; its state volume is a home here.
    const service = await resolvedNodeService('postgres', run.dir);
    const env = {
      PATH: process.env.PATH,
      ...service.environment,
      PORTAL_HOME: join(run.dir, 'container-home'),
      PORTAL_SEALING_KEY_FILE: join(run.dir, 'container-keys', 'node-seal.key'),
    };
    await mkdir(join(run.dir, 'container-keys'), { mode: 0o700 });
    const node = start(process.execPath, [portalBundle, ...onFreePortsInCommand(service.command)], {
      env,
      isolated: true,
    });
    running.push(node);
    await node.waitFor(/Portal node setup completed successfully/, 60_000);

    // docker exec -i postgres-inlet portal node reload --configuration - < inlet.yaml
    const next =
      'http-server-port: 0\ntcp-inlets:\n' +
      '  postgres: {from: "127.0.0.1:0", allow: postgres-outlet, direct: false}\n' +
      '  reports: {from: "127.0.0.1:0", via: postgres, allow: postgres-outlet, direct: false}\n';
    const reloaded = await portalIn(env, ['node', 'reload', '--configuration', '-'], next);
    assert.equal(reloaded.code, 0, reloaded.stderr);
    assert.match(reloaded.stdout, /: added inlet reports; replaced inlet postgres; 0 unchanged\.\n$/);
    assert.equal(await readFile(join(env.PORTAL_HOME, 'node', 'configuration'), 'utf8'), next);
    // docker exec postgres-inlet portal node show
    const shown = await portalIn(env, ['node', 'show']);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /^The node is UP/);
    assert.match(shown.stdout, /^ {2}inlet reports: 127\.0\.0\.1:\d+ via postgres, session open/m);

    // docker compose kill -s HUP node: the node reads its kept copy again, and nothing changed.
    const before = (await nodeStatus(env.PORTAL_HOME)).reload.count;
    node.child.kill('SIGHUP');
    await node.waitFor(/reloaded the configuration from .*container-home\/node\/configuration: nothing changed/);
    assert.equal((await nodeStatus(env.PORTAL_HOME)).reload.count, before + 1);
  });

  it('reloads a node whose configuration file is swapped as the kubelet updates a mounted ConfigMap', async () => {
    const run = await runUseCase('redis');
    runs.push(run);
    await run.startOutlet(() => `127.0.0.1:${targetPort}`);
    // The kubelet's layout: the file is a link through ..data to a timestamped folder, swapped whole.
    const mount = join(run.dir, 'configmap');
    const inlet = onFreePorts(await run.compiledConfig('inlet'));
    await mkdir(join(mount, '..2026_01'), { recursive: true });
    await writeFile(join(mount, '..2026_01', 'inlet.yaml'), JSON.stringify(inlet));
    await symlink('..2026_01', join(mount, '..data'));
    await symlink('..data/inlet.yaml', join(mount, 'inlet.yaml'));
    const home = join(run.dir, 'pod-home');
    const node = startPortal(home, ['node', 'create', '--foreground', '--configuration', join(mount, 'inlet.yaml')], {
      ENROLLMENT_TICKET: run.tickets.inlet,
    });
    running.push(node);
    await node.waitFor(/Portal node setup completed successfully/, 60_000);

    // kubectl apply of the edited ConfigMap: a new folder, and ..data swapped to it in one rename.
    const single = inlet['tcp-inlet'] as Record<string, unknown>;
    const next = { 'http-server-port': 0, 'tcp-inlets': { redis: single, cache: { ...single, direct: false } } };
    await mkdir(join(mount, '..2026_02'));
    await writeFile(join(mount, '..2026_02', 'inlet.yaml'), JSON.stringify(next));
    await symlink('..2026_02', join(mount, '..data_tmp'));
    await rename(join(mount, '..data_tmp'), join(mount, '..data'));
    // kubectl exec deployment/redis-inlet -- portal node reload
    const reloaded = await portal(home, ['node', 'reload']);
    assert.equal(reloaded.code, 0, reloaded.stderr);
    assert.match(reloaded.stdout, /: added inlet cache; replaced inlet redis; 0 unchanged\.\n$/);
    assert.deepEqual(
      (await nodeStatus(home)).inlets.map((entry) => entry.name),
      ['redis', 'cache'],
    );
  });

  it("runs two use cases' nodes on one machine, each in its PORTAL_HOME with its status port, all UP", async () => {
    // The compiled guide: a PORTAL_HOME each, and "http-server-port" changed, here to 0 (the system chooses).
    const both = await Promise.all(['webhook', 'api'].map((usecase) => runUseCase(usecase)));
    runs.push(...both);
    await Promise.all(both.map((run) => run.startPortal(() => `127.0.0.1:${targetPort}`)));
    const homes = both.flatMap((run) => [run.outletHome, run.inletHome]);
    const ports = new Set<number>();
    for (const home of homes) {
      const shown = await portal(home, ['node', 'show']);
      assert.equal(shown.code, 0, `${home}: ${shown.stderr}`);
      assert.match(shown.stdout, /^The node is UP/);
      const runtime = JSON.parse(await readFile(join(home, 'node', 'runtime.json'), 'utf8')) as { statusPort: number };
      ports.add(runtime.statusPort);
    }
    assert.equal(ports.size, 4, 'four status servers, one port each');
  });
});
