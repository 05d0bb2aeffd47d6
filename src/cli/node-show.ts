/**
 * `portal node show`: whether the local node is UP, DEGRADED, DOWN or REVOKED, read from its status
 * server. It loads none of the node: health checks run it every few seconds.
 */
import { runningHolder } from '../node/home-claim.ts';
import { portalLabel } from '../node/portals.ts';
import { isReady, servingCount, type PortalHealth } from '../node/portal-health.ts';
import { runtimeFile } from '../node/runtime-file.ts';
import type { NodeShow, NodeShowRunning } from '../node/show.ts';
import { RuntimeFailure } from '../shared/errors.ts';
import { plural } from '../shared/plural.ts';
import { product } from '../shared/product.ts';
import { portalHome } from './home.ts';
import { statusAnswerMs } from './limits.ts';
import { readNodeShow } from './status-request.ts';

export interface NodeShowOptions {
  readonly ready?: boolean;
  readonly json?: boolean;
}

export async function showNode(options: NodeShowOptions): Promise<void> {
  const home = portalHome();
  // A runtime file left by a process that is gone (a crash, a kill -9) says nothing runs.
  const runtime = await runningHolder(runtimeFile(home));
  if (!runtime) throw notRunningFailure(home);
  if (runtime.statusPort === undefined)
    throw down(
      `it is starting (pid ${runtime.pid}) and its status server does not listen yet`,
      'run portal node show again in a moment, or check its log',
    );
  let shown: NodeShow;
  try {
    shown = await readNodeShow(runtime.statusPort, statusAnswerMs);
  } catch (error) {
    throw down(
      `its status server on 127.0.0.1:${runtime.statusPort} did not answer ` +
        `(${(error as Error).message}; pid ${runtime.pid})`,
      'check its log; a node that hangs can be stopped with kill',
    );
  }
  if (options.json) console.log(JSON.stringify(shown, null, 2));
  else if ('name' in shown && (shown.status === 'up' || shown.status === 'degraded'))
    console.log(describeNode(shown).join('\n'));
  const failure = verdict(shown, runtime.pid, options.ready === true);
  if (failure) throw failure;
}

/**
 * Why `node show` exits 1, or nothing when it exits 0: UP, or DEGRADED with --ready (the node serves
 * some of its portals). The node runs: what it says is the reason, and its log has the details.
 */
export function verdict(shown: NodeShow, pid: number, ready: boolean): RuntimeFailure | undefined {
  if (shown.status === 'up' || (ready && isReady(shown.status))) return undefined;
  const running = `the node runs (pid ${pid}); its log says more about each problem`;
  const problems = shown.problems.join('; ');
  if (!('name' in shown))
    return down(problems ? `${problems} (it is ${shown.status})` : `it is ${shown.status}`, running);
  switch (shown.status) {
    case 'degraded': {
      const serving = shown.portals.filter((portal) => portal.state !== 'down').map(portalName);
      return new RuntimeFailure('NODE_DEGRADED', `The node is DEGRADED: ${problems}`, {
        hint: `${serving.join(', ')} ${serving.length === 1 ? 'carries' : 'carry'} traffic; ${running}`,
      });
    }
    case 'revoked':
      return new RuntimeFailure('NODE_REVOKED', `The node is REVOKED: ${problems}`, {
        hint: `it runs (pid ${pid}) and tries nothing more; portal reset --yes stops it and removes its identity`,
      });
    case 'down':
      return down(problems, running);
    default:
      // Never up since it started: say so beside why, not instead of it.
      return down(`${problems} (not up yet, ${shown.uptime_seconds} s after its start)`, running);
  }
}

const portalName = (portal: PortalHealth) =>
  portalLabel(portal.kind, { name: portal.name, pointer: portal.configured_at });

/**
 * The lines of `node show` for a node that is up or degraded: which figures are totals since its start,
 * which are open now, and what stops the portals that are down. A portal given by name is printed with
 * it ("outlet postgres:"); those of the single forms as they always were ("outlet:").
 */
export function describeNode(shown: NodeShowRunning): string[] {
  const label = (kind: 'outlet' | 'inlet', part: { name: string; configured_at: string }) =>
    portalLabel(kind, { name: part.name, pointer: part.configured_at });
  const { serving, total } = servingCount(shown.portals ?? []);
  const downPortals = (shown.portals ?? []).filter((portal) => portal.state === 'down').map(portalName);
  return [
    shown.status === 'up'
      ? product.nodeUpLine
      : `The node is ${shown.status.toUpperCase()}: ${total - serving} of ${plural(total, 'portal')} ` +
        `cannot carry traffic (${downPortals.join(', ')})`,
    `  node ${shown.name} in project ${shown.project.id}, controller ${shown.project.controller} (${shown.controller})`,
    `  certificate valid until ${shown.identity.valid_until}`,
    ...shown.outlets.map(
      (o) =>
        `  ${label('outlet', o)}: relay ${o.relay} -> ${o.to}, ${o.status}, ` +
        `registered on ${plural(o.registered_on.length, 'relay')}, ` +
        `${plural(o.sessions, 'session')} open (${o.sessions_direct} direct), ` +
        `${plural(o.connections_total, 'connection')} so far, ${o.connections_active} open now`,
    ),
    ...shown.relays.map((r) => `  relay ${r.id} at ${r.address}: ${r.status}`),
    ...shown.inlets.flatMap((i) => [
      `  ${label('inlet', i)}: ${i.listening ?? i.from} via ${i.via}, session ${i.session}` +
        `${i.path ? ` (${i.path})` : ''}, ` +
        `${plural(i.connections_total, 'connection')} so far (${i.connections_direct} direct, ` +
        `${i.connections_relayed} relayed), ${i.connections_active} open now, ${i.connections_refused} refused`,
      // A pool: each of its outlets.
      ...(i.outlets.length > 1
        ? i.outlets.map(
            (member) =>
              `    pool outlet ${member.outlet ?? '(not known yet)'}: session ${member.session}` +
              `${member.path ? ` (${member.path})` : ''}, ${member.clients} open now`,
          )
        : []),
    ]),
    ...(shown.status === 'up' ? [] : shown.problems.map((problem) => `  problem: ${problem}`)),
    ...(shown.warnings ?? []).map((warning) => `  warning: ${warning}`),
  ];
}

const notRunning = 'start it with portal node create --foreground, or check its log';

/** What `node show` says when no node runs with `home`. */
export const notRunningFailure = (home: string) => down(`no node runs with PORTAL_HOME=${home}`, notRunning);

function down(reason: string, hint: string): RuntimeFailure {
  return new RuntimeFailure('NODE_DOWN', `The node is DOWN: ${reason}`, { hint });
}
