/**
 * The first line of every control and relay connection: the protocol version both ends must speak, and
 * the sentence both print when they do not.
 */
/**
 * The version every connection names on its first line. 1 was the unversioned protocol: its peers send
 * no version line, and are told so.
 */
export const protocolVersion = 2;

/** What a TLS connection to a Portal port speaks, chosen by ALPN (one port may serve both). */
export type ServiceName = 'control' | 'relay';
export const serviceAlpn: Record<ServiceName, string> = { control: 'portal-control', relay: 'portal-relay' };

/** The first line each side of a control or relay connection sends. */
export interface Hello {
  readonly portal: ServiceName;
  readonly version: number;
  /** Set by a server that refuses the client's version; the connection closes after it. */
  readonly refused?: string;
}

export const helloOf = (service: ServiceName): Hello => ({ portal: service, version: protocolVersion });

/** The sentence both sides print when versions differ: it names both. */
export function versionMismatch(service: ServiceName, server: number | undefined, client: number | undefined): string {
  const who = service === 'control' ? 'controller' : 'relay';
  const version = (value: number | undefined) => (value === undefined ? '1 (no version line)' : String(value));
  return `the ${who} speaks Portal protocol ${version(server)} and this client protocol ${version(client)}`;
}
export const versionHint =
  'run the same Portal version on the controller, the relays and every node (portal --version)';

/** The server's check of a client's first line: undefined when it may go on, else why not. */
export function checkHello(service: ServiceName, message: unknown): string | undefined {
  const hello = message as Partial<Hello> | null;
  const version = typeof hello?.version === 'number' ? hello.version : undefined;
  if (hello?.portal === service && version === protocolVersion) return undefined;
  return versionMismatch(service, protocolVersion, hello?.portal === service ? version : undefined);
}
