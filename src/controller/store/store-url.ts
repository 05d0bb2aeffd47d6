/**
 * What a `--store` URL names, read without touching anything: an SQLite file, or a PostgreSQL database
 * given the way libpq takes it (`postgres://USER@HOST:PORT,HOST:PORT/DB?sslmode=…&target_session_attrs=…`).
 *
 * A password is never taken from the URL: a command line is visible to every user of the machine (`ps`)
 * and is kept in shell histories and unit files. It comes from PGPASSWORD or a file.
 */
import { InputError } from '../../shared/errors.ts';

/** libpq's TLS modes; `prefer` and `allow` take TLS when the server offers it, without verifying. */
export const sslModes = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'] as const;
export type SslMode = (typeof sslModes)[number];

/** Which server of several a connection settles on, as libpq's target_session_attrs says. */
export const sessionTargets = ['any', 'read-write', 'primary'] as const;
export type SessionTarget = (typeof sessionTargets)[number];

export interface PostgresTarget {
  readonly kind: 'postgres';
  readonly hosts: readonly { readonly host: string; readonly port: number }[];
  readonly database: string;
  readonly user: string;
  readonly sslMode: SslMode;
  /** The CA certificates that verify the server (verify-ca, verify-full); undefined: the public roots. */
  readonly sslRootCert: string | undefined;
  readonly sessionTarget: SessionTarget;
  /** The URL as messages show it. */
  readonly shown: string;
}

export type StoreTarget = { readonly kind: 'sqlite'; readonly path: string } | PostgresTarget;

const storeHint = 'give --store sqlite:PATH or --store postgres://USER@HOST:PORT/DATABASE';

const invalid = (url: string, what: string, hint = storeHint) =>
  new InputError('STORE_URL_INVALID', `--store ${url}: ${what}`, { hint });

/** Hosts on this machine: there, TLS protects nothing and `prefer` is what libpq does. */
const loopback = (host: string) =>
  host === 'localhost' || host.startsWith('127.') || host === '::1' || host.startsWith('/');

export function parseStoreUrl(url: string, environment: NodeJS.ProcessEnv = {}): StoreTarget {
  if (url.startsWith('sqlite:')) return { kind: 'sqlite', path: url.slice('sqlite:'.length) };
  const scheme = /^(postgres|postgresql):\/\//.exec(url);
  if (!scheme) throw new InputError('STORE_UNSUPPORTED', `unknown store "${url}"`, { hint: storeHint });
  // The host part may list several host:port pairs, which URL cannot parse: take it apart first.
  const rest = url.slice(scheme[0].length);
  const authorityEnd = rest.search(/[/?]/);
  const authority = authorityEnd === -1 ? rest : rest.slice(0, authorityEnd);
  const tail = authorityEnd === -1 ? '' : rest.slice(authorityEnd);
  const at = authority.lastIndexOf('@');
  const credentials = at === -1 ? '' : authority.slice(0, at);
  if (credentials.includes(':'))
    throw invalid(
      shownUrl(url),
      'holds a password, which every user of this machine could read from the process list',
      'leave it out of the URL and give it in PGPASSWORD or in a file named by --store-password-file',
    );
  const user = decode(url, credentials) || environment.PGUSER || 'portal';
  const hosts = hostList(url, at === -1 ? authority : authority.slice(at + 1), environment);
  let parsed: URL;
  try {
    parsed = new URL(`postgres://placeholder${tail}`);
  } catch {
    throw invalid(url, 'is not a URL');
  }
  const database = decode(url, parsed.pathname.replace(/^\//, '')) || environment.PGDATABASE || user;
  const known = new Set(['sslmode', 'sslrootcert', 'target_session_attrs', 'application_name']);
  for (const key of parsed.searchParams.keys())
    if (!known.has(key))
      throw invalid(url, `does not know the parameter "${key}"`, `the parameters are ${[...known].join(', ')}`);
  const sslMode = oneOf(
    url,
    'sslmode',
    parsed.searchParams.get('sslmode') ?? environment.PGSSLMODE,
    sslModes,
    // Verification on by default: a database on another machine is verified unless the URL says otherwise.
    hosts.every(({ host }) => loopback(host)) ? 'prefer' : 'verify-full',
  );
  const sessionTarget = oneOf(
    url,
    'target_session_attrs',
    parsed.searchParams.get('target_session_attrs') ?? environment.PGTARGETSESSIONATTRS,
    sessionTargets,
    // Several hosts are a primary and its standbys: writes must go to the primary.
    hosts.length > 1 ? 'read-write' : 'any',
  );
  const sslRootCert = parsed.searchParams.get('sslrootcert') ?? environment.PGSSLROOTCERT ?? undefined;
  return { kind: 'postgres', hosts, database, user, sslMode, sslRootCert, sessionTarget, shown: shownUrl(url) };
}

function hostList(url: string, text: string, environment: NodeJS.ProcessEnv): PostgresTarget['hosts'] {
  const fallbackPort = Number(environment.PGPORT ?? 5432);
  if (text === '') return [{ host: environment.PGHOST ?? 'localhost', port: fallbackPort }];
  return text.split(',').map((item) => {
    const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(item);
    const plain = /^([^:[\]]+)(?::(\d+))?$/.exec(item);
    const match = bracketed ?? plain;
    if (!match)
      throw invalid(url, `cannot read the host "${item}"`, 'write each host as HOST or HOST:PORT, comma-separated');
    const port = match[2] === undefined ? fallbackPort : Number(match[2]);
    if (!Number.isInteger(port) || port < 1 || port > 65_535)
      throw invalid(url, `the port of "${item}" is not between 1 and 65535`);
    return { host: decode(url, match[1] as string), port };
  });
}

function oneOf<T extends string>(
  url: string,
  name: string,
  value: string | undefined,
  allowed: readonly T[],
  fallback: T,
): T {
  if (value === undefined || value === '') return fallback;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw invalid(url, `${name}=${value} is not one of ${allowed.join(', ')}`);
}

function decode(url: string, text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw invalid(url, `"${text}" is not properly percent-encoded`);
  }
}

/** The URL with any password masked, for messages and logs. */
export function shownUrl(url: string): string {
  return url.replace(/^([a-z]+:\/\/[^:@/]*):[^@/]*@/, '$1:***@');
}
