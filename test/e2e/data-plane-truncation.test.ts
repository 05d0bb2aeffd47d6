/**
 * A relay killed during transfers: every client sees all its bytes or a reset, never an end of stream
 * with bytes missing (which a client reading to the end takes for the whole answer). Run with every
 * client on the session (PORTAL_WARM_STREAMS=0) and with the default warm streams.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { countOutcomes, cutTransfers, describeOutcome } from '../support/cut-transfers.ts';
import { startEchoPortal, type EchoPortal } from '../support/echo-portal.ts';
import { statusWhen } from '../support/processes.ts';
import { startProject, type ProjectProcesses } from '../support/project-processes.ts';
import { startRelay, type RelayProcess } from '../support/relay-processes.ts';
import { startStoreEchoServer } from '../support/tcp.ts';

// A killed relay's sockets close at once; the heartbeat only has to stay clear of a loaded machine, where
// at 500 ms (1 s of silence) a node starved of CPU for a second took the live session for dead.
const heartbeat = { PORTAL_HEARTBEAT: '2s' };
const MiB = 1024 * 1024;

describe('end to end: a relay killed during transfers cuts no stream short with a clean end', function () {
  this.timeout(300_000);
  const clients = 20;
  const bytes = 32 * MiB;

  for (const warm of [0, 2]) {
    describe(`PORTAL_WARM_STREAMS=${warm}${warm === 2 ? ' (the default)' : ''}`, () => {
      let project: ProjectProcesses;
      let portal: EchoPortal;
      let relay: RelayProcess;

      before(async () => {
        project = await startProject({ controllerFlags: ['--no-relay'] });
        relay = await startRelay(project, 'relay');
        // The target answers once every client's request is whole: the cut then falls on answers only,
        // where a client's socket tells a reset from an end (test/support/cut-clients.py).
        portal = await startEchoPortal(
          project,
          { ...heartbeat, ...(warm === 2 ? {} : { PORTAL_WARM_STREAMS: String(warm) }) },
          { direct: false },
          () => startStoreEchoServer(clients),
        );
      });

      after(async () => {
        await project?.close();
        await relay?.process.stop();
        await portal?.echo.close();
      });

      it(
        `${clients} clients each send ${bytes / MiB} MiB and read it back through the relay, ` +
          'SIGKILLed once 8 MiB have come back: each sees all its bytes or a reset',
        async () => {
          const home = join(project.dir, 'inlet');
          const shown = await statusWhen(
            home,
            (status) => status.inlets[0]?.session === 'open' && status.inlets[0]?.warm_streams === warm,
          );
          assert.equal(shown.inlets[0]?.path, `relay ${relay.id}`);
          const result = await cutTransfers(portal.port, {
            clients,
            bytes,
            cutAfter: 8 * MiB,
            cut: () => relay.process.kill(),
          });
          const counts = countOutcomes(result.outcomes);
          console.log(
            `      relay killed once ${result.cutAt} bytes had come back: ${counts.whole} whole, ` +
              `${counts.reset} reset, ${counts.truncated} truncated (end of stream, bytes missing), ` +
              `${counts.other} other; ${result.seconds} s` +
              (warm > 0 ? `; clients 0-${warm - 1} connected first and took the ${warm} warm streams` : ''),
          );
          for (const outcome of result.outcomes)
            if (outcome.kind !== 'whole' && outcome.kind !== 'reset')
              console.log(`        ${describeOutcome(outcome)}`);
          assert.equal(relay.process.child.signalCode, 'SIGKILL');
          assert.ok(counts.whole < clients, 'the relay was killed during the transfers');
          const wrong = result.outcomes.filter((outcome) => outcome.kind !== 'whole' && outcome.kind !== 'reset');
          assert.deepEqual(
            wrong.map(describeOutcome),
            [],
            'every client saw all its bytes (sha256) and the end, or ECONNRESET',
          );
        },
      );
    });
  }
});
