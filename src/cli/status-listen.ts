/**
 * `--status-listen` of `portal controller start` and `portal relay start`: where the process serves
 * GET /metrics and GET /healthz. HOST:PORT, a bare PORT (on 127.0.0.1), 0 for a port the system
 * chooses (the default, written to the runtime file), or off. Loopback unless the operator says
 * otherwise: the figures name projects' members and relays.
 */
import { parseHostPort, socketHost } from '../shared/address.ts';
import { InputError } from '../shared/errors.ts';

export const statusListenDefault = '127.0.0.1:0';

export const statusListenHelp =
  'where to serve GET /metrics and GET /healthz: HOST:PORT, PORT (on 127.0.0.1), 0 for a free port ' +
  '(written to the runtime file), or off';

/** Where the status server listens, or undefined for off. */
export function parseStatusListen(text: string): { host: string; port: number } | undefined {
  if (text === 'off') return undefined;
  const parsed = parseHostPort(/^[0-9]+$/.test(text) ? `127.0.0.1:${text}` : text, true);
  if (!parsed.ok)
    throw new InputError(
      'BAD_FLAG',
      `--status-listen ${text}: expected HOST:PORT, PORT, 0 or off, but ${parsed.reason}`,
      {
        hint: 'give --status-listen 127.0.0.1:9464, for example, or --status-listen off',
      },
    );
  return { host: socketHost(parsed.address.host), port: parsed.address.port };
}
