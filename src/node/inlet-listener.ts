/** The inlet's listener for its clients, bound before enrollment so that a taken address fails first. */
import { createServer, type Server } from 'node:net';
import { parseHostPort, socketHost } from '../shared/address.ts';
import { RuntimeFailure } from '../shared/errors.ts';
import { dataPathHighWaterMark } from '../shared/socket-tuning.ts';

/** Listens on `from`; a taken address is a clear error. */
export async function bindInletListener(from: string): Promise<Server> {
  const parsed = parseHostPort(from, true);
  if (!parsed.ok) throw new Error(`inlet address ${from}: ${parsed.reason}`);
  const server = createServer({ allowHalfOpen: true, noDelay: true, highWaterMark: dataPathHighWaterMark });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new RuntimeFailure(
          'ADDRESS_IN_USE',
          `the inlet cannot listen on ${from}: ` +
            (error.code === 'EADDRINUSE' ? 'the address is in use' : error.message),
          {
            hint: 'stop whatever listens there, or change tcp-inlet.from',
            cause: error,
          },
        ),
      ),
    );
    server.listen(parsed.address.port, socketHost(parsed.address.host), () => resolve());
  });
  return server;
}
