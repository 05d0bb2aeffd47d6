/**
 * Controller replicas as processes on one PostgreSQL database: `portal controller start --store` with
 * every replica's address as a public address (tickets and nodes carry them all), no embedded relay,
 * the first making the schema and the project and the others joining with its sealing key. Each can be
 * killed and started again on its address.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { freePort, startPortal, type Running } from './processes.ts';

export interface ControllerReplicas {
  /** host:port of each replica. */
  readonly addresses: readonly string[];
  /** The admin code the first replica printed, and where it listens. */
  readonly first: { readonly adminCode: string; readonly listening: string };
  /** The running process of replica `index` (undefined while it is down). */
  process(index: number): Running | undefined;
  kill(index: number): Promise<void>;
  /** Starts replica `index` again on its address; resolves once it listens. */
  restart(index: number): Promise<void>;
  stop(): Promise<void>;
}

export interface ReplicaOptions {
  readonly dir: string;
  /** postgres://user@host:port[,host:port]/database */
  readonly store: string;
  readonly password: string;
  readonly count: number;
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * `portal controller start` for a replica: on `listen`, announcing every replica's address, on the
 * store (its password from a file), with no embedded relay and no status server, printing its ready
 * line; joining with `sealingKey` when another replica made the project.
 */
export function replicaArguments(replica: {
  readonly dataDir: string;
  readonly listen: string;
  readonly addresses: readonly string[];
  readonly store: string;
  readonly passwordFile: string;
  readonly sealingKey?: string;
}): string[] {
  return [
    'controller',
    'start',
    '--data-dir',
    replica.dataDir,
    '--listen',
    replica.listen,
    ...replica.addresses.flatMap((address) => ['--public-address', address]),
    '--store',
    replica.store,
    '--store-password-file',
    replica.passwordFile,
    '--no-relay',
    '--status-listen',
    'off',
    '--ready-json',
    ...(replica.sealingKey ? ['--sealing-key-file', replica.sealingKey] : []),
  ];
}

export async function startControllerReplicas(options: ReplicaOptions): Promise<ControllerReplicas> {
  const { dir, store, count } = options;
  const ports: number[] = [];
  for (let index = 0; index < count; index++) ports.push(await freePort());
  const passwordFile = join(dir, 'db.password');
  await writeFile(passwordFile, `${options.password}\n`, { mode: 0o600 });
  const sealingKey = join(dir, 'controller-0', 'keys', 'controller-seal.key');
  const processes: (Running | undefined)[] = [];
  const launch = async (index: number) => {
    const process = startPortal(
      join(dir, `controller-${index}`),
      replicaArguments({
        dataDir: join(dir, `controller-${index}`, 'data'),
        listen: `127.0.0.1:${ports[index]}`,
        addresses: ports.map((port) => `127.0.0.1:${port}`),
        store,
        passwordFile,
        ...(index > 0 ? { sealingKey } : {}),
      }),
      { PGPASSWORD: undefined, ...options.env },
    );
    processes[index] = process;
    return JSON.parse(await process.waitFor(/^\{"pid"/, 60_000)) as { listening: string; adminCode: string };
  };
  try {
    const first = await launch(0);
    for (let index = 1; index < count; index++) await launch(index);
    return {
      addresses: ports.map((port) => `127.0.0.1:${port}`),
      first,
      process: (index) => processes[index],
      async kill(index) {
        await processes[index]?.kill();
        processes[index] = undefined;
      },
      async restart(index) {
        await launch(index);
      },
      async stop() {
        for (const process of processes) await process?.stop();
      },
    };
  } catch (error) {
    for (const process of processes) await process?.stop();
    throw error;
  }
}
