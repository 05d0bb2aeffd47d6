/**
 * A use case run as its compiled artifacts say: an administrator PORTAL_HOME enrolled with the embedded
 * controller (tickets.sh --local), tickets.sh run for real (with the bundled portal on PATH), and the compiled node
 * configurations with only what the test machine must change: fixed ports become port 0, and the
 * target becomes the test's own server.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inletPort, portal, portalOnPath, startPortal, type Running } from './processes.ts';
import { projectRoot } from './usecases.ts';

export interface UseCaseRun {
  readonly dir: string;
  readonly adminHome: string;
  readonly outletHome: string;
  readonly inletHome: string;
  readonly tickets: { outlet: string; inlet: string };
  compiledConfig(role: 'outlet' | 'inlet'): Promise<Record<string, unknown>>;
  startNode(role: 'outlet' | 'inlet', config: Record<string, unknown>, env?: NodeJS.ProcessEnv): Promise<Running>;
  /** Stops (SIGTERM) every node of `role` started so far; resolves with their exit codes. */
  stopNodes(role: 'outlet' | 'inlet'): Promise<(number | null)[]>;
  /**
   * Starts the compiled outlet, its target rewritten by `retarget` (as the stack substitutes the endpoint);
   * waits until it has set up.
   */
  startOutlet(
    retarget: (compiledTarget: string) => string,
    env?: NodeJS.ProcessEnv,
  ): Promise<{ compiledTarget: string }>;
  /** startOutlet, then the compiled inlet; waits until both have set up. */
  startPortal(
    retarget: (compiledTarget: string) => string,
    outletEnv?: NodeJS.ProcessEnv,
  ): Promise<{ compiledTarget: string; inletPort: number }>;
  close(): Promise<void>;
}

export async function runUseCase(usecase: string): Promise<UseCaseRun> {
  const dir = await mkdtemp(join(tmpdir(), `portal-${usecase}-`));
  const adminHome = join(dir, 'admin');
  const bin = await portalOnPath(dir);
  // --local: every node of the test runs on this machine, beside the embedded controller on loopback.
  const script = spawnSync('bash', [join(projectRoot, 'out', usecase, 'tickets.sh'), '--local'], {
    cwd: dir,
    env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, PORTAL_HOME: adminHome },
    encoding: 'utf8',
  });
  if (script.status !== 0) throw new Error(`tickets.sh failed (${script.status}): ${script.stderr}`);
  const tickets = {
    outlet: (await readFile(join(dir, 'outlet.ticket'), 'utf8')).trim(),
    inlet: (await readFile(join(dir, 'inlet.ticket'), 'utf8')).trim(),
  };
  const started: Running[] = [];
  const byRole = new Map<Running, 'outlet' | 'inlet'>();
  const run: UseCaseRun = {
    dir,
    adminHome,
    outletHome: join(dir, 'outlet-home'),
    inletHome: join(dir, 'inlet-home'),
    tickets,
    async compiledConfig(role) {
      return JSON.parse(await readFile(join(projectRoot, 'out', usecase, `${role}.json`), 'utf8')) as Record<
        string,
        unknown
      >;
    },
    async startNode(role, config, env = {}) {
      const path = join(dir, `${role}.json`);
      await writeFile(path, JSON.stringify(config));
      const node = startPortal(join(dir, `${role}-home`), ['node', 'create', '--foreground', '--configuration', path], {
        ENROLLMENT_TICKET: tickets[role],
        ...env,
      });
      started.push(node);
      byRole.set(node, role);
      return node;
    },
    async stopNodes(role) {
      return Promise.all(started.filter((node) => byRole.get(node) === role).map((node) => node.stop()));
    },
    async startOutlet(retarget, env = {}) {
      const outlet = await run.compiledConfig('outlet');
      const compiledTarget = String((outlet['tcp-outlet'] as { to: string }).to);
      const node = await run.startNode(
        'outlet',
        { ...onFreePorts(outlet), 'tcp-outlet': { ...(outlet['tcp-outlet'] as object), to: retarget(compiledTarget) } },
        env,
      );
      await node.waitFor(/Portal node setup completed successfully/);
      return { compiledTarget };
    },
    async startPortal(retarget, outletEnv = {}) {
      const [{ compiledTarget }, inletNode] = await Promise.all([
        run.startOutlet(retarget, outletEnv),
        run.startNode('inlet', onFreePorts(await run.compiledConfig('inlet'))),
      ]);
      await inletNode.waitFor(/Portal node setup completed successfully/);
      return { compiledTarget, inletPort: await inletPort(join(dir, 'inlet-home')) };
    },
    async close() {
      for (const node of started) await node.stop();
      await portal(adminHome, ['reset', '--yes']);
      await rm(dir, { recursive: true, force: true });
    },
  };
  return run;
}

/** The compiled inlet configuration, listening (clients, direct path, status) on free ports. */
export function onFreePorts(config: Record<string, unknown>): Record<string, unknown> {
  const inlet = config['tcp-inlet'] as Record<string, unknown> | undefined;
  const direct = typeof inlet?.direct === 'string' ? { direct: inlet.direct.replace(/:\d+$/, ':0') } : {};
  return {
    ...config,
    'http-server-port': 0,
    ...(inlet ? { 'tcp-inlet': { ...inlet, from: '127.0.0.1:0', ...direct } } : {}),
  };
}
