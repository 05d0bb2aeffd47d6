/**
 * How the kubelet watches the node. The status server listens on 127.0.0.1 only, so an httpGet or
 * tcpSocket probe, which the kubelet sends to the pod's own address, would never reach it: every probe
 * runs inside the container, as a short Node.js program (the image has no curl) that asks the status
 * server.
 *
 * - readiness: GET /readyz answers 200 while the node serves at least one of its portals (up or
 *   degraded: one dead target takes its own portal down, not the others): what `portal node show
 *   --ready` checks (the image's HEALTHCHECK), at a quarter of its cost, since loading the whole runner
 *   at every probe took ~0.7 s of CPU against ~0.17 s here. A node that serves none leaves the
 *   Service's endpoints; the probe prints why, which `kubectl describe pod` shows.
 * - startup and liveness: GET /healthz answers 200, as long as the node's process runs and its event
 *   loop turns. A node that is down because its controller or relay is away keeps running and recovers
 *   by itself; restarting it would not help, so liveness asks only whether the process hangs.
 * Pure.
 */
import type { IProbe } from 'kubernetes-models/v1/Probe';
import { isPort } from '../../shared/address.ts';

/** A request gives up after this; the probe's own limit is a little longer, so the program says why first. */
const statusAnswerMs = 4000;
const probeSeconds = 5;

/** The start of a program that asks the status server on `port` and exits 1 on any error or silence. */
function request(port: number, method: 'HEAD' | 'GET', path: string): string {
  if (!isPort(port))
    throw new Error(`http-server-port ${String(port)}: the probes need the status server on a fixed port`);
  const options = `host: "127.0.0.1", port: ${port}, method: "${method}", path: "${path}", timeout: ${statusAnswerMs}`;
  return `require("node:http").request({ ${options} }, (response) => {`;
}

const onFailure = '}).on("error", () => process.exit(1)).on("timeout", () => process.exit(1)).end();';

/** A program that exits 0 when the status server answers GET /healthz with 200, 1 otherwise. */
export function statusAnswers(port: number): string[] {
  return [
    'node',
    '-e',
    `${request(port, 'GET', '/healthz')} process.exit(response.statusCode === 200 ? 0 : 1); ${onFailure}`,
  ];
}

/**
 * A program that exits 0 when the status server answers HEAD / with 200: the process runs and its event
 * loop turns, whatever its health says (a controller's /healthz also asks its database, a relay's its
 * controller, neither of which a restart brings back).
 */
export function processAnswers(port: number): string[] {
  return [
    'node',
    '-e',
    `${request(port, 'HEAD', '/')} process.exit(response.statusCode === 200 ? 0 : 1); ${onFailure}`,
  ];
}

/**
 * A program that exits 0 when GET /readyz answers 200 (the node serves at least one of its portals);
 * otherwise it prints the node's state and why (NodeReadiness of src/node/status-server.ts), and exits 1.
 */
export function nodeIsReady(port: number): string[] {
  const verdict = [
    'if (response.statusCode === 200) process.exit(0);',
    'let body = ""; response.setEncoding("utf8"); response.on("data", (chunk) => (body += chunk));',
    'response.on("end", () => { try { const ready = JSON.parse(body);',
    'console.log(`The node is ${ready.state}: ${ready.reason}`);',
    '} catch { console.log("the status server gave no readiness"); } process.exit(1); });',
  ].join(' ');
  return ['node', '-e', `${request(port, 'GET', '/readyz')} ${verdict} ${onFailure}`];
}

/** Out of the Service while the node serves none of its portals. */
export function readinessProbe(statusPort: number): IProbe {
  return {
    exec: { command: nodeIsReady(statusPort) },
    periodSeconds: 10,
    timeoutSeconds: probeSeconds,
    failureThreshold: 3,
  };
}

/**
 * Out of its Service while GET /healthz does not answer 200, asked by the kubelet itself: for a status
 * server on the pod's address (a controller's or a relay's), which `port` names.
 */
export function healthzReadinessProbe(port: string | number): IProbe {
  return { httpGet: { path: '/healthz', port }, periodSeconds: 10, timeoutSeconds: probeSeconds, failureThreshold: 3 };
}

/** Until the status server first answers: up to a minute for the process to start. */
export function startupProbe(statusPort: number, answers: (port: number) => string[] = statusAnswers): IProbe {
  return {
    exec: { command: answers(statusPort) },
    periodSeconds: 2,
    timeoutSeconds: probeSeconds,
    failureThreshold: 30,
  };
}

/** Once started: restarted after a minute without an answer. */
export function livenessProbe(statusPort: number, answers: (port: number) => string[] = statusAnswers): IProbe {
  return {
    exec: { command: answers(statusPort) },
    periodSeconds: 20,
    timeoutSeconds: probeSeconds,
    failureThreshold: 3,
  };
}
