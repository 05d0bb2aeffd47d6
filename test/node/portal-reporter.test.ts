import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import { reportPortals } from '../../src/node/portal-reporter.ts';
import type { NodeControl } from '../../src/node/standing-channel.ts';
import type { PortalReport } from '../../src/wire/protocol.ts';

/** A controller channel that records each request and answers as told. */
class FakeControl extends EventEmitter {
  connected = true;
  readonly sent: PortalReport[][] = [];
  answer: () => Promise<object> = () => Promise.resolve({});

  request(op: string, body: { portals: PortalReport[] }): Promise<object> {
    assert.equal(op, 'portal-report');
    this.sent.push(body.portals);
    return this.answer();
  }
}

/** Waits until `check` holds (timers may run late on a busy machine); fails after 2 s. */
async function until(check: () => boolean): Promise<void> {
  for (let waited = 0; !check(); waited += 5) {
    if (waited > 2000) assert.fail('not within 2 s');
    await delay(5);
  }
}

const ups = (control: FakeControl) => control.sent.map((sent) => sent[0]?.up);

const portal = (up: number): PortalReport => ({
  part: 'inlet',
  name: 'db',
  relay: 'db',
  status: 'up',
  since: 1,
  open: 0,
  total: 0,
  up,
  down: 0,
  peers: [],
});

describe('node: reporting its portals to the controller', () => {
  it('reports at once, then only what changed, and again on each new connection', async () => {
    const control = new FakeControl();
    let portals = [portal(1)];
    const stop = reportPortals(control as unknown as NodeControl, () => portals, 10);
    try {
      await delay(80);
      assert.equal(control.sent.length, 1, 'an idle node sends nothing after its first report');
      portals = [portal(2)];
      await until(() => control.sent.length === 2);
      assert.deepEqual(ups(control), [1, 2]);
      control.emit('down');
      portals = [portal(3)];
      await delay(40);
      assert.equal(control.sent.length, 2, 'nothing while the controller is away');
      control.emit('up');
      await until(() => control.sent.length === 3);
      assert.deepEqual(ups(control), [1, 2, 3]);
    } finally {
      stop();
    }
  });

  it('sends at most the bounds of portals and outlets, and stops asking a controller without it', async () => {
    const control = new FakeControl();
    control.answer = () => Promise.reject(Object.assign(new Error('unknown'), { code: 'UNKNOWN_OPERATION' }));
    const pool = Array.from({ length: 20 }, (_, index) => ({ node: `n${index}`, path: 'direct', open: 0 }));
    let portals: PortalReport[] = Array.from({ length: 40 }, (_, index) => ({ ...portal(index), peers: pool }));
    const stop = reportPortals(control as unknown as NodeControl, () => portals, 10);
    try {
      await until(() => control.sent.length === 1);
      assert.equal(control.sent[0]?.length, 32);
      assert.equal(control.sent[0]?.[0]?.peers.length, 16);
      portals = [portal(99)];
      await delay(60);
      assert.equal(control.sent.length, 1, 'not asked again on this connection');
    } finally {
      stop();
    }
  });
});
