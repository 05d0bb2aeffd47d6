import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import { createAuthority } from '../../src/pki/authority.ts';
import { createLogger } from '../../src/node/logger.ts';
import { createMetrics, portalMetrics } from '../../src/node/metrics.ts';
import { outletLimits } from '../../src/node/outlet-limits.ts';
import { OutletRefusals } from '../../src/node/outlet-refusals.ts';
import { OutletSessions, type OutletSessionsOptions } from '../../src/node/outlet-sessions.ts';
import type { RelayLink } from '../../src/node/relay-links.ts';
import { LogThrottle } from '../../src/node/log-throttle.ts';
import { sessionMember } from '../support/session-members.ts';
import { until } from '../support/in-process.ts';

const { handshakesPerMember, handshakesTotal } = outletLimits;

describe('outlet: the dials a relay passes on (members that ask for splices and never finish the handshake)', () => {
  let relay: Server;
  const joined: Socket[] = [];
  let sessions: OutletSessions;
  const warnings: string[] = [];

  before(async () => {
    // A relay that joins every splice the outlet dials and passes nothing: each dial stays a handshake
    // under way, as when members ask for splices and stay silent.
    relay = createServer((socket: Socket) => {
      joined.push(socket);
      socket.on('error', () => socket.destroy());
    });
    relay.listen(0, '127.0.0.1');
    await once(relay, 'listening');
    const authority = createAuthority('dials');
    const credentials = sessionMember(authority, 'dials', 'n00000000000000b0', ['app-outlet']);
    const logger = createLogger({ level: 'warn', write: (line) => void warnings.push(line) });
    const metrics = portalMetrics(createMetrics(), undefined);
    const options = {
      allow: 'app-inlet',
      credentials: () => credentials,
      logger,
      metrics,
      refusals: new OutletRefusals({ allow: 'app-inlet', logger, metrics }),
      throttled: new LogThrottle((line) => logger.warn(line)),
    } as unknown as OutletSessionsOptions;
    sessions = new OutletSessions(options);
  });

  after(() => {
    sessions.stopAccepting();
    sessions.destroyAll();
    for (const socket of joined) socket.destroy();
    relay.close();
  });

  it(
    `answers ${handshakesPerMember} dials at once per asking node and ${handshakesTotal} in all, ` +
      'declines the rest and logs them, and answers again once handshakes end',
    async () => {
      const link = { entry: { address: `127.0.0.1:${(relay.address() as { port: number }).port}` } } as RelayLink;
      const dial = (from: string, count: number) => {
        for (let n = 0; n < count; n += 1) sessions.onDial(link, `s-${from}-${n}`, 'secret', from);
      };
      dial('n00000000000000a1', handshakesPerMember + 8);
      assert.equal(sessions.describe().handshakes_pending, handshakesPerMember);
      assert.equal(sessions.describe().dials_declined, 8, 'one node past its own bound');
      for (let node = 2; node <= handshakesTotal / handshakesPerMember; node += 1)
        dial(`n00000000000000a${node}`, handshakesPerMember);
      dial('n00000000000000f1', 1);
      assert.equal(sessions.describe().handshakes_pending, handshakesTotal);
      assert.equal(sessions.describe().dials_declined, 9, 'a node within its own bound, past the outlet’s');
      // The handshakes under way are real connections to the relay, and no more than the bound.
      await until(() => (joined.length === handshakesTotal ? true : undefined), `${handshakesTotal} dials joined`);
      assert.ok(
        warnings.some((line) => /declined dials .* from node n00000000000000a1/.test(line)),
        warnings.join(''),
      );
      // The relay drops the splices: the handshakes end, and the outlet answers dials again.
      for (const socket of joined.splice(0)) socket.destroy();
      await until(() => (sessions.describe().handshakes_pending === 0 ? true : undefined), 'the handshakes to end');
      dial('n00000000000000a1', 1);
      assert.equal(sessions.describe().handshakes_pending, 1);
      assert.equal(sessions.describe().dials_declined, 9);
    },
  );
});
