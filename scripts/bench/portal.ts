/**
 * Portal under test: one project on a controller of its own (`portal controller start --no-relay`),
 * one relay node (`portal relay start`) that carries the relayed path, and per path and target an
 * outlet and an inlet node, each a process of its own started as a user would, with
 * `portal node create --foreground` and a ticket from `portal project ticket`. The relay and the
 * nodes run on BENCH_NODE; the controller, which loads the SQLite module built for this machine's
 * Node.js, on this one.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, listening, start } from './processes.ts';
import { tree } from './proc-stats.ts';
import { settings } from './settings.ts';

/** A way through Portal: `relayed` (inlet → relay → outlet) or `direct` (the outlet dials the inlet). */
export interface PortalPath {
  readonly name: 'relayed' | 'direct';
  /** Keys added to the inlet's tcp-inlet configuration. */
  readonly inlet: Readonly<Record<string, unknown>>;
}

/**
 * The paths this build offers. The direct path is on by default once the node configuration schema
 * knows `tcp-inlet.direct`; from then on the relayed path needs `"direct": false`, and before it the
 * key would be refused, so the relayed path is all there is.
 */
interface SchemaNode {
  readonly $ref?: string;
  readonly properties?: Record<string, SchemaNode>;
  readonly [key: string]: unknown;
}

/** The properties of `node`, through a local `$ref` (#/definitions/…) when it is one. */
function properties(root: SchemaNode, node: SchemaNode | undefined): Record<string, SchemaNode> | undefined {
  if (node?.$ref?.startsWith('#/')) {
    const target = node.$ref
      .slice(2)
      .split('/')
      .reduce<unknown>((at, key) => (at as Record<string, unknown> | undefined)?.[key], root) as SchemaNode | undefined;
    return properties(root, target);
  }
  return node?.properties;
}

export function portalPaths(schemas = join(settings.root, 'schemas')): { paths: PortalPath[]; note?: string } {
  const files = readdirSync(schemas).filter((file) => /^node-config.*\.json$/.test(file));
  const knowsDirect = files.some((file) => {
    const schema = JSON.parse(readFileSync(join(schemas, file), 'utf8')) as SchemaNode;
    return properties(schema, schema.properties?.['tcp-inlet'])?.direct !== undefined;
  });
  if (knowsDirect) {
    const both: PortalPath[] = [
      { name: 'relayed', inlet: { direct: false } },
      { name: 'direct', inlet: {} },
    ];
    return { paths: both.filter((path) => settings.paths.has(path.name)) };
  }
  return {
    paths: [{ name: 'relayed', inlet: {} }],
    note:
      'the direct path is not in this build (no node configuration schema knows tcp-inlet.direct): ' +
      'Portal is measured on the relayed path only',
  };
}

export interface Project {
  /** The administrator's PORTAL_HOME. */
  readonly home: string;
  /** The relay node's process and whatever it forked. */
  readonly relayPids: () => number[];
}

/** What the CLI wrote to standard error so far: the same warning (a loopback controller, for every ticket) once. */
const saidOnce = new Set<string>();

function portal(home: string, args: readonly string[]): string {
  const run = spawnSync(process.execPath, [settings.bundle, ...args], {
    env: { ...process.env, PORTAL_HOME: home },
    encoding: 'utf8',
  });
  for (const line of run.stderr.split('\n').filter((text) => text.trim() !== '')) {
    if (saidOnce.has(line)) continue;
    saidOnce.add(line);
    process.stderr.write(`${line}\n`);
  }
  if (run.status !== 0)
    throw new Error(`portal ${args.join(' ')} failed (${run.error?.message ?? `exit ${run.status}`})`);
  return run.stdout.trim();
}

/**
 * A controller without a relay on a free loopback port, the administrator enrolled with its one-time
 * code, and one relay node enrolled with a `--relay-node` ticket: every relayed byte then crosses that
 * relay, a process whose CPU and memory are measured alone. It gets the open-files limit, as it holds
 * one end of each idle connection twice.
 */
