/**
 * The runtime floor: chains of bare Node.js TCP proxies (scripts/bench/node-proxy.ts) with as many
 * processes as each Portal path has, run by the Node.js that runs the Portal nodes. The plain floor
 * is what Node.js's `net` costs on that path before any TLS, framing or policy; the TLS floor adds
 * Node.js's own TLS between the first and the last proxy, as Portal's end-to-end session does.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServerCertificate } from '../../src/pki/authority.ts';
import type { Endpoint, Role } from './phases.ts';
import type { PathName } from './report.ts';
import { start } from './processes.ts';
import { settings } from './settings.ts';

export type FloorKind = 'plain' | 'tls';

/** The processes on each path, from the client's end: a proxy stands in for each. */
export const floorRoles: Readonly<Record<PathName, readonly Role[]>> = {
  direct: ['inlet', 'outlet'],
  relayed: ['inlet', 'relay', 'outlet'],
};

/** The proxy's mode for each role: the inlet encrypts, the outlet decrypts, a relay carries records. */
const tlsModes: Readonly<Record<Role, string>> = { inlet: 'tls-out', relay: 'plain', outlet: 'tls-in' };

/** A certificate and its key in one file of `work`, for the TLS floor's outlets. */
export function floorCertificate(work: string): string {
  const file = join(work, 'floor-tls.pem');
  const { privateKey, certificate } = createServerCertificate('floor.bench');
  writeFileSync(file, `${privateKey}${certificate}`, { mode: 0o600 });
  return file;
}

/** A chain of proxies in front of `targetPort`, one per process of `path`; the endpoint is the first one's port. */
export async function startFloor(
  targetPort: number,
  path: PathName,
  openFiles: number,
  tls?: { readonly certificateFile: string },
): Promise<Endpoint> {
  const roles = floorRoles[path];
  const pids: number[] = [];
  let next = targetPort;
  // Started from the target's end, so that each proxy knows the port of the one behind it.
  for (let hop = roles.length - 1; hop >= 0; hop -= 1) {
    const mode = tls ? tlsModes[roles[hop] as Role] : 'plain';
    const proxy = await start(
      settings.nodeBinary,
      [
        '--import',
        'tsx',
        join(settings.root, 'scripts/bench/node-proxy.ts'),
        String(next),
        mode,
        ...(tls ? [tls.certificateFile] : []),
      ],
      { ready: /^proxy listening \d+/, openFiles },
    );
    next = Number(proxy.line.split(' ')[2]);
    pids.unshift(proxy.pid);
  }
  return { port: next, roles: Object.fromEntries(roles.map((role, index) => [role, () => [pids[index] as number]])) };
}
