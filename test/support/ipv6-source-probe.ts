/**
 * Run inside a private network namespace whose loopback holds every address it is given (see
 * test/wire/admission-ipv6.test.ts): a Portal port listens on the first address, and one connection
 * from each of the other addresses, in order, meets its admission limits twice: once as a connection
 * that proves nothing (held or refused per source), once as a TLS handshake (allowed or refused per
 * source). Prints one line, `PROBE <json>`, with the outcome for each source address, then exits.
 */
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';
import { createServerCertificate } from '../../src/pki/authority.ts';
import type { AdmissionLimits } from '../../src/wire/admission.ts';
import { PortalPort } from '../../src/wire/portal-port.ts';
import { serviceAlpn } from '../../src/wire/protocol.ts';

export interface ProbeRequest {
  readonly listen: string;
  readonly sources: readonly string[];
  /** Unauthenticated connections a source may hold. */
  readonly perSource: number;
  /** TLS handshakes a source may start (its rate is near zero, so the burst is all it gets). */
  readonly handshakeBurst: number;
}

export interface ProbeResult {
  readonly held: readonly ('held' | 'refused')[];
  readonly handshakes: readonly ('handshake' | 'refused')[];
}

const tls = createServerCertificate('ipv6-source-probe');

/** Limits that leave only the one under test to bite: no deadline or total within the probe's time. */
function limits(overrides: Partial<AdmissionLimits>): AdmissionLimits {
  return {
    deadlineMs: 60_000,
    perSource: 1000,
    total: 1000,
    handshakesPerSource: { perSecond: 0.001, burst: 1000 },
    ...overrides,
  };
}

/** Resolves once `check` holds, looking again on each turn of the event loop (the port has no accept event). */
async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`the port never ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

async function startPort(admission: AdmissionLimits, listen: string): Promise<{ port: PortalPort; number: number }> {
  // A handshake that completes is released and then left to the client, which closes it.
  const port = new PortalPort({
    tls: { key: tls.privateKey, certificate: tls.certificate },
    admission,
    handlers: { secure: { control: (_socket, release) => release() } },
  });
  const { port: number } = await port.listen(listen, 0);
  return { port, number };
}

/** One silent connection from each source: the port holds it (it has 60 s to prove itself) or closes it at once. */
async function holdFromEach(request: ProbeRequest): Promise<ProbeResult['held']> {
  const { port, number } = await startPort(limits({ perSource: request.perSource }), request.listen);
  const sockets: Socket[] = [];
  const outcomes: ProbeResult['held'][number][] = [];
  for (const [index, localAddress] of request.sources.entries()) {
    const socket = connect({ host: request.listen, port: number, localAddress });
    socket.on('error', () => undefined);
    sockets.push(socket);
    await once(socket, 'connect');
    const decided = () => port.stats().unauthenticated + port.stats().refusedPerSource === index + 1;
    await until(decided, `took the connection from ${localAddress}`);
    const refused = port.stats().refusedPerSource > outcomes.filter((outcome) => outcome === 'refused').length;
    if (refused) await once(socket, 'close');
    outcomes.push(refused ? 'refused' : 'held');
  }
  for (const socket of sockets) socket.destroy();
  await port.close();
  return outcomes;
}

/** A TLS handshake from each source: it completes, or the port closes the connection before it starts. */
async function handshakeFromEach(request: ProbeRequest): Promise<ProbeResult['handshakes']> {
  const { port, number } = await startPort(
    limits({ handshakesPerSource: { perSecond: 0.001, burst: request.handshakeBurst } }),
    request.listen,
  );
  const outcomes: ProbeResult['handshakes'][number][] = [];
  for (const localAddress of request.sources) {
    const raw = connect({ host: request.listen, port: number, localAddress });
    const socket = connectTls({ socket: raw, rejectUnauthorized: false, ALPNProtocols: [serviceAlpn.control] });
    const outcome = await new Promise<ProbeResult['handshakes'][number]>((resolve) => {
      socket.once('secureConnect', () => resolve('handshake'));
      socket.once('error', () => resolve('refused'));
      socket.once('close', () => resolve('refused'));
    });
    socket.destroy();
    raw.destroy();
    outcomes.push(outcome);
  }
  await port.close();
  return outcomes;
}

const request = JSON.parse(process.argv[2] ?? '{}') as ProbeRequest;
const result: ProbeResult = { held: await holdFromEach(request), handshakes: await handshakeFromEach(request) };
process.stdout.write(`PROBE ${JSON.stringify(result)}\n`);
