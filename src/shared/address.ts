/** `host:port` addresses as the node configuration writes them (IPv6 hosts in brackets). */
export interface HostPort {
  readonly host: string;
  readonly port: number;
}

export type ParsedAddress =
  { readonly ok: true; readonly address: HostPort } | { readonly ok: false; readonly reason: string };

const HOST = /^([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])$/;

/**
 * Parses `host:port`; the reason, when it fails, is a phrase that fits after "expected host:port, but".
 * `allowAnyPort` accepts port 0 (a listen address that lets the system choose).
 */
export function parseHostPort(text: string, allowAnyPort = false): ParsedAddress {
  const colon = text.lastIndexOf(':');
  if (colon <= 0) return { ok: false, reason: 'it has no :port' };
  const host = text.slice(0, colon);
  const portText = text.slice(colon + 1);
  if (!HOST.test(host)) return { ok: false, reason: `"${host}" is not a host name or address` };
  if (!/^[0-9]{1,5}$/.test(portText)) return { ok: false, reason: `"${portText}" is not a port number` };
  const port = Number(portText);
  if (!isPort(port) && !(allowAnyPort && port === 0))
    return { ok: false, reason: `port ${port} is out of range (1 to 65535)` };
  return { ok: true, address: { host, port } };
}

export function isPort(value: number): boolean {
  return Number.isInteger(value) && value >= 1 && value <= 65535;
}

/** The host as sockets take it: an IPv6 address without the brackets an address text writes it in. */
export function socketHost(host: string): string {
  return host.replace(/^\[|\]$/g, '');
}

export function formatHostPort({ host, port }: HostPort): string {
  return `${host}:${port}`;
}

/**
 * Whether `host` (a name or an address, IPv6 in brackets or not) is this machine's loopback: an address
 * only processes on the same machine reach.
 */
export function isLoopbackHost(host: string): boolean {
  const bare = socketHost(host).replace(/\.$/, '').toLowerCase();
  return (
    bare === 'localhost' ||
    bare.endsWith('.localhost') ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare) ||
    bare === '::1' ||
    bare === '0:0:0:0:0:0:0:1'
  );
}
