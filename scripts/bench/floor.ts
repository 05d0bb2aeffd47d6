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

/** Processes on each path: the inlet and the outlet, and the relay between them. */
export const floorHops: Readonly<Record<PathName, number>> = { direct: 2, relayed: 3 };

/** The roles of a chain's hops, from the client's end: the first stands for the inlet, the last for the outlet. */
const hopRoles: Readonly<Record<number, readonly Role[]>> = { 2: ['inlet', 'outlet'], 3: ['inlet', 'relay', 'outlet'] };

/** A chain of `hops` proxies in front of `targetPort`; the endpoint is the first one's port. */
export async function startFloor(targetPort: number, path: PathName, openFiles: number): Promise<Endpoint> {
  const hops = floorHops[path];
  const roles = hopRoles[hops] as readonly Role[];
  const pids: number[] = [];
  let next = targetPort;
  // Started from the target's end, so that each proxy knows the port of the one behind it.
  for (let hop = 0; hop < hops; hop += 1) {
    const proxy = await start(settings.nodeBinary, ['--import', 'tsx', join(settings.root, 'scripts/bench/node-proxy.ts'), String(next)], { ready: /^proxy listening \d+/, openFiles });
    next = Number(proxy.line.split(' ')[2]);
    pids.unshift(proxy.pid);
  }
  return { port: next, roles: Object.fromEntries(roles.map((role, index) => [role, () => [pids[index] as number]])) };
}
