/**
 * The runtime floor: chains of bare Node.js TCP proxies (scripts/bench/node-proxy.ts) with as many
 * processes as each Portal path has, run by the Node.js that runs the Portal nodes. What they cost
 * is what Node.js's `net` costs on that path before any TLS, framing or policy.
 */
import { join } from 'node:path';
import type { Endpoint, Role } from './phases.ts';
import type { PathName } from './report.ts';
import { start } from './processes.ts';
import { settings } from './settings.ts';

/** The processes on each path, from the client's end: a proxy stands in for each. */
export const floorRoles: Readonly<Record<PathName, readonly Role[]>> = {
  direct: ['inlet', 'outlet'],
  relayed: ['inlet', 'relay', 'outlet'],
};

/** A chain of proxies in front of `targetPort`, one per process of `path`; the endpoint is the first one's port. */
export async function startFloor(targetPort: number, path: PathName, openFiles: number): Promise<Endpoint> {
  const roles = floorRoles[path];
  const pids: number[] = [];
  let next = targetPort;
  // Started from the target's end, so that each proxy knows the port of the one behind it.
  for (let hop = 0; hop < roles.length; hop += 1) {
    const proxy = await start(
      settings.nodeBinary,
      ['--import', 'tsx', join(settings.root, 'scripts/bench/node-proxy.ts'), String(next)],
      { ready: /^proxy listening \d+/, openFiles },
    );
    next = Number(proxy.line.split(' ')[2]);
    pids.unshift(proxy.pid);
  }
  return { port: next, roles: Object.fromEntries(roles.map((role, index) => [role, () => [pids[index] as number]])) };
}
