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
import { inletPort, nodeStatus, portalOnPath, startPortal, type Running } from './processes.ts';
import { projectRoot } from './usecases.ts';
import { removeAdminHome } from './admin-home.ts';

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
   * Starts the compiled outlet, each target rewritten by `retarget` (as the stack substitutes the endpoint);
   * waits until it has set up. `compiledTarget` is the single portal's (or the first's) as compiled.
   */
  startOutlet(retarget: Retarget, env?: NodeJS.ProcessEnv): Promise<{ compiledTarget: string }>;
  /**
   * startOutlet, then the compiled inlet; waits until both have set up. `inletPort` is the single portal's
   * (or the first's); `inletPorts` each portal's by name (a single form's under '').
   */
  startPortal(
    retarget: Retarget,
    outletEnv?: NodeJS.ProcessEnv,
  ): Promise<{ compiledTarget: string; inletPort: number; inletPorts: Record<string, number> }>;
  close(): Promise<void>;
}

/** The target a compiled outlet portal reaches on this machine; `portal` is its name ('' for the single form). */
export type Retarget = (compiledTarget: string, portal: string) => string;

type Entries = Record<string, Record<string, unknown>>;

/** A node configuration's portals of one side, single or named form, as name → entry ('' for the single form). */
function portalsOf(config: Record<string, unknown>, side: 'outlet' | 'inlet'): Entries {
  const single = config[`tcp-${side}`] as Record<string, unknown> | undefined;
  return single ? { '': single } : ((config[`tcp-${side}s`] as Entries | undefined) ?? {});
}

/** `config` with its portals of one side replaced, in the form it had. */
function withPortals(config: Record<string, unknown>, side: 'outlet' | 'inlet', entries: Entries) {
  if (config[`tcp-${side}`]) return { ...config, [`tcp-${side}`]: entries[''] };
  return config[`tcp-${side}s`] ? { ...config, [`tcp-${side}s`]: entries } : config;
}

const mapValues = (
  entries: Entries,
  change: (entry: Record<string, unknown>, name: string) => Record<string, unknown>,
) => Object.fromEntries(Object.entries(entries).map(([name, entry]) => [name, change(entry, name)]));

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
      const compiled = portalsOf(outlet, 'outlet');
      const targets = mapValues(compiled, (entry, name) => ({ ...entry, to: retarget(String(entry.to), name) }));
      const node = await run.startNode('outlet', withPortals(onFreePorts(outlet), 'outlet', targets), env);
      await node.waitFor(/Portal node setup completed successfully/);
      return { compiledTarget: String(Object.values(compiled)[0]?.to) };
    },
    async startPortal(retarget, outletEnv = {}) {
      const inlet = await run.compiledConfig('inlet');
      const [{ compiledTarget }, inletNode] = await Promise.all([
        run.startOutlet(retarget, outletEnv),
        run.startNode('inlet', onFreePorts(inlet)),
      ]);
      await inletNode.waitFor(/Portal node setup completed successfully/);
      const inletPorts = await inletPortsByName(join(dir, 'inlet-home'), inlet['tcp-inlet'] !== undefined);
      return { compiledTarget, inletPort: Object.values(inletPorts)[0] as number, inletPorts };
    },
    async close() {
      for (const node of started) await node.stop();
      await removeAdminHome(adminHome);
      await rm(dir, { recursive: true, force: true });
    },
  };
  return run;
}

/** A compiled node configuration listening (clients, direct path, status) on free loopback ports. */
export function onFreePorts(config: Record<string, unknown>): Record<string, unknown> {
  const inlets = mapValues(portalsOf(config, 'inlet'), (inlet) => ({
    ...inlet,
    from: '127.0.0.1:0',
    ...(typeof inlet.direct === 'string' ? { direct: inlet.direct.replace(/:\d+$/, ':0') } : {}),
  }));
  return withPortals({ ...config, 'http-server-port': 0 }, 'inlet', inlets);
}

/** Each running inlet's port by portal name; a single form's under ''. */
export async function inletPortsByName(home: string, single: boolean): Promise<Record<string, number>> {
  if (single) return { '': await inletPort(home) };
  const shown = await nodeStatus(home);
  return Object.fromEntries(shown.inlets.map((inlet) => [inlet.name, Number(inlet.listening?.split(':').at(-1))]));
}
