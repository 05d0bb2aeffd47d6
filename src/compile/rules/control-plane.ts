/**
 * The compose control plane runs on one machine's network: replica n on port + n − 1, relay n on
 * relay-port + n − 1, each with a status server (fixed bases), and PostgreSQL on 5432. No two of them
 * may meet, and none may pass 65535.
 */
import {
  controlPlaneNames,
  numbered,
  relayPortOf,
  replicaPort,
  resolveControlPlane,
  type ControlPlane,
} from '../control-plane/model.ts';
import type { Rule, RuleViolation } from '../rule-types.ts';

/** PostgreSQL's port on the compose machine. */
export const composeDatabasePort = 5432;

interface Listener {
  readonly what: string;
  readonly port: number;
  /** The manifest key that chose it, for the message's pointer. */
  readonly pointer: string;
  /** A port the manifest does not choose (status servers, PostgreSQL): a clash names the other's key. */
  readonly fixed?: boolean;
}

function listenersOf(plane: ControlPlane): Listener[] {
  return [
    ...numbered(plane.replicas).map((n) => ({
      what: `controller replica ${n}`,
      port: replicaPort(plane, n),
      pointer: '/control-plane/port',
    })),
    ...numbered(plane.relays).map((n) => ({
      what: `relay ${n}`,
      port: relayPortOf(plane, n),
      pointer: '/control-plane/relay-port',
    })),
    ...numbered(plane.replicas).map((n) => ({
      what: `controller replica ${n}'s status server`,
      port: controlPlaneNames.statusPort + n - 1,
      pointer: '/control-plane/port',
      fixed: true,
    })),
    ...numbered(plane.relays).map((n) => ({
      what: `relay ${n}'s status server`,
      port: controlPlaneNames.relayStatusPort + n - 1,
      pointer: '/control-plane/relay-port',
      fixed: true,
    })),
    { what: 'PostgreSQL', port: composeDatabasePort, pointer: '/control-plane/port', fixed: true },
  ];
}

const controlPlanePorts: Rule = (manifest, sound) => {
  const given = manifest['control-plane'];
  if (given === undefined || !sound.whole('/control-plane')) return [];
  const found: RuleViolation[] = [];
  const seen = new Map<number, Listener>();
  for (const listener of listenersOf(resolveControlPlane(given))) {
    if (listener.port > 65535) {
      found.push({
        pointer: listener.pointer,
        message: `${listener.what} would listen on port ${listener.port}, past 65535; choose a lower port`,
      });
      continue;
    }
    const other = seen.get(listener.port);
    if (other) {
      found.push({
        pointer: listener.fixed ? other.pointer : listener.pointer,
        message:
          `${listener.what} and ${other.what} would both listen on port ${listener.port} of the compose machine; ` +
          'choose ports whose ranges do not meet',
      });
      continue;
    }
    seen.set(listener.port, listener);
  }
  // One message per key is enough to act on.
  return found.filter((violation, index) => found.findIndex((v) => v.pointer === violation.pointer) === index);
};

export const controlPlaneRules: readonly Rule[] = [controlPlanePorts];
