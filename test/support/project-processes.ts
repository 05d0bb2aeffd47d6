/**
 * A whole project as separate processes: a controller (`portal controller start`) and nodes started
 * from configurations, with the bundled CLI; and an administrator enrolled with the controller's code.
 * The administrator enrolls in this process, as `portal enroll --controller --code` does (its own
 * functions, no program start: the suite starts some fifty projects), and issues its tickets the same
 * way; `portal enroll` itself is tested as a program in test/cli/enroll.test.ts.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminCodeAt } from '../../src/cli/enroll.ts';
import { adminDirectory } from '../../src/cli/home.ts';
import { enrollAdministrator } from '../../src/node/enrollment.ts';
import { startPortal, type Running } from './processes.ts';
import { ticketInProcess } from './ticket-in-process.ts';

export interface ControllerProcess {
  readonly process: Running;
  readonly address: string;
  readonly listening: string;
  readonly adminCode: string;
  /** SHA-256 of its TLS certificate, which tickets and nodes pin. */
  readonly fingerprint: string;
  /** Where it keeps its store and TLS key. */
  readonly dataDir: string;
  /** host:port of its status server (GET /metrics, GET /healthz), unless --status-listen off. */
  readonly status?: string;
  /** The URL of its web console, unless --no-console. */
  readonly console?: string;
}

export interface ProjectProcesses {
  readonly dir: string;
  controller: ControllerProcess;
  ticket(flags: string[]): Promise<string>;
  startNode(name: string, config: object, ticket?: string, env?: NodeJS.ProcessEnv): Promise<Running>;
  /** Kills the controller (SIGKILL) and starts it again on the same address. */
  restartController(): Promise<void>;
  killController(): Promise<void>;
  /** Starts the controller again on its address; from another data directory (a restored backup) when given. */
  startController(dataDir?: string): Promise<void>;
  close(): Promise<void>;
}

async function launchController(
  dir: string,
  listen: string,
  extra: string[],
  dataDir = join(dir, 'controller'),
): Promise<ControllerProcess> {
  const process = startPortal(join(dir, 'controller-home'), [
    'controller',
    'start',
    '--data-dir',
    dataDir,
    '--listen',
    listen,
    '--ready-json',
    ...extra,
  ]);
  const line = await process.waitFor(/^\{"pid"/);
  const ready = JSON.parse(line) as {
    address: string;
    listening: string;
    adminCode: string;
    fingerprint: string;
    status?: string;
    console?: string;
  };
  return {
    process,
    address: ready.address,
    listening: ready.listening,
    adminCode: ready.adminCode,
    fingerprint: ready.fingerprint,
    dataDir,
    ...(ready.status ? { status: ready.status } : {}),
    ...(ready.console ? { console: ready.console } : {}),
  };
}

export async function startProject(options: { controllerFlags?: string[] } = {}): Promise<ProjectProcesses> {
  const dir = await mkdtemp(join(tmpdir(), 'portal-project-'));
  const flags = options.controllerFlags ?? [];
  const nodes: Running[] = [];
  const adminHome = join(dir, 'admin');
  const project: ProjectProcesses = {
    dir,
    controller: await launchController(dir, '127.0.0.1:0', flags),
    ticket: (ticketFlags) => ticketInProcess(adminHome, ticketFlags),
    async startNode(name, config, ticket, env = {}) {
      const path = join(dir, `${name}.json`);
      await writeFile(path, JSON.stringify(config));
      const node = startPortal(join(dir, name), ['node', 'create', '--foreground', '--configuration', path], {
        ...(ticket ? { ENROLLMENT_TICKET: ticket } : {}),
        ...env,
      });
      nodes.push(node);
      return node;
    },
    async killController() {
      await project.controller.process.kill();
    },
    async startController(dataDir) {
      project.controller = await launchController(
        dir,
        project.controller.listening,
        flags,
        dataDir ?? project.controller.dataDir,
      );
    },
    async restartController() {
      await project.killController();
      await project.startController();
    },
    async close() {
      for (const node of nodes) await node.stop();
      await project.controller.process.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
  const code = adminCodeAt(project.controller.adminCode, project.controller.listening);
  await enrollAdministrator(adminDirectory(adminHome), code, 'default');
  return project;
}
