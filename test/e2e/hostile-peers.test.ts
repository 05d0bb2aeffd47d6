/**
 * The attacks of the hardening review, performed against a real controller, relay and nodes while real
 * clients use the portal. Each asserts the bound it was fixed with, as a figure.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  connectFlood,
  enrolledAttacker,
  pingFlood,
  rogueOutlet,
  slowloris,
  unopenedStreams,
  type Attackers,
} from '../support/attack-scenarios.ts';
import { realClients, usageOf, watchUsage } from '../support/attackers.ts';
import type { PortalError } from '../../src/shared/errors.ts';
import { startEchoPortal, type EchoPortal } from '../support/echo-portal.ts';
import type { Running } from '../support/processes.ts';
import { startProject, type ProjectProcesses } from '../support/project-processes.ts';

describe('end to end: hostile peers cannot exhaust the controller, the relay or an outlet', function () {
  this.timeout(120_000);
  let project: ProjectProcesses;
  let echo: EchoPortal['echo'];
  let outlet: Running;
  let port: number;
  let attackers: Attackers;

  before(async () => {
    project = await startProject();
    ({ echo, outlet, port } = await startEchoPortal(project));
    attackers = {
      project,
      homes: await mkdtemp(join(tmpdir(), 'portal-attacker-')),
      relay: 'echo',
      inletAttribute: 'echo-inlet',
      outletAttribute: 'echo-outlet',
    };
  });

  after(async () => {
    await project?.close();
    await echo?.close();
    if (attackers) await rm(attackers.homes, { recursive: true, force: true });
  });

  const controllerPid = () => project.controller.process.child.pid as number;

  it(
    '1: flooding pings without reading the answers costs the controller bounded memory, ' +
      'with or without a certificate',
    async () => {
      const baseline = await usageOf(controllerPid());
      const peak = watchUsage(controllerPid());
      const clients = realClients(port);
      const { anonymous, member, adminLatencyMs } = await pingFlood(attackers);
      const load = await clients.stop();
      const top = await peak.stop();
      console.log(
        `      controller RSS ${baseline.rssMb} MB -> peak ${top.rssMb} MB; ` +
          `anonymous: ${anonymous.connections} connections, ${anonymous.linesSent} lines; ` +
          `member: ${member.linesSent} lines; admin answered in ${adminLatencyMs} ms; ` +
          `real clients ${load.attempts} with ${load.errors} errors, p99 ${load.p99Ms} ms`,
      );
      assert.ok(top.rssMb - baseline.rssMb < 64, `the controller grew by ${Math.round(top.rssMb - baseline.rssMb)} MB`);
      assert.ok(
        anonymous.connections > 4,
        'anonymous connections are closed after a few requests, so the flood had to reconnect',
      );
      assert.ok(adminLatencyMs < 2000, `the administrator was answered in ${adminLatencyMs} ms during the flood`);
      assert.equal(load.errors, 0);
    },
  );

  it(
    '4: 30,000 connect requests from a node whose attribute no outlet allows are refused at the relay; ' +
      'the outlet logs it and keeps its baseline',
    async () => {
      const outletPid = outlet.child.pid as number;
      const baseline = await usageOf(outletPid);
      const peak = watchUsage(outletPid);
      const clients = realClients(port);
      const flood = await connectFlood(attackers, 'stranger', 'stranger');
      await outlet.waitFor(
        new RegExp(`relay refused node ${flood.attacker} \\(attribute "stranger"; allow is "echo-inlet"\\)`),
        5000,
      );
      const load = await clients.stop();
      const top = await peak.stop();
      const after = await usageOf(outletPid);
      console.log(
        `      ${JSON.stringify(flood.codes)} in ${flood.seconds} s; outlet fds ${baseline.fds} ` +
          `-> peak ${top.fds} -> ${after.fds}, RSS ${baseline.rssMb} -> peak ${top.rssMb} MB; ` +
          `real clients ${load.attempts} with ${load.errors} errors, p99 ${load.p99Ms} ms`,
      );
      assert.deepEqual(flood.codes, { PEER_NOT_ALLOWED: 30_000 });
      assert.ok(top.fds - baseline.fds <= 8, `the outlet opened ${top.fds - baseline.fds} descriptors`);
      assert.ok(top.rssMb - baseline.rssMb < 32, `the outlet grew by ${Math.round(top.rssMb - baseline.rssMb)} MB`);
      assert.equal(load.errors, 0);
    },
  );

  it(
    '4: a node the outlet allows that asks for splices and never joins them is held to 16 pending; ' +
      'the outlet returns to its baseline',
    async () => {
      const { channel } = await enrolledAttacker(attackers, 'hoarder', ['--attribute', 'echo-inlet']);
      const outletPid = outlet.child.pid as number;
      const baseline = await usageOf(outletPid);
      const clients = realClients(port);
      const answers = await Promise.allSettled(
        Array.from({ length: 500 }, () =>
          channel.request('connect', { relay: 'echo', allow: attackers.outletAttribute }, 10_000),
        ),
      );
      channel.destroy();
      const granted = answers.filter((answer) => answer.status === 'fulfilled').length;
      const busy = answers.filter(
        (answer) => answer.status === 'rejected' && (answer.reason as PortalError).code === 'RELAY_BUSY',
      ).length;
      const during = await usageOf(outletPid);
      // The relay gives an unjoined splice 10 s; the outlet's halves close with it.
      let after = await usageOf(outletPid);
      for (
        const deadline = Date.now() + 20_000;
        after.fds > baseline.fds + 2 && Date.now() < deadline;
        after = await usageOf(outletPid)
      ) {
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      const load = await clients.stop();
      console.log(
        `      ${granted} granted, ${busy} RELAY_BUSY; outlet fds ${baseline.fds} -> ${during.fds} -> ${after.fds}; ` +
          `real clients ${load.attempts} with ${load.errors} errors, p99 ${load.p99Ms} ms`,
      );
      assert.equal(granted, 16);
      assert.equal(busy, 500 - 16);
      assert.ok(
        during.fds - baseline.fds <= 2 * 16 + 4,
        `the outlet held ${during.fds - baseline.fds} more descriptors`,
      );
      assert.ok(after.fds <= baseline.fds + 2, `back to ${after.fds} descriptors (baseline ${baseline.fds})`);
      assert.equal(load.errors, 0);
    },
  );

  it(
    '4: a node the outlet allows that opens warm streams and never uses them keeps at most 32 ' +
      'waiting at the outlet',
    async () => {
      const outletPid = outlet.child.pid as number;
      const baseline = await usageOf(outletPid);
      const clients = realClients(port);
      const attack = await unopenedStreams(attackers, 'idler', 80);
      const during = await usageOf(outletPid);
      attack.close();
      let after = await usageOf(outletPid);
      for (
        const deadline = Date.now() + 10_000;
        after.fds > baseline.fds + 2 && Date.now() < deadline;
        after = await usageOf(outletPid)
      ) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await outlet.waitFor(/closed warm streams beyond 32 waiting from node n[0-9a-f]+/, 5000);
      const load = await clients.stop();
      console.log(
        `      80 warm streams opened and left unused; the outlet kept ${during.fds - baseline.fds} more ` +
          `descriptors, ${after.fds - baseline.fds} after; real clients ${load.attempts} with ${load.errors} errors`,
      );
      assert.ok(during.fds - baseline.fds <= 32 + 4, `the outlet held ${during.fds - baseline.fds} more descriptors`);
      assert.ok(after.fds <= baseline.fds + 2, `back to ${after.fds} descriptors (baseline ${baseline.fds})`);
      assert.equal(load.errors, 0);
    },
  );

  it(
    '5: slow connections are cut at their deadline, held to 64 per source and 1024 in all, ' +
      'and members are served meanwhile',
    async () => {
      const baseline = await usageOf(controllerPid());
      const clients = realClients(port);
      let during = baseline;
      const slow = await slowloris(attackers, 15_000, async () => {
        during = await usageOf(controllerPid());
      });
      const load = await clients.stop();
      console.log(
        `      one source: ${slow.oneSourceClosedAtOnce} of 300 closed at once; ` +
          `1,200 more from 20 sources: ${slow.evicted} evicted; controller fds ${baseline.fds} -> ${during.fds}; ` +
          `admin answered in ${slow.adminLatencyMs} ms; all ${slow.closedInAll} of ${slow.total} closed after ` +
          `${slow.allClosedSeconds} s; real clients ${load.attempts} with ${load.errors} errors`,
      );
      assert.equal(slow.oneSourceClosedAtOnce, 300 - 64);
      assert.ok(slow.evicted >= 64 + 1200 - 1024, `${slow.evicted} evicted`);
      assert.ok(
        during.fds - baseline.fds <= 1024 + 16,
        `the controller held ${during.fds - baseline.fds} more descriptors`,
      );
      assert.ok(slow.adminLatencyMs < 2000, `the administrator was answered in ${slow.adminLatencyMs} ms`);
      assert.equal(slow.closedInAll, slow.total, 'every slow connection was closed by its deadline');
      assert.equal(load.errors, 0);
    },
  );

  it(
    '6: a member that registers the relay 100 times and answers no dial holds one registration and is taken out of ' +
      'the choice',
    async () => {
      const rogue = await rogueOutlet(attackers, 'rogue-outlet');
      // New client connections make the inlet ask for splices (warm streams), some of which reach the rogue.
      const results: boolean[] = [];
      for (let i = 0; i < 15; i += 1) {
        const load = realClients(port, 0);
        await new Promise((resolve) => setTimeout(resolve, 150));
        const done = await load.stop();
        results.push(done.errors === 0);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      // Then clients back to back: the rogue is out of the choice by now.
      const later = realClients(port, 10);
      await new Promise((resolve) => setTimeout(resolve, 3000));
      const load = await later.stop();
      rogue.stop();
      const dials = rogue.dials;
      console.log(
        `      rogue received ${dials} dials; ${results.filter(Boolean).length} of 15 client rounds without error; ` +
          `then ${load.attempts} clients with ${load.errors} errors, p99 ${load.p99Ms} ms`,
      );
      assert.deepEqual(
        results,
        Array.from({ length: 15 }, () => true),
      );
      assert.ok(dials <= 2, `the rogue was dialled ${dials} times before it was taken out of the choice`);
      const logged = project.controller.process.lines.filter((line) =>
        line.includes(`relay: ${rogue.nodeId} registered`),
      ).length;
      assert.equal(logged, 1, 'a hundred registrations of one name make one registration and one log line');
      assert.equal(load.errors, 0);
    },
  );
});
