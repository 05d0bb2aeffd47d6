/**
 * What the guide and tickets.sh run to verify each portal, by its kind, as data the templates quote:
 * command words with {host}, {port}, {name} and {ca} placeholders, which the `shargs` helper turns into
 * the double-quoted shell variables below (src/compile/quote.ts, shellWordWith), never into text.
 */
import type { Portal } from './model.ts';
import { pythonEscapes } from './quote.ts';
import { envPlaceholder } from './rules/command-secrets.ts';

/** The shell variables that carry what a check needs, set before each portal's check. */
export const checkVariables = {
  /** Where the inlet is reached from here: localhost, or the inlet's address. */
  host: 'INLET_HOST',
  port: 'INLET_PORT',
  /** The TLS inlet's name <label>.<project_id>.<network_domain>. */
  name: 'INLET_NAME',
  /** The project's certificate authority, which signed the TLS inlet's certificate. */
  ca: 'PROJECT_CA',
} as const;

export interface PortalCheck {
  readonly name: string;
  readonly kind: Portal['verification']['kind'];
  readonly port: number;
  /** The variable that moves the port tickets.sh verify connects to (the inlet published elsewhere). */
  readonly portVariable: string;
  readonly tls: boolean;
  readonly label: string;
  /** tcp: the bytes to send as Python escapes, '' for none; what the reply must begin with, '' for any. */
  readonly send: string;
  readonly expect: string;
  /** http and command: the words of the command. */
  readonly words: readonly string[];
  /** command: the environment variables its {env:NAME} placeholders read, each once, in order. */
  readonly envVariables: readonly string[];
  /** command: `-e NAME ` for each, which hands the variables to a command run with docker exec. */
  readonly envFlags: string;
  /** http: the status expected. */
  readonly status: number;
  /** webhook: the receiver's URL through the inlet. */
  readonly url: string;
  readonly path: string;
  /** psql: the scratch table. */
  readonly table: string;
  /** invoke-model. */
  readonly modelId: string;
  readonly region: string;
}

export function portalCheck(portal: Portal, listed: boolean): PortalCheck {
  const { verification } = portal;
  const base: PortalCheck = {
    name: portal.name,
    kind: verification.kind,
    port: portal.inlet.port,
    portVariable: listed ? `INLET_PORT_${portal.name.toUpperCase().replace(/-/g, '_')}` : 'INLET_PORT',
    tls: portal.inlet.tls,
    label: portal.label,
    send: '',
    expect: '',
    words: [],
    envVariables: [],
    envFlags: '',
    status: 0,
    url: '',
    path: '',
    table: '',
    modelId: '',
    region: '',
  };
  switch (verification.kind) {
    case 'tcp':
      return {
        ...base,
        send: verification.send === undefined ? '' : pythonEscapes(verification.send),
        expect: verification.expect ?? '',
      };
    case 'http': {
      const path = verification.path ?? '/';
      return {
        ...base,
        words: httpWords(portal, verification.method ?? 'GET', path),
        status: verification.status ?? 200,
      };
    }
    case 'command': {
      const envVariables = [
        ...new Set(verification.run.flatMap((word) => [...word.matchAll(envPlaceholder)].map((match) => match[1]))),
      ] as string[];
      return {
        ...base,
        words: verification.run,
        envVariables,
        envFlags: envVariables.map((name) => `-e ${name} `).join(''),
        expect: verification.expect ?? '',
      };
    }
    case 'webhook':
      return { ...base, url: `http://localhost:${portal.inlet.port}${verification.path}`, path: verification.path };
    case 'psql':
      return { ...base, table: verification.table };
    case 'invoke-model':
      return { ...base, modelId: verification['model-id'], region: verification.region };
  }
}

/** curl printing only the status of the request; over TLS with the project CA, to the inlet's name. */
function httpWords(portal: Portal, method: string, path: string): string[] {
  const request = method === 'HEAD' ? ['--head'] : ['-X', method];
  const common = ['curl', '-sS', '-o', '/dev/null', '-w', '%{http_code}', ...request];
  if (!portal.inlet.tls) return [...common, `http://{host}:{port}${path}`];
  // --connect-to reaches the inlet wherever it is while TLS checks the name its certificate carries.
  return [...common, '--cacert', '{ca}', '--connect-to', '{name}:{port}:{host}:{port}', `https://{name}:{port}${path}`];
}
