import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { PortalError } from '../../src/shared/errors.ts';
import { keepAlive, type Pingable } from '../../src/wire/tunnel-streams.ts';

/** A session whose peer has gone quiet: pings are sent and never answered, and nothing else arrives. */
class QuietSession extends EventEmitter implements Pingable {
  destroyed = false;
  closed = false;
  readonly lastHeardAt = 0;
  why: Error | undefined;

  ping(): boolean {
    return true;
  }

  destroy(error?: Error): void {
    this.destroyed = true;
    this.why = error;
    this.emit('close');
  }
}

describe('heartbeats on a session', () => {
  it('destroys a session whose peer stays silent with HEARTBEAT_LOST, after telling the caller', async () => {
    const session = new QuietSession();
    let told = 0;
    keepAlive(session, 10, 5, () => (told += 1));
    const deadline = Date.now() + 2000;
    while (!session.destroyed && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.ok(session.why instanceof PortalError);
    assert.equal(session.why.code, 'HEARTBEAT_LOST');
    assert.equal(session.why.message, 'heartbeat lost');
    assert.equal(told, 1);
  });
});
