/**
 * What an outlet holds for many clients at once, and gives back once they are gone, measured on real
 * processes (a controller, an outlet and an inlet from the bundle) by /proc and the outlet's /metrics.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { usageOf, watchUsage } from '../support/attackers.ts';
import { clientBurst, slowReaders, startAnswerServer } from '../support/client-burst.ts';
import { startEchoPortal, type EchoPortal } from '../support/echo-portal.ts';
import { nodeMetric } from '../support/processes.ts';
import { startProject, type ProjectProcesses } from '../support/project-processes.ts';

const MiB = 1024 * 1024;
const externalMb = async (home: string) =>
  Math.round(((await nodeMetric(home, 'portal_node_nodejs_external_memory_bytes')) ?? 0) / MiB);

/** The buffers 300 stalled clients may cost the outlet: their windows (38 MB), not their answers (300 MB and more). */
const heldBoundMb = 96;

describe('end to end: an outlet holds what its windows allow for many clients, and gives it back', function () {
  this.timeout(240_000);
  let project: ProjectProcesses;
  let portal: EchoPortal;

  afterEach(async () => {
    await project?.close();
    await portal?.echo.close();
  });

  it('300 clients that read nothing of a 4 MiB answer cost the outlet their windows, not the answer', async () => {
    project = await startProject();
    // The target answers at once, faster than any of these clients reads: what the outlet reads of it
    // beyond the streams' windows is what a stalled stream holds.
    portal = await startEchoPortal(project, {}, {}, () => startAnswerServer(4 * MiB));
    const outletHome = join(project.dir, 'outlet');
    const pid = portal.outlet.child.pid as number;
    const idle = await usageOf(pid);
    const watcher = watchUsage(pid);
    const close = await slowReaders(portal.port, 300);
    // Long enough for every stream to stall: the outlet reads, and sends, until the windows are full.
    await new Promise((resolve) => setTimeout(resolve, 5000));
    // What it holds, not what it has sent and not yet collected: on a loaded machine the dead buffers of
    // the first sends can stay uncollected for a while (98 MB in all once), until the memory reducer's
    // next look (every 20 s) collects them. Buffers the streams hold survive any collection.
    let held = await externalMb(outletHome);
    for (const deadline = Date.now() + 25_000; held >= heldBoundMb && Date.now() < deadline;)
      held = await new Promise<number>((resolve) => setTimeout(() => resolve(externalMb(outletHome)), 1000));
    const peak = await watcher.stop();
    close();
    console.log(
      `      outlet RSS ${idle.rssMb} MB idle -> peak ${peak.rssMb} MB with 300 stalled clients; ` +
        `buffers outside the heap ${held} MB`,
    );
    // Each stalled stream holds the rest of one read and one more (2 x 64 KiB): 38 MB for 300. Before,
    // each target socket read on to 1 MiB: 300 MB and more.
    assert.ok(held < heldBoundMb, `the outlet held ${held} MB of buffers for 300 stalled clients`);
    assert.ok(peak.rssMb - idle.rssMb < 160, `the outlet grew by ${Math.round(peak.rssMb - idle.rssMb)} MB`);
  });

  it('gives back the memory of 2,000 clients within a minute, twice: resident within 20 % of idle', async () => {
    project = await startProject();
    portal = await startEchoPortal(project, { PORTAL_OUTLET_CONNECTIONS_PER_INLET: '2048' });
    const outletHome = join(project.dir, 'outlet');
    const pid = portal.outlet.child.pid as number;
    const idle = { ...(await usageOf(pid)), external: await externalMb(outletHome) };
    const givenBack = (rssMb: number, external: number) => rssMb <= idle.rssMb * 1.2 && external <= idle.external + 8;
    for (const round of [1, 2]) {
      const watcher = watchUsage(pid);
      const burst = await clientBurst(portal.port, 2000, 256 * 1024);
      const peak = await watcher.stop();
      assert.equal(burst.whole, 2000, `round ${round}: ${JSON.stringify(burst.failed)}`);
      const deadline = Date.now() + 60_000;
      let after = await usageOf(pid);
      let external = await externalMb(outletHome);
      while (!givenBack(after.rssMb, external) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 1000));
        [after, external] = [await usageOf(pid), await externalMb(outletHome)];
      }
      console.log(
        `      round ${round}: RSS ${idle.rssMb} MB idle -> peak ${peak.rssMb} -> ${after.rssMb} MB; ` +
          `buffers ${idle.external} MB idle -> ${external} MB`,
      );
      // Before, 305-323 MB a minute after: a session's TLS output buffer kept the size of its largest
      // write (37-60 MB), and glibc kept the free pages of the rest.
      assert.ok(after.rssMb <= idle.rssMb * 1.2, `round ${round}: ${after.rssMb} MB resident a minute after`);
      assert.ok(external <= idle.external + 8, `round ${round}: ${external} MB of buffers a minute after`);
    }
  });
});
