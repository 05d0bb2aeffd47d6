/**
 * The attacks of the hardening review, performed against a real controller, relay and nodes while real
 * clients use the portal. Each asserts the bound it was fixed with, as a figure.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAdministrator } from '../../src/cli/administrator.ts';
import { enrollWithTicket } from '../../src/node/enrollment.ts';
import type { PortalError } from '../../src/shared/errors.ts';
import { ControlChannel } from '../../src/wire/control-channel.ts';
import { floodPings, realClients, slowSplices, usageOf, watchUsage } from '../support/attackers.ts';
import { inletPort, type Running } from '../support/processes.ts';
import { startProject, type ProjectProcesses } from '../support/project-processes.ts';
import { startEchoServer } from '../support/tcp.ts';

const ready = /Portal node setup completed successfully/;

describe('end to end: hostile peers cannot exhaust the controller, the relay or an outlet', function () {
  this.timeout(120_000);
  let project: ProjectProcesses;
  let echo: Awaited<ReturnType<typeof startEchoServer>>;
  let outlet: Running;
  let inlet: Running;
  let port: number;
  let attackerHomes: string;

  before(async () => {
    echo = await startEchoServer();
    project = await startProject();
    outlet = await project.startNode('outlet', { 'http-server-port': 0, relay: 'app', 'tcp-outlet': { to: `127.0.0.1:${echo.port}`, allow: 'app-inlet' } }, await project.ticket(['--attribute', 'app-outlet', '--relay', 'app']));
    inlet = await project.startNode('inlet', { 'http-server-port': 0, 'tcp-inlet': { from: '127.0.0.1:0', via: 'app', allow: 'app-outlet' } }, await project.ticket(['--attribute', 'app-inlet']));
    await Promise.all([outlet.waitFor(ready), inlet.waitFor(ready)]);
    port = await inletPort(join(project.dir, 'inlet'));
    attackerHomes = await mkdtemp(join(tmpdir(), 'portal-attacker-'));
  });

  after(async () => {
    await project?.close();
    await echo?.close();
    if (attackerHomes) await rm(attackerHomes, { recursive: true, force: true });
  });

  const controllerPid = () => project.controller.process.child.pid as number;
  const admin = () => loadAdministrator(join(project.dir, 'admin'));

  /** A node enrolled in this project with the given ticket flags, as an attacker would hold one. */
  async function enrolledAttacker(name: string, flags: string[]) {
    const identity = await enrollWithTicket(join(attackerHomes, name), await project.ticket(flags));
    const channel = await ControlChannel.open(identity.record, { key: identity.privateKey, certificate: identity.certificate });
    return { identity, channel };
  }

  /** Milliseconds the administrator waits for `project show` on a fresh connection. */
  async function adminLatency(): Promise<number> {
    const { record, privateKey, certificate } = await admin();
    const started = performance.now();
    const channel = await ControlChannel.open(record, { key: privateKey, certificate });
    try {
      await channel.request('project', {}, 5000);
    } finally {
      channel.destroy();
    }
    return performance.now() - started;
  }

  it('1: flooding pings without reading the answers costs the controller bounded memory, with or without a certificate', async () => {
    const baseline = await usageOf(controllerPid());
    const peak = watchUsage(controllerPid());
    const clients = realClients(port);
    const { privateKey, certificate } = await admin();
    const floods = Promise.all([floodPings(project.controller.address, 5000, undefined, 4), floodPings(project.controller.address, 5000, { key: privateKey, certificate }, 2)]);
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const latency = await adminLatency();
    const [anonymous, member] = await floods;
    const load = await clients.stop();
    const top = await peak.stop();
    console.log(
      `      controller RSS ${baseline.rssMb} MB -> peak ${top.rssMb} MB; anonymous: ${anonymous.connections} connections, ${anonymous.linesSent} lines; member: ${member.linesSent} lines; admin answered in ${Math.round(latency)} ms; real clients ${load.attempts} with ${load.errors} errors, p99 ${load.p99Ms} ms`,
    );
    assert.ok(top.rssMb - baseline.rssMb < 64, `the controller grew by ${Math.round(top.rssMb - baseline.rssMb)} MB`);
    assert.ok(anonymous.connections > 4, 'anonymous connections are closed after a few requests, so the flood had to reconnect');
    assert.ok(latency < 2000, `the administrator was answered in ${Math.round(latency)} ms during the flood`);
    assert.equal(load.errors, 0);
  });

  it('4: 30,000 connect requests from a node whose attribute no outlet allows are refused at the relay; the outlet logs it and keeps its baseline', async () => {
    const { identity, channel } = await enrolledAttacker('stranger', ['--attribute', 'stranger']);
    const outletPid = outlet.child.pid as number;
    const baseline = await usageOf(outletPid);
    const peak = watchUsage(outletPid);
    const clients = realClients(port);
    const codes = new Map<string, number>();
    const started = performance.now();
    try {
      for (let sent = 0; sent < 30_000; sent += 1000) {
        const answers = await Promise.allSettled(Array.from({ length: 1000 }, () => channel.request('connect', { relay: 'app' }, 30_000)));
        for (const answer of answers) {
          const code = answer.status === 'fulfilled' ? 'GRANTED' : ((answer.reason as PortalError).code ?? 'ERROR');
          codes.set(code, (codes.get(code) ?? 0) + 1);
        }
      }
    } finally {
      channel.destroy();
    }
    const seconds = (performance.now() - started) / 1000;
    await outlet.waitFor(new RegExp(`relay refused node ${identity.record.nodeId} \\(attribute "stranger"; allow is "app-inlet"\\)`), 5000);
    const load = await clients.stop();
    const top = await peak.stop();
    const after = await usageOf(outletPid);
    console.log(
      `      ${[...codes].map(([code, n]) => `${n} ${code}`).join(', ')} in ${seconds.toFixed(1)} s; outlet fds ${baseline.fds} -> peak ${top.fds} -> ${after.fds}, RSS ${baseline.rssMb} -> peak ${top.rssMb} MB; real clients ${load.attempts} with ${load.errors} errors, p99 ${load.p99Ms} ms`,
    );
    assert.deepEqual([...codes], [['PEER_NOT_ALLOWED', 30_000]]);
    assert.ok(top.fds - baseline.fds <= 8, `the outlet opened ${top.fds - baseline.fds} descriptors`);
    assert.ok(top.rssMb - baseline.rssMb < 32, `the outlet grew by ${Math.round(top.rssMb - baseline.rssMb)} MB`);
    assert.equal(load.errors, 0);
  });

  it('4: a node the outlet allows that asks for splices and never joins them is held to 16 pending; the outlet returns to its baseline', async () => {
    const { channel } = await enrolledAttacker('hoarder', ['--attribute', 'app-inlet']);
    const outletPid = outlet.child.pid as number;
    const baseline = await usageOf(outletPid);
    const clients = realClients(port);
    const answers = await Promise.allSettled(Array.from({ length: 500 }, () => channel.request('connect', { relay: 'app' }, 10_000)));
    channel.destroy();
    const granted = answers.filter((answer) => answer.status === 'fulfilled').length;
    const busy = answers.filter((answer) => answer.status === 'rejected' && (answer.reason as PortalError).code === 'RELAY_BUSY').length;
    const during = await usageOf(outletPid);
    // The relay gives an unjoined splice 10 s; the outlet's halves close with it.
    let after = await usageOf(outletPid);
    for (const deadline = Date.now() + 20_000; after.fds > baseline.fds + 2 && Date.now() < deadline; after = await usageOf(outletPid)) {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const load = await clients.stop();
    console.log(`      ${granted} granted, ${busy} RELAY_BUSY; outlet fds ${baseline.fds} -> ${during.fds} -> ${after.fds}; real clients ${load.attempts} with ${load.errors} errors, p99 ${load.p99Ms} ms`);
    assert.equal(granted, 16);
    assert.equal(busy, 500 - 16);
    assert.ok(during.fds - baseline.fds <= 2 * 16 + 4, `the outlet held ${during.fds - baseline.fds} more descriptors`);
    assert.ok(after.fds <= baseline.fds + 2, `back to ${after.fds} descriptors (baseline ${baseline.fds})`);
    assert.equal(load.errors, 0);
  });

  it('5: slow connections are cut at their deadline, held to 64 per source and 1024 in all, and members are served meanwhile', async () => {
    const baseline = await usageOf(controllerPid());
    const clients = realClients(port);
    const started = Date.now();
    // One source opens 300: all but 64 are closed at once.
    const oneSource = await slowSplices(project.controller.address, '127.0.0.2', 300);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const closedAtOnce = oneSource.closed();
    // Twenty more sources open 60 each: 64 + 1200 exceeds the 1024 in all, so the oldest make room.
    const many = await Promise.all(Array.from({ length: 20 }, (_, i) => slowSplices(project.controller.address, `127.0.1.${i + 1}`, 60)));
    const during = await usageOf(controllerPid());
    const latency = await adminLatency();
    const evicted = oneSource.closed() - closedAtOnce + many.reduce((sum, slow) => sum + slow.closed(), 0);
    // Every slow connection is gone once the deadline (10 s) has passed.
    const everyone = [oneSource, ...many];
    const total = everyone.reduce((sum, slow) => sum + slow.opened, 0);
    while (everyone.reduce((sum, slow) => sum + slow.closed(), 0) < total && Date.now() - started < 15_000) await new Promise((resolve) => setTimeout(resolve, 250));
    const allClosedMs = Date.now() - started;
    const closedInAll = everyone.reduce((sum, slow) => sum + slow.closed(), 0);
    for (const slow of everyone) slow.stop();
    const load = await clients.stop();
    console.log(
      `      one source: ${closedAtOnce} of 300 closed at once; 1,200 more from 20 sources: ${evicted} evicted; controller fds ${baseline.fds} -> ${during.fds}; admin answered in ${Math.round(latency)} ms; all ${closedInAll} of ${total} closed after ${(allClosedMs / 1000).toFixed(1)} s; real clients ${load.attempts} with ${load.errors} errors`,
    );
    assert.equal(closedAtOnce, 300 - 64);
    assert.ok(evicted >= 64 + 1200 - 1024, `${evicted} evicted`);
    assert.ok(during.fds - baseline.fds <= 1024 + 16, `the controller held ${during.fds - baseline.fds} more descriptors`);
    assert.ok(latency < 2000, `the administrator was answered in ${Math.round(latency)} ms`);
    assert.equal(closedInAll, total, 'every slow connection was closed by its deadline');
    assert.equal(load.errors, 0);
  });

  it('6: a member that registers the relay 100 times and answers no dial holds one registration and is taken out of the choice', async () => {
    const { channel } = await enrolledAttacker('rogue-outlet', ['--attribute', 'app-outlet', '--relay', 'app']);
    let dials = 0;
    channel.on('event', (event: { event?: string }) => {
      if (event.event === 'dial') dials += 1;
    });
    for (let i = 0; i < 100; i += 1) await channel.request('register', { relay: 'app', allow: 'app-inlet' });
    // New client connections make the inlet ask for splices (warm streams), some of which reach the rogue.
    const results: boolean[] = [];
    for (let i = 0; i < 15; i += 1) {
      const load = realClients(port, 0);
      await new Promise((resolve) => setTimeout(resolve, 150));
      const done = await load.stop();
      results.push(done.errors === 0);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // Ask the relay directly as the inlet would, many times: the rogue is out of the choice by now.
    const later = realClients(port, 10);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const load = await later.stop();
    channel.destroy();
    console.log(`      rogue received ${dials} dials; ${results.filter(Boolean).length} of 15 client rounds without error; then ${load.attempts} clients with ${load.errors} errors, p99 ${load.p99Ms} ms`);
    assert.deepEqual(results, Array.from({ length: 15 }, () => true));
    assert.ok(dials <= 2, `the rogue was dialled ${dials} times before it was taken out of the choice`);
    assert.equal(load.errors, 0);
  });
});

