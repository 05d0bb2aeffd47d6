/**
 * Which controller holds a SQLite store: a controller that opens one writes `<store>.holder` naming its
 * process, and removes it when it closes the store, so that `portal controller migrate-store` refuses to
 * copy a store that a running controller still writes to. A file left by a controller that was killed
 * names a process that is gone (or a pid reused since, which the process's start time tells apart), and
 * holds nothing.
 */
import { randomBytes } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { InputError } from '../../shared/errors.ts';
import { claimExclusively, holderRuns as processRuns } from '../../shared/exclusive-claim.ts';
import { processStart } from '../../shared/process-state.ts';

/** What `<store>.holder` says. */
export interface StoreHolder {
  readonly pid: number;
  /** When the process started, as the kernel counts it (Linux): a reused pid is not taken for it. */
  readonly processStart?: string;
  readonly startedAt: string;
  /** Random, per opening: a controller removes only its own record. */
  readonly token: string;
}

export interface StoreHold {
  /** Removes the holder file, if it still names this opening. */
  release(): Promise<void>;
}

export const holderFile = (storePath: string): string => `${storePath}.holder`;

/** A SQLite path that names a file, not one of SQLite's names for a database without one of its own. */
export const isStoreFile = (path: string): boolean => path !== '' && path !== ':memory:' && !path.startsWith('file:');

/**
 * Records this process as the holder of the store at `storePath`: the file is created exclusively, so of
 * two controllers that start on one store together one holds it and the other is refused; a file left by
 * a controller that is gone is taken over.
 */
export async function holdStore(storePath: string): Promise<StoreHold> {
  const file = holderFile(storePath);
  const start = processStart(process.pid);
  const own: StoreHolder = {
    pid: process.pid,
    ...(start ? { processStart: start } : {}),
    startedAt: new Date().toISOString(),
    token: randomBytes(8).toString('hex'),
  };
  await claimExclusively(file, own, {
    read: () => readHolder(storePath),
    held: (holder) => storeInUse(storePath, holder),
    contested: () =>
      new InputError('STORE_IN_USE', `another controller is starting on the store ${resolve(storePath)} now`, {
        hint: 'one SQLite store serves one controller: start one at a time',
      }),
  });
  return {
    async release() {
      if ((await readHolder(storePath))?.token === own.token) await rm(file, { force: true });
    },
  };
}

/** The refusal of a store that another controller's process holds. */
export function storeInUse(storePath: string, holder: StoreHolder): InputError {
  return new InputError(
    'STORE_IN_USE',
    `another controller runs on the store ${resolve(storePath)} (process ${holder.pid}, since ${holder.startedAt})`,
    {
      hint:
        'one SQLite store serves one controller: stop that one first, or give this one a data directory of its ' +
        'own (--data-dir); several controllers share a PostgreSQL store (docs/replicas.md)',
    },
  );
}

/** The controller that holds the store, if its holder file names a process that still runs. */
export async function liveHolder(storePath: string): Promise<StoreHolder | undefined> {
  const holder = await readHolder(storePath);
  return holder && holderRuns(holder) ? holder : undefined;
}

/** Whether the process a holder names still runs, and is the same process where the kernel tells. */
export const holderRuns = (holder: Pick<StoreHolder, 'pid' | 'processStart'>): boolean => processRuns(holder);

async function readHolder(storePath: string): Promise<StoreHolder | undefined> {
  try {
    const parsed = JSON.parse(await readFile(holderFile(storePath), 'utf8')) as Partial<StoreHolder>;
    if (typeof parsed.pid !== 'number' || !Number.isInteger(parsed.pid) || parsed.pid <= 0) return undefined;
    return {
      pid: parsed.pid,
      ...(typeof parsed.processStart === 'string' ? { processStart: parsed.processStart } : {}),
      startedAt: typeof parsed.startedAt === 'string' ? parsed.startedAt : '?',
      token: typeof parsed.token === 'string' ? parsed.token : '',
    };
  } catch {
    return undefined;
  }
}
