/**
 * Renewal keeps the direct path: with 6 s certificates (a renewal every 3 s) the session stays direct
 * for a minute, sampled from /metrics and /show every 250 ms. And a transfer on the direct path
 * survives every relay of the project killed under it, the controller's included: in a project of
 * its own with certificates of the default life, since with the controller gone nothing renews, and a
 * session ends at its peer certificate's end (test/node/session-expiry.test.ts).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { connect } from 'node:net';
import { join } from 'node:path';
import { startEchoPortal, type EchoPortal } from '../support/echo-portal.ts';
import { metricsOf, newConnections, sample } from '../support/node-checks.ts';
import { nodeStatus, statusWhen } from '../support/processes.ts';
import { startProject, type ProjectProcesses } from '../support/project-processes.ts';
import { startRelay, type RelayProcess } from '../support/relay-processes.ts';
import { sendPieces } from '../support/tcp.ts';

const heartbeat = { PORTAL_HEARTBEAT: '500ms' };
const MiB = 1024 * 1024;

describe('end to end: renewal keeps the direct path', function () {
  this.timeout(300_000);
  let project: ProjectProcesses;
  let portal: EchoPortal;
  let relay: RelayProcess;
  const inletHome = () => join(project.dir, 'inlet');

  before(async () => {
    // 6 s certificates: nodes renew every 3 s. The controller's own relay runs in its process.
    project = await startProject({ controllerFlags: ['--credential-lifetime', '6s'] });
    relay = await startRelay(project, 'relay');
    portal = await startEchoPortal(project, heartbeat);
  });

  after(async () => {
    await project?.close();
    await relay?.process.stop();
    await portal?.echo.close();
  });

  it('stays direct for 60 s of 6 s certificates: no relayed session in any /metrics sample every 250 ms', async () => {
    await statusWhen(inletHome(), (shown) => shown.inlets[0]?.path === 'direct');
    const renewedBefore = portal.inlet.lines.filter((line) => line.includes("renewed this node's certificate")).length;
    const problems: string[] = [];
    let samples = 0;
    let peakDirect = 0;
    const started = Date.now();
    const until = started + 60_000;
    while (Date.now() < until) {
      const [metrics, shown] = await Promise.all([metricsOf(inletHome()), nodeStatus(inletHome())]);
      const relayed = sample(metrics, 'portal_sessions_open', 'part="inlet",path="relay"');
      const direct = sample(metrics, 'portal_sessions_open', 'part="inlet",path="direct"');
      peakDirect = Math.max(peakDirect, direct);
      samples += 1;
      if (relayed !== 0 || direct < 1 || shown.inlets[0]?.path !== 'direct') {
        problems.push(
          `at ${60_000 - (until - Date.now())} ms: relay ${relayed}, direct ${direct}, path ${shown.inlets[0]?.path}`,
        );
      }
      // Every 250 ms from the start, however long a sample took on a loaded machine.
      const nextSample = started + samples * 250;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, nextSample - Date.now())));
    }
    const renewals =
      portal.inlet.lines.filter((line) => line.includes("renewed this node's certificate")).length - renewedBefore;
    const outletRenewals = portal.outlet.lines.filter((line) =>
      line.includes("renewed this node's certificate"),
    ).length;
    const shown = await nodeStatus(inletHome());
    console.log(
      `      ${samples} samples over 60 s, ${problems.length} not direct; ` +
        `the inlet renewed ${renewals} times (outlet ${outletRenewals} in all); ` +
        `direct sessions at most ${peakDirect} at once; connections relayed ${shown.inlets[0]?.connections_relayed}`,
    );
    assert.deepEqual(problems.slice(0, 20), []);
    assert.ok(samples >= 200, `${samples} samples`);
    assert.ok(renewals >= 15, `the inlet renewed ${renewals} times in 60 s`);
    assert.equal(shown.inlets[0]?.connections_relayed, 0);
  });
});

describe('end to end: the direct path without any relay or the controller', function () {
  this.timeout(300_000);
  let project: ProjectProcesses;
  let portal: EchoPortal;
  let relay: RelayProcess;
  const inletHome = () => join(project.dir, 'inlet');

  before(async () => {
    project = await startProject();
    relay = await startRelay(project, 'relay');
    portal = await startEchoPortal(project, heartbeat);
    await statusWhen(inletHome(), (shown) => shown.inlets[0]?.path === 'direct');
  });

  after(async () => {
    await project?.close();
    await relay?.process.stop();
    await portal?.echo.close();
  });

  it(
    'carries 256 MiB each way intact on the direct path while every relay is SIGKILLed ' +
      '(the standalone one and the controller with its own)',
    async () => {
      const size = 256 * MiB;
      const socket = connect({ host: '127.0.0.1', port: portal.port, allowHalfOpen: true });
      // Both ways hashed as the bytes pass (sendPieces), not kept.
      const received = createHash('sha256');
      let length = 0;
      let killed: Promise<void> | undefined;
      const done = new Promise<void>((resolve, reject) => {
        socket.on('data', (chunk: Buffer) => {
          received.update(chunk);
          length += chunk.length;
          if (!killed && length >= 16 * MiB)
            killed = Promise.all([relay.process.kill(), project.killController()]).then(() => undefined);
        });
        socket.once('end', () => resolve());
        socket.once('error', reject);
      });
      const [sent] = await Promise.all([sendPieces(socket, size), done]);
      socket.destroy();
      await killed;
      const stillSending = length;
      assert.ok(killed, 'the relays were killed during the transfer');
      assert.equal(relay.process.child.signalCode, 'SIGKILL');
      assert.equal(project.controller.process.child.signalCode, 'SIGKILL');
      assert.equal(stillSending, size);
      assert.equal(received.digest('hex'), sent);
      const shown = await nodeStatus(inletHome());
      assert.equal(shown.inlets[0]?.path, 'direct');
      assert.equal(
        await newConnections(portal.port, 20),
        0,
        'new connections on the direct path with every relay gone',
      );
      // Back for the cleanup, as an operator would bring it back.
      await project.startController();
    },
  );
});
