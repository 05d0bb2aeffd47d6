/**
 * Ports that must not meet: on the inlet node its portals' ports, the status server and the direct
 * paths' fixed ports; on the outlet node the status server and a target on the same machine; and the
 * container inlet's network.
 */
import { isPort, isLoopbackHost, parseHostPort } from '../../shared/address.ts';
import { product } from '../../shared/product.ts';
import { directPortAt, outletStatusPort } from '../node-config.ts';
import { portalSources } from '../portals.ts';
import type { Rule, RuleViolation } from '../rule-types.ts';

const inletPorts: Rule = (manifest, sound) => {
  const portals = portalSources(manifest);
  const statusKnown = sound.whole('/status-port');
  const statusPort = manifest['status-port'] ?? product.statusPort;
  const givenStatus = manifest['status-port'] !== undefined;
  const directPorts = new Set(portals.map((portal) => directPortAt(portal.index)));
  const found: RuleViolation[] = [];
  const used = new Map<number, string>();
  for (const portal of portals) {
    const pointer = `${portal.pointers.inlet}/port`;
    const port = portal.inlet.port;
    if (!sound.whole(pointer) || port === undefined) continue;
    if (statusKnown && port === statusPort) {
      found.push({
        pointer: givenStatus ? '/status-port' : pointer,
        message: givenStatus
          ? `the status server and the inlet would both listen on port ${statusPort}; choose another status-port`
          : `the status server listens on port ${statusPort} by default; choose another inlet port or set status-port`,
      });
    } else if (directPorts.has(port)) {
      found.push({
        pointer,
        message: `the stack inlet's direct path listens on port ${port}; choose another inlet port`,
      });
    } else if (used.has(port)) {
      found.push({ pointer, message: `portal "${used.get(port)}" listens on port ${port} already; choose another` });
    }
    used.set(port, portal.name ?? '');
  }
  if (statusKnown && givenStatus && directPorts.has(statusPort)) {
    found.push({
      pointer: '/status-port',
      message: `the stack inlet's direct path listens on port ${statusPort}; choose another status-port`,
    });
  }
  return found;
};

/**
 * The compose outlets of a pool share their machine's network, so replica k's status server listens on
 * status-port + k - 1 (outletStatusPort); a target on the same machine must miss all of them.
 */
const outletPorts: Rule = (manifest, sound) => {
  if (!sound.whole('/status-port') || !sound.whole('/outlet/replicas')) return [];
  const statusPort = manifest['status-port'] ?? product.statusPort;
  const replicas = manifest.outlet?.replicas ?? 1;
  const last = outletStatusPort(statusPort, replicas);
  if (last > 65535) {
    return [
      {
        pointer: '/outlet/replicas',
        message:
          `the compose outlets' status servers would listen on ports ${statusPort} to ${last}, ` +
          'beyond 65535; choose a lower status-port',
      },
    ];
  }
  const statusPorts = new Set(Array.from({ length: replicas }, (_, index) => outletStatusPort(statusPort, index + 1)));
  return portalSources(manifest).flatMap((portal) => {
    const pointer = `${portal.pointers.outlet}/to`;
    if (!sound.whole(pointer) || portal.outlet.to === undefined) return [];
    const target = parseHostPort(portal.outlet.to);
    if (!target.ok || !isLoopbackHost(target.address.host) || !statusPorts.has(target.address.port)) return [];
    const port = target.address.port;
    return [
      {
        pointer: manifest['status-port'] === undefined ? pointer : '/status-port',
        message:
          port === statusPort
            ? `the outlet's target listens on port ${port} of the same machine; choose another status-port`
            : `the outlet's target listens on port ${port} of the same machine, where an outlet replica's ` +
              'status server listens (status-port + replica - 1); choose another status-port',
      },
    ];
  });
};

const containerNetwork: Rule = (manifest, sound) => {
  const container = manifest.container;
  if (!container || !sound.whole('/container')) return [];
  if (container['network-mode'] !== 'bridge') {
    if ((container.publish ?? []).length === 0) return [];
    return [
      {
        pointer: '/container/publish',
        at: 'key',
        message: 'a container on the host network publishes no ports; remove publish or use network-mode: bridge',
      },
    ];
  }
  const found: RuleViolation[] = [];
  if (container.listen === '127.0.0.1') {
    found.push({
      pointer: '/container/listen',
      message: 'on a bridge network the inlet must listen on 0.0.0.0 to be reached through the published port',
    });
  }
  if (container.publish === undefined) return found;
  for (const [index, mapping] of container.publish.entries()) {
    if (!mapping.split(':').map(Number).every(isPort))
      found.push({
        pointer: `/container/publish/${index}`,
        message: `"${mapping}" has a port out of range; expected ports from 1 to 65535`,
      });
  }
  for (const portal of portalSources(manifest)) {
    const port = portal.inlet.port;
    if (!sound.whole(`${portal.pointers.inlet}/port`) || port === undefined) continue;
    if (!container.publish.some((mapping) => mapping.endsWith(`:${port}`))) {
      found.push({
        pointer: '/container/publish',
        message: `a bridge container must publish the inlet port; add "${port}:${port}"`,
      });
    }
  }
  return found;
};

export const portRules: readonly Rule[] = [inletPorts, outletPorts, containerNetwork];
