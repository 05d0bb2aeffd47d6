/**
 * How the kubelet watches the node. The status server listens on 127.0.0.1 only, so an httpGet or
 * tcpSocket probe, which the kubelet sends to the pod's own address, would never reach it: every probe
 * runs inside the container instead.
 *
 * - readiness: `portal node show` (the image's HEALTHCHECK), which succeeds only when the node can carry
 *   traffic. An inlet that cannot leaves the Service's endpoints until it can again.
 * - startup and liveness: HEAD / on the status server, answered as long as the node's process runs and
 *   its event loop turns. A node that is DOWN because its controller or relay is away keeps running and
 *   recovers by itself; restarting it would not help, so liveness asks only whether the process hangs.
 *   No curl in the image: Node.js itself sends the request.
 * Pure.
 */
import type { IProbe } from 'kubernetes-models/v1/Probe';
import { isPort } from '../../shared/address.ts';

/** `portal node show` waits up to 5 s for the status server's answer; Node.js starts in about a second more. */
const nodeShowSeconds = 10;
/** HEAD / gives up after this; the probe's own limit is a little longer, so the script reports first. */
const statusAnswerMs = 4000;
const statusProbeSeconds = 5;

/** The node's readiness: UP, as `portal node show` says it. */
export const readinessProbe: IProbe = {
  exec: { command: ['portal', 'node', 'show'] },
  periodSeconds: 10,
  timeoutSeconds: nodeShowSeconds,
  failureThreshold: 3,
};

/**
 * A Node.js program that exits 0 when the status server on `port` answers HEAD / with 200, 1 otherwise.
 * The port is checked to be a port number before it becomes part of the program.
 */
export function statusServerCheck(port: number): string[] {
  if (!isPort(port))
    throw new Error(`http-server-port ${String(port)}: the probes need the status server on a fixed port`);
  const request = `fetch("http://127.0.0.1:${port}/", { method: "HEAD", signal: AbortSignal.timeout(${statusAnswerMs}) })`;
  return ['node', '-e', `${request}.then((r) => process.exit(r.status === 200 ? 0 : 1), () => process.exit(1))`];
}

/** Until the status server first answers: up to a minute for the process to start. */
export function startupProbe(statusPort: number): IProbe {
  return {
    exec: { command: statusServerCheck(statusPort) },
    periodSeconds: 2,
    timeoutSeconds: statusProbeSeconds,
    failureThreshold: 30,
  };
}

/** Once started: restarted after a minute without an answer. */
export function livenessProbe(statusPort: number): IProbe {
  return {
    exec: { command: statusServerCheck(statusPort) },
    periodSeconds: 20,
    timeoutSeconds: statusProbeSeconds,
    failureThreshold: 3,
  };
}