export async function startProject(work: string, openFiles: number): Promise<Project> {
  const controller = await start(
    process.execPath,
    [
      settings.bundle,
      'controller',
      'start',
      '--data-dir',
      join(work, 'controller'),
      '--listen',
      '127.0.0.1:0',
      '--no-relay',
      '--ready-json',
    ],
    {
      env: { PORTAL_HOME: join(work, 'controller-home') },
      ready: /^\{"pid"/,
    },
  );
  const { listening: address, adminCode } = JSON.parse(controller.line) as { listening: string; adminCode: string };
  const home = join(work, 'admin');
  portal(home, ['enroll', '--controller', address, '--code', adminCode]);
  const ticket = portal(home, ['project', 'ticket', '--relay-node']);
  const relay = await start(
    settings.nodeBinary,
    [...settings.nodeArgs, settings.bundle, 'relay', 'start', '--listen', '127.0.0.1:0'],
    {
      env: { PORTAL_HOME: join(work, 'relay'), ENROLLMENT_TICKET: ticket, NODE_LOG_LEVEL: 'warn' },
      ready: / Portal relay \S+ of project \S+ listening on /,
      openFiles,
    },
  );
  return { home, relayPids: () => tree(relay.pid) };
}

export interface NodeConfigs {
  readonly outlet: Record<string, unknown>;
  readonly inlet: Record<string, unknown>;
}

/** The compiled node configurations of a bundled use case (out/<usecase>/*.json). */
export function compiledConfigs(usecase: string): NodeConfigs {
  const read = (role: string) =>
    JSON.parse(readFileSync(join(settings.root, 'out', usecase, `${role}.json`), 'utf8')) as Record<string, unknown>;
  return { outlet: read('outlet'), inlet: read('inlet') };
}

/** The smallest pair of configurations; names, ports and target are filled in by startPortal. */
export const plainConfigs: NodeConfigs = { outlet: { 'tcp-outlet': {} }, inlet: { 'tcp-inlet': {} } };

export interface RunningPortal {
  readonly path: PortalPath;
  readonly port: number;
  readonly inletPid: number;
  readonly outletPid: number;
  /** The inlet node's PORTAL_HOME (its status port is in node/runtime.json). */
  readonly inletHome: string;
}

/** The inlet's part of GET /show: the path of its session and its connections by path, where the build reports them. */
export interface InletFacts {
  readonly session?: string;
  /** "direct", "relay <id>", or null without a session. */
  readonly path?: string | null;
  readonly connections_direct?: number;
  readonly connections_relayed?: number;
}

export async function inletFacts(inletHome: string): Promise<InletFacts | undefined> {
  try {
    const { statusPort } = JSON.parse(readFileSync(join(inletHome, 'node', 'runtime.json'), 'utf8')) as {
      statusPort: number;
    };
    const response = await fetch(`http://127.0.0.1:${statusPort}/show`);
    const show = (await response.json()) as { inlets?: InletFacts[] };
    return show.inlets?.[0];
  } catch {
    return undefined;
  }
}

/** Whether the inlet's session runs on `path` ("relay …" for the relayed one); true where the build does not say. */
const onPath = (facts: InletFacts | undefined, path: PortalPath['name']) =>
  facts?.session === 'open' &&
  (facts.path === undefined ||
    (path === 'direct' ? facts.path === 'direct' : facts.path?.startsWith('relay') === true));

/**
 * Waits until the inlet's session runs on its path: a direct session arrives after the outlet has
 * dialled, and a relayed one may come first. Throws with the path seen when it does not within 15 s,
 * as the figures would otherwise be another path's.
 */
async function waitForPath(inletHome: string, path: PortalPath['name']): Promise<void> {
  const deadline = Date.now() + 15_000;
  let facts: InletFacts | undefined;
  while (Date.now() < deadline) {
    facts = await inletFacts(inletHome);
    if (onPath(facts, path)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(
    `the inlet's session is not on the ${path} path after 15 s (session ${facts?.session ?? 'unknown'}, ` +
      `path ${facts?.path ?? 'none'})`,
  );
}

/**
 * An outlet in front of `targetPort` and an inlet for it on `path`. The configurations are `base`
 * adjusted to this machine: loopback ports chosen now, a status server on a free port, and names
 * suffixed with the path so that two paths to one target can run side by side in the project.
 */
export async function startPortal(
  work: string,
  project: Project,
  target: { name: string; port: number },
  path: PortalPath,
  base: NodeConfigs,
  openFiles: number,
): Promise<RunningPortal> {
  const name = `${target.name}-${path.name}`;
  const outletTicket = portal(project.home, [
    'project',
    'ticket',
    '--expires-in',
    '10h',
    '--usage-count',
    '1',
    '--attribute',
    `${name}-outlet`,
    '--relay',
    name,
  ]);
  const inletTicket = portal(project.home, [
    'project',
    'ticket',
    '--expires-in',
    '10h',
    '--usage-count',
    '1',
    '--attribute',
    `${name}-inlet`,
  ]);
  const inletPort = await freePort();
  const outletConfig = {
    ...base.outlet,
    'http-server-port': 0,
    relay: name,
    'tcp-outlet': { ...(base.outlet['tcp-outlet'] as object), to: `127.0.0.1:${target.port}`, allow: `${name}-inlet` },
  };
  const inletConfig = {
    ...base.inlet,
    'http-server-port': 0,
    'tcp-inlet': {
      ...(base.inlet['tcp-inlet'] as object),
      from: `127.0.0.1:${inletPort}`,
      via: name,
      allow: `${name}-outlet`,
      ...path.inlet,
    },
  };
  const outletConnections = Math.max(settings.idleConnections + 100, 4096);
  const node = (role: string, config: object, ticket: string) => {
    const file = join(work, `${name}-${role}.json`);
    writeFileSync(file, JSON.stringify(config));
    return start(
      settings.nodeBinary,
      [...settings.nodeArgs, settings.bundle, 'node', 'create', '--foreground', '--configuration', file],
      {
        env: {
          PORTAL_HOME: join(work, `${name}-${role}`),
          ENROLLMENT_TICKET: ticket,
          NODE_LOG_LEVEL: 'warn',
          // The idle phase holds every connection from one inlet: the outlet's bounds per inlet and in
          // all (512 and 4096 by default) would refuse most of them.
          PORTAL_OUTLET_CONNECTIONS: String(outletConnections),
          PORTAL_OUTLET_CONNECTIONS_PER_INLET: String(outletConnections),
        },
        ready: /setup completed/,
        openFiles,
      },
    );
  };
  const outlet = await node('outlet', outletConfig, outletTicket);
  const inlet = await node('inlet', inletConfig, inletTicket);
  const inletHome = join(work, `${name}-inlet`);
  await listening(inletPort);
  await waitForPath(inletHome, path.name);
  return { path, port: inletPort, inletPid: inlet.pid, outletPid: outlet.pid, inletHome };
}
