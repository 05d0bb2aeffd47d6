/**
 * The controller's store on PostgreSQL, through postgres.js: a pure-JavaScript client on node:net and
 * node:tls (nothing to build), which takes several hosts and target_session_attrs as libpq does (a
 * primary with standbys, followed across a failover) and keeps LISTEN alive across reconnections.
 * Kysely speaks to it through kysely-postgres-js, so the queries and migrations are those of SQLite.
 * Both are loaded when a PostgreSQL store is opened, never by a controller on SQLite or by a node.
 */
import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';
import { Kysely } from 'kysely';
import type postgres from 'postgres';
import { InputError, RuntimeFailure } from '../../shared/errors.ts';
import { attachNotices } from './notices.ts';
import type { Database } from './schema.ts';
import type { PostgresTarget } from './store-url.ts';

/** Each replica's connections to the database; a controller's queries are short. */
const poolSize = 10;
/** A database that does not answer a new connection in this long is reported down. */
const connectTimeoutSeconds = 5;
/** The wait before each new attempt to connect after failed ones: doubling from 0.1 s to 1 s. */
const reconnectWaitSeconds = (failures: number) => Math.min(0.05 * 2 ** failures, 1);
/** How long closing the store waits for the queries under way. */
const endWaitSeconds = 2;

export interface PostgresStoreOptions {
  /**
   * The password of the URL's user, or what gives it at each new connection; undefined: PGPASSWORD,
   * else none (trust or certificate login).
   */
  readonly password?: string | (() => Promise<string>);
}

export type PostgresClient = postgres.Sql<{ bigint: number }>;

/** A client for `target` (connections open on first use). */
export async function postgresClient(
  target: PostgresTarget,
  options: PostgresStoreOptions = {},
): Promise<PostgresClient> {
  const { default: postgres } = await import('postgres');
  const password = options.password ?? process.env.PGPASSWORD;
  return postgres({
    // postgres.js takes lists of hosts and ports (one each per server) although its types say one.
    host: target.hosts.map(({ host }) => host) as unknown as string,
    port: target.hosts.map(({ port }) => port) as unknown as number,
    database: target.database,
    username: target.user,
    ...(password === undefined ? {} : { password }),
    ssl: tlsOptions(target),
    // postgres.js leaves the choice to the first host that answers unless told otherwise.
    ...(target.sessionTarget === 'any' ? {} : { target_session_attrs: target.sessionTarget }),
    max: poolSize,
    connect_timeout: connectTimeoutSeconds,
    // Its own backoff grows to 20 s between attempts while the database is down, and a query waits for
    // the next attempt: past the deadline of the request it serves. At most a second here, so that a
    // request is refused in one line while it is down and served as soon as it is back.
    backoff: reconnectWaitSeconds,
    connection: { application_name: 'portal-controller' },
    // Times are epoch milliseconds in bigint columns: well within a JavaScript number.
    types: {
      bigint: {
        to: 20,
        from: [20],
        serialize: (value: number) => String(value),
        parse: (text: string) => Number(text),
      },
    },
    // "relation already exists, skipping" and the like: nothing an operator needs in the controller's log.
    onnotice: () => undefined,
  });
}

function tlsOptions(target: PostgresTarget): boolean | 'prefer' | 'require' | ConnectionOptions {
  switch (target.sslMode) {
    case 'disable':
      return false;
    case 'allow':
    case 'prefer':
      return 'prefer';
    case 'require':
      return 'require';
    case 'verify-ca':
    case 'verify-full': {
      const ca = rootCertificates(target);
      return {
        rejectUnauthorized: true,
        ...(ca === undefined ? {} : { ca }),
        // verify-ca: signed by a trusted CA, whatever name the certificate carries.
        ...(target.sslMode === 'verify-ca' ? { checkServerIdentity: () => undefined } : {}),
      };
    }
  }
}

function rootCertificates(target: PostgresTarget): string | undefined {
  if (target.sslRootCert === undefined || target.sslRootCert === 'system') return undefined;
  try {
    return readFileSync(target.sslRootCert, 'utf8');
  } catch (error) {
    const why = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new InputError(
      'STORE_URL_INVALID',
      `--store ${target.shown}: sslrootcert ${target.sslRootCert} cannot be read (${why})`,
      { hint: "name the PEM file of the CA that signed the database server's certificate" },
    );
  }
}

/** A Kysely store on `client`, once the database has answered. */
export async function openPostgresStore(target: PostgresTarget, client: PostgresClient): Promise<Kysely<Database>> {
  try {
    await client`select 1`;
  } catch (error) {
    await client.end({ timeout: 0 }).catch(() => undefined);
    throw unreachable(target, error);
  }
  const { PostgresJSDialect } = await import('kysely-postgres-js');
  // Closing waits for the queries under way, but no longer than endWaitSeconds: a query that a closing
  // connection of a node starts (its last-seen time) must not keep the controller from stopping.
  const closing = {
    reserve: async () => {
      const reserved = await client.reserve().catch((error: unknown) => {
        throw unavailable(error);
      });
      return {
        release: () => reserved.release(),
        unsafe: (query: string, parameters?: unknown[]) =>
          reserved.unsafe(query, parameters as never[]).catch((error: unknown) => {
            throw unavailable(error);
          }),
      };
    },
    end: () => client.end({ timeout: endWaitSeconds }),
  };
  const store = new Kysely<Database>({ dialect: new PostgresJSDialect({ postgres: () => closing }) });
  attachNotices(store, {
    async listen(channel, onNotice, onListening) {
      // postgres.js keeps one connection for LISTEN and listens again on it after every reconnection.
      const listening = await client.listen(channel, onNotice, onListening);
      return { stop: () => listening.unlisten() };
    },
  });
  return store;
}

export function unreachable(target: PostgresTarget, error: unknown): RuntimeFailure {
  const reason = error instanceof Error ? error.message : String(error);
  return new RuntimeFailure('STORE_UNREACHABLE', `the PostgreSQL store ${target.shown} cannot be used: ${reason}`, {
    hint:
      `check that PostgreSQL runs at ${target.hosts.map(({ host, port }) => `${host}:${port}`).join(', ')}, ` +
      `that ${target.user} may log in to ${target.database} from here, and that PGPASSWORD or ` +
      '--store-password-file holds its password',
    cause: error,
  });
}

/** Errors of the connection, not of the query: the client's own codes, the socket's, SQLSTATE 08 and 57P. */
const connectionCodes = new RegExp(
  '^(CONNECTION_|CONNECT_TIMEOUT|08|57P0|' +
    'E(CONNREFUSED|CONNRESET|TIMEDOUT|HOSTUNREACH|NETUNREACH|PIPE|NOTFOUND|AI_AGAIN))',
);

/**
 * A query that failed because the database could not be reached: one line for whoever asked (a node
 * enrolling, an administrator), naming neither the database nor its address. Any other error (a
 * constraint, say) is left as it is.
 */
function unavailable(error: unknown): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !connectionCodes.test(code)) return error;
  return new RuntimeFailure('STORE_UNREACHABLE', `the controller cannot reach its database now (${code})`, {
    hint: 'try again in a moment: the controller reconnects by itself (its /healthz reports the store meanwhile)',
    cause: error,
  });
}
