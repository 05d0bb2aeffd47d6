/**
 * A rogue relay, as a program for attack tests: an enrolled relay identity (a `--relay-node` ticket)
 * running the real relay code (src/relay/relay-node.ts) with its byte pumping taken out. It announces
 * itself to the controller, grants splices, tells the outlet to dial, accepts both halves, and then
 * carries nothing: the halves stay open and silent until their nodes give up on them.
 *
 * Run: `node --import tsx test/support/rogue-relay.ts` with PORTAL_HOME, ENROLLMENT_TICKET (first start
 * only) and ROGUE_LISTEN (host:port, default 127.0.0.1:0). It prints the line `portal relay start`
 * prints once listening, and one line per splice it holds. SIGTERM stops it.
 */
import type { Socket } from 'node:net';
import { loggerFromEnvironment } from '../../src/node/logger.ts';
import { startRelayNode } from '../../src/relay/relay-node.ts';

const logger = loggerFromEnvironment(process.env);
const home = process.env.PORTAL_HOME;
if (!home) throw new Error('rogue relay: PORTAL_HOME is not set');
const listen = process.env.ROGUE_LISTEN ?? '127.0.0.1:0';
const colon = listen.lastIndexOf(':');
const ticket = process.env.ENROLLMENT_TICKET;

const relay = await startRelayNode({
  home,
  listen: { host: listen.slice(0, colon), port: Number(listen.slice(colon + 1)) },
  logger,
  ...(ticket ? { ticket } : {}),
});

// The one change: the relay's private `pipe`, called once both halves of a splice have joined, holds
// them instead of pumping. Everything before it (grants, dials, secrets, bounds) is the product's code.
let held = 0;
const splices = relay.server.relay as unknown as { pipe(inlet: Socket, outlet: Socket): void };
splices.pipe = (inlet, outlet) => {
  held += 1;
  for (const socket of [inlet, outlet]) socket.on('error', () => socket.destroy());
  logger.info(`rogue relay: holding splice ${held}, carrying nothing`);
};

logger.announce(
  `Portal relay ${relay.nodeId} of project ${relay.projectId} listening on ${relay.listening}, reached as ` +
    `${relay.address} (certificate fingerprint ${relay.fingerprint}); rogue: splices are accepted and never carried`,
);
await new Promise<void>((resolve) => {
  process.once('SIGTERM', resolve);
  process.once('SIGINT', resolve);
});
await relay.stop();
process.exit(0);
