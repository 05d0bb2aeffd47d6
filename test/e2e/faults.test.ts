import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { join } from 'node:path';
import { ready, startEchoPortal, timeUntilWorking, type EchoPortal } from '../support/echo-portal.ts';
import { nodeStatus, type Running } from '../support/processes.ts';
import { startProject, type ProjectProcesses } from '../support/project-processes.ts';
import { echoDigests, expectRefusal, roundTrip } from '../support/tcp.ts';
const heartbeat = { PORTAL_HEARTBEAT: '500ms' };

describe('end to end: faults and recovery', function () {
  this.timeout(120_000);
  let project: ProjectProcesses;
  let echo: EchoPortal['echo'];
  let outlet: Running;
  let inlet: Running;
  let port: number;
  let outletConfig: object;

  before(async () => {
    project = await startProject();
    ({ echo, outlet, inlet, port, outletConfig } = await startEchoPortal(project, heartbeat));
  });

  after(async () => {
    await project?.close();
    await echo?.close();
  });

  it('carries 64 MiB each way intact', async () => {
    const echoed = await echoDigests(port, 64 * 1024 * 1024);
    assert.equal(echoed.bytes, 64 * 1024 * 1024);
    assert.equal(echoed.received, echoed.sent);
  });

  it('closes a live connection whose outlet vanished instead of leaving it hanging', async () => {
    const socket = connect({ host: '127.0.0.1', port });
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write('hello');
    await new Promise<void>((resolve) => socket.once('data', () => resolve()));
    const closed = new Promise<number>((resolve) => {
      const started = Date.now();
      socket.once('close', () => resolve(Date.now() - started));
    });
    socket.on('error', () => undefined);
    await outlet.kill();
    const elapsed = await closed;
    assert.ok(elapsed < 3000, `closed after ${elapsed} ms`);
  });

  it('refuses clients cleanly while the outlet is away, and works again within 5 s of its return', async () => {
    const refused = await expectRefusal(port);
    assert.equal(refused.bytes, 0);
    outlet = await project.startNode('outlet', outletConfig, undefined, heartbeat);
    await outlet.waitFor(ready);
    const took = await timeUntilWorking(port, 5000);
    assert.ok(took < 5000, `working again after ${took} ms`);
    assert.equal((await nodeStatus(join(project.dir, 'inlet'))).status, 'up', 'the inlet kept listening throughout');
  });

  it('recovers when the controller goes away and comes back', async () => {
    await project.killController();
    await project.startController();
    const took = await timeUntilWorking(port, 5000);
    assert.ok(took < 5000, `working again after ${took} ms`);
    const answer = await roundTrip(port, randomBytes(1024 * 1024));
    assert.equal(answer.length, 1024 * 1024);
  });

  it('ends a session whose peer went silent (heartbeats), then recovers when it wakes', async () => {
    const socket = connect({ host: '127.0.0.1', port });
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write('before');
    await new Promise<void>((resolve) => socket.once('data', () => resolve()));
    socket.on('error', () => undefined);
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    outlet.child.kill('SIGSTOP');
    try {
      await closed;
    } finally {
      outlet.child.kill('SIGCONT');
    }
    const took = await timeUntilWorking(port, 5000);
    assert.ok(took < 5000, `working again after ${took} ms`);
  });

  it('does not flood the log while a peer is away', () => {
    const warnings = inlet.lines.filter((line) => line.includes(' WARN '));
    assert.ok(warnings.length < 20, `${warnings.length} warnings:\n${warnings.join('\n')}`);
  });
});
