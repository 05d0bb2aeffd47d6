/** The inlet's listener for its clients, bound before enrollment so that a taken address fails first. */
import { createServer, type Server } from 'node:net';
import { parseHostPort, socketHost } from '../shared/address.ts';
import { listenOrExplain } from '../shared/listen.ts';
import { streamSocketTuning } from '../shared/socket-tuning.ts';

/** Listens on `from`; a taken address is a clear error. */
export async function bindInletListener(from: string): Promise<Server> {
  const parsed = parseHostPort(from, true);
  if (!parsed.ok) throw new Error(`inlet address ${from}: ${parsed.reason}`);
  const server = createServer(streamSocketTuning);
  await listenOrExplain(server, {
    host: socketHost(parsed.address.host),
    port: parsed.address.port,
    subject: 'the inlet',
    address: from,
    hint: 'stop whatever listens there, or change tcp-inlet.from',
  });
  return server;
}
