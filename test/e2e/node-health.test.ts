import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ready } from '../support/echo-portal.ts';
import { freePort, nodeStatus, portal, statusWhen, type NodeShow, type Running } from '../support/processes.ts';
import { startProject, type ProjectProcesses } from '../support/project-processes.ts';
import { acceptsConnections, expectRefusal, roundTrip, startEchoServer } from '../support/tcp.ts';

/** The inlets' ports by portal name. */
const portsOf = (shown: NodeShow) =>
  Object.fromEntries(shown.inlets.map((inlet) => [inlet.name, Number(inlet.listening?.split(':').at(-1))]));

/** GET `path` on the status server of the node in `home`: its status code and JSON body. */
async function status(home: string, path: string): Promise<{ code: number; body: Record<string, unknown> }> {
  const { statusPort } = JSON.parse(await readFile(join(home, 'node', 'runtime.json'), 'utf8')) as {
    statusPort: number;
  };
  const answer = await fetch(`http://127.0.0.1:${statusPort}${path}`, { signal: AbortSignal.timeout(5000) });
  return { code: answer.status, body: (await answer.json()) as Record<string, unknown> };
}

const states = (shown: NodeShow) => shown.portals.map(({ kind, name, state }) => `${kind} ${name} ${state}`);

describe('end to end: health per portal, and a revoked node', function () {
  this.timeout(120_000);
  let project: ProjectProcesses;
  let good: Awaited<ReturnType<typeof startEchoServer>>;
  let deadPort: number;
  let outlet: Running;
  const home = (name: string) => join(project.dir, name);
  const adminHome = () => join(project.dir, 'admin');
  const inletPorts: Record<string, number> = {};

  before(async () => {
    project = await startProject();
    good = await startEchoServer();
    // Nothing listens there: the target of the portal "dead" refuses every connection.
    deadPort = await freePort();
    outlet = await project.startNode(
      'outlet',
      {
        'http-server-port': 0,
        'tcp-outlets': {
          good: { relay: 'good', to: `127.0.0.1:${good.port}`, allow: 'health-inlet' },
          dead: { relay: 'dead', to: `127.0.0.1:${deadPort}`, allow: 'health-inlet' },
        },
      },
      await project.ticket(['--attribute', 'health-outlet', '--relay', 'good', '--relay', 'dead']),
    );
    const inlet = await project.startNode(
      'inlet',
      {
        'http-server-port': 0,
        'tcp-inlets': {
          good: { from: '127.0.0.1:0', via: 'good', allow: 'health-outlet' },
          dead: { from: '127.0.0.1:0', via: 'dead', allow: 'health-outlet' },
        },
      },
      await project.ticket(['--attribute', 'health-inlet']),
    );
    await Promise.all([outlet.waitFor(ready), inlet.waitFor(ready)]);
    Object.assign(inletPorts, portsOf(await nodeStatus(home('inlet'))));
  });

  after(async () => {
    await project?.close();
    await good?.close();
  });

  it('one dead target takes down its own portal only: both nodes are DEGRADED, live and ready', async () => {
    for (let client = 0; client < 3; client += 1)
      assert.equal((await expectRefusal(inletPorts.dead as number)).bytes, 0);
    // On a loaded machine the good portal may show a passing warning of its own (a relay attempt that
    // timed out marks that relay for 5 s): what is asserted is the state once such a warning has passed.
    const settled = (expected: readonly string[]) => (node: NodeShow) =>
      node.status === 'degraded' && states(node).join('\n') === expected.join('\n');
    const shown = await statusWhen(home('outlet'), settled(['outlet good up', 'outlet dead down']), 20_000);
    assert.deepEqual(states(shown), ['outlet good up', 'outlet dead down']);
    assert.match(
      shown.portals[1]?.problems.join('\n') ?? '',
      new RegExp(`^the target 127\\.0\\.0\\.1:${deadPort} refused its last 3 connections \\(ECONNREFUSED\\)`),
    );
    assert.deepEqual(shown.portals[0]?.problems, []);
    const inletShown = await statusWhen(home('inlet'), settled(['inlet good up', 'inlet dead down']), 20_000);
    assert.deepEqual(states(inletShown), ['inlet good up', 'inlet dead down']);
    assert.match(
      inletShown.portals[1]?.problems.join('\n') ?? '',
      /the outlet refused its inlet's last 3 clients \(the outlet cannot reach its target\)/,
    );
    // The healthy portal carries bytes all along.
    assert.equal((await roundTrip(inletPorts.good as number, Buffer.from('still here'))).toString(), 'still here');

    for (const [name, kind] of [
      ['outlet', 'outlet'],
      ['inlet', 'inlet'],
    ] as const) {
      assert.deepEqual(await status(home(name), '/healthz'), {
        code: 200,
        body: { status: 'serving', process: 'node', state: 'degraded' },
      });
      assert.deepEqual(await status(home(name), '/readyz'), {
        code: 200,
        body: {
          status: 'ready',
          process: 'node',
          state: 'degraded',
          portals: { [`${kind} good`]: 'up', [`${kind} dead`]: 'down' },
        },
      });
      // The image's health check.
      const healthCheck = await portal(home(name), ['node', 'show', '--ready']);
      assert.equal(healthCheck.code, 0, healthCheck.stderr);
      assert.match(
        healthCheck.stdout,
        new RegExp(`^The node is DEGRADED: 1 of 2 portals cannot carry traffic \\(${kind} dead\\)\n`),
      );
      const json = await portal(home(name), ['node', 'show', '--json']);
      assert.equal(json.code, 1);
      assert.equal((JSON.parse(json.stdout) as NodeShow).status, 'degraded');
    }
    const show = await portal(home('outlet'), ['node', 'show']);
    assert.equal(show.code, 1);
    assert.match(show.stdout, /^The node is DEGRADED: 1 of 2 portals cannot carry traffic \(outlet dead\)$/m);
    assert.match(show.stdout, /^ {2}problem: outlet dead: the target 127\.0\.0\.1:\d+ refused its last 3 connections/m);
    assert.match(
      show.stderr,
      new RegExp(
        `^portal: The node is DEGRADED: outlet dead: the target 127\\.0\\.0\\.1:${deadPort} refused its last 3 ` +
          'connections \\(ECONNREFUSED\\), last [^;]+; outlet good carries traffic; the node runs \\(pid \\d+\\)',
      ),
    );
  });

  it('a revoked node logs it once, with the ticket to issue, stops retrying and says REVOKED', async () => {
    const leaving = await project.startNode(
      'leaving',
      { 'http-server-port': 0, 'tcp-inlet': { from: '127.0.0.1:0', via: 'good', allow: 'health-outlet' } },
      await project.ticket(['--attribute', 'health-inlet']),
      // Fast heartbeats: a node that retried would log many times within the seconds counted below.
      { PORTAL_HEARTBEAT: '500ms' },
    );
    await leaving.waitFor(ready);
    const shown = await nodeStatus(home('leaving'));
    const port = Number(shown.inlets[0]?.listening?.split(':').at(-1));
    const { node_id: nodeId } = shown.identity;
    const revoked = await portal(adminHome(), ['project', 'revoke', nodeId]);
    assert.equal(revoked.code, 0, revoked.stderr);
    const line = await leaving.waitFor(/ was revoked from project /, 15_000);
    assert.match(
      line,
      new RegExp(
        `ERROR this node ${nodeId} was revoked from project ${shown.project.id} \\(the controller refuses it a ` +
          'certificate\\); it carries no traffic and retries nothing\\. To serve here again, an administrator ' +
          'issues a new ticket \\(portal project ticket --attribute health-inlet\\); then run portal reset --yes',
      ),
    );
    // The condition under test is silence over time: 6 s is a dozen heartbeats and reconnection attempts.
    const logged = leaving.lines.length;
    await new Promise((resolve) => setTimeout(resolve, 6000));
    assert.deepEqual(leaving.lines.slice(logged), [], 'nothing logged after the revocation line');
    assert.equal(leaving.lines.filter((logged) => logged.includes(' was revoked from project ')).length, 1);

    assert.equal(await acceptsConnections('127.0.0.1', port), false, 'the inlet no longer takes clients');
    const show = await portal(home('leaving'), ['node', 'show']);
    assert.equal(show.code, 1);
    assert.equal(show.stdout, '');
    assert.match(show.stderr, new RegExp(`^portal: The node is REVOKED: this node ${nodeId} was revoked from project`));
    assert.match(show.stderr, /it runs \(pid \d+\) and tries nothing more/);
    assert.equal((await portal(home('leaving'), ['node', 'show', '--ready'])).code, 1);
    const readiness = await status(home('leaving'), '/readyz');
    assert.equal(readiness.code, 503);
    assert.equal(readiness.body.state, 'revoked');
    assert.deepEqual(readiness.body.portals, { 'inlet good': 'down' });
    assert.deepEqual(await status(home('leaving'), '/healthz'), {
      code: 200,
      body: { status: 'serving', process: 'node', state: 'revoked' },
    });

    const reset = await portal(home('leaving'), ['reset', '--yes']);
    assert.equal(reset.code, 0, reset.stderr);
    assert.match(
      reset.stdout,
      new RegExp(
        `^The node ${nodeId} of project ${shown.project.id} \\(controller [^)]+\\) was revoked from its project at `,
        'm',
      ),
    );
    assert.doesNotMatch(reset.stdout, /portal project revoke/);
  });

  it('with no portal serving, the node is DOWN: not ready, still live', async () => {
    await good.close();
    for (let client = 0; client < 3; client += 1)
      assert.equal((await expectRefusal(inletPorts.good as number)).bytes, 0);
    const shown = await statusWhen(home('outlet'), (node) => node.status === 'down');
    assert.deepEqual(states(shown), ['outlet good down', 'outlet dead down']);
    const readiness = await status(home('outlet'), '/readyz');
    assert.equal(readiness.code, 503);
    assert.equal(readiness.body.state, 'down');
    assert.match(
      String(readiness.body.reason),
      /^outlet good: the target 127\.0\.0\.1:\d+ refused .*; outlet dead: the target/,
    );
    assert.equal((await status(home('outlet'), '/healthz')).code, 200);
    const healthCheck = await portal(home('outlet'), ['node', 'show', '--ready']);
    assert.equal(healthCheck.code, 1);
    assert.match(healthCheck.stderr, /^portal: The node is DOWN: outlet good: the target/);
  });

  it('portal reset --yes on an enrolled node names the command that revokes the identity it leaves', async () => {
    const shown = await nodeStatus(home('outlet'));
    const { node_id: nodeId } = shown.identity;
    const reset = await portal(home('outlet'), ['reset', '--yes']);
    assert.equal(reset.code, 0, reset.stderr);
    assert.match(reset.stdout, /^Stopped the node \(process \d+\)\.$/m);
    const hint =
      `The node ${nodeId} of project ${shown.project.id} (controller ${shown.project.controller}) ` +
      `stays an active member until an administrator runs: portal project revoke ${nodeId}`;
    assert.ok(reset.stdout.split('\n').includes(hint), reset.stdout);
    const members = await portal(adminHome(), ['project', 'members', '--json']);
    const member = members.stdout
      .trim()
      .split('\n')
      .map((text) => JSON.parse(text) as { id: string; revoked: unknown })
      .find((entry) => entry.id === nodeId);
    assert.equal(member?.revoked, null, 'still an active member after the reset');
    // The command it names does what it says.
    const command = hint.slice(hint.indexOf('portal project revoke'));
    const revoked = await portal(adminHome(), command.split(' ').slice(1));
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.match(revoked.stdout, /^Revoked /);
  });
});
