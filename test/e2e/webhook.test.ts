import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { inletPort, portal } from '../support/processes.ts';
import { onFreePorts, runUseCase, type UseCaseRun } from '../support/usecase-run.ts';
import { projectRoot } from '../support/usecases.ts';

describe('end to end: the generic webhook use case', function () {
  this.timeout(60_000);
  let run: UseCaseRun;
  let receiver: ChildProcessWithoutNullStreams;
  const received: string[] = [];

  before(async () => {
    run = await runUseCase('webhook');
    receiver = spawn('python3', [join(projectRoot, 'out/webhook/webhook_receiver.py'), '--port', '0']);
    const lines = createInterface({ input: receiver.stdout });
    lines.on('line', (line) => received.push(line));
    const receiverPort = await new Promise<number>((resolve) =>
      lines.on('line', (line) => {
        const match = /listening on 127\.0\.0\.1:(\d+)$/.exec(line);
        if (match) resolve(Number(match[1]));
      }),
    );
    await run.startPortal(() => `localhost:${receiverPort}`);
  });

  after(async () => {
    receiver?.kill();
    if (receiver) await once(receiver, 'exit');
    await run?.close();
  });

  it('issues one-time tickets with the compiled tickets.sh', () => {
    assert.match(run.tickets.outlet, /^pt1\.[A-Za-z0-9_-]+$/);
    assert.notEqual(run.tickets.outlet, run.tickets.inlet);
  });

  it('reports the inlet UP through portal node show', async () => {
    const shown = await portal(run.inletHome, ['node', 'show']);
    assert.equal(shown.code, 0, shown.stderr);
    assert.equal(shown.stdout.split('\n')[0], 'The node is UP');
  });

  it('delivers a webhook POSTed to the inlet to the compiled receiver', async () => {
    const response = await fetch(`http://127.0.0.1:${await inletPort(run.inletHome)}/webhook`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ from: 'e2e-inlet-machine' }),
    });
    assert.equal(response.status, 200);
    assert.equal(await response.text(), 'Webhook received');
    const deadline = Date.now() + 5000;
    while (!received.some((line) => line.includes('"POST /webhook HTTP/1.1" 200')) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    assert.ok(received.includes('Received webhook: {"from": "e2e-inlet-machine"}'), received.join('\n'));
  });

  it('comes back after a restart without a ticket: the identity is kept in PORTAL_HOME', async () => {
    // One node per PORTAL_HOME: the first inlet stops (cleanly), then the same home starts again.
    assert.deepEqual(await run.stopNodes('inlet'), [0]);
    const restarted = await run.startNode('inlet', onFreePorts(await run.compiledConfig('inlet')), {
      ENROLLMENT_TICKET: '',
    });
    await restarted.waitFor(/Portal node setup completed successfully/);
    assert.ok(!restarted.lines.some((line) => line.includes('enrolled as')), 'no second enrollment');
    await restarted.stop();
  });
});
