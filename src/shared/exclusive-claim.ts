/**
 * A file that one live process at a time may hold: created exclusively (written aside, then linked into
 * place), naming its process; a file left by a process that is gone is removed by one claimant at a time
 * (under a lock directory) and claimed again. No claimant ever removes a file that names a process that
 * still runs. Node and relay homes (src/node/home-claim.ts) and controllers' SQLite stores
 * (src/controller/store/store-holder.ts) are held this way.
 */
import { link, mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { processGone, processStart } from './process-state.ts';

/** What a claimed file says of its holder, at least. */
export interface ClaimRecord {
  readonly pid: number;
  /** The process's start time as the kernel counts it (Linux), so a reused pid is not taken for it. */
  readonly processStart?: string;
  readonly startedAt: string;
  /** Random, per claim: a process releases only its own. */
  readonly token?: string;
}

/** A claim's lock older than this was left by a claimant that died, and is removed. */
const staleLockMs = 10_000;
/** How long a claimant waits for another that holds the lock before it looks again. */
const claimRetryMs = 20;
/** How many times a claimant looks before it gives up: with claimRetryMs, two seconds of another's lock. */
const claimAttempts = 100;

export interface ClaimWays<R extends ClaimRecord> {
  /** The record in the file, if it reads as one. */
  readonly read: (file: string) => Promise<R | undefined>;
  /** The error for a file that a live process holds. */
  readonly held: (holder: R) => Error;
  /** The error for a claim still contested after every attempt (another claimant starting now). */
  readonly contested: () => Error;
}

/** Claims `file` with `own`, or throws what `ways` says: held by a live process, or contested. */
export async function claimExclusively<R extends ClaimRecord>(file: string, own: R, ways: ClaimWays<R>): Promise<void> {
  for (let attempt = 0; attempt < claimAttempts; attempt += 1) {
    if (await createExclusively(file, own)) return;
    const holder = await ways.read(file);
    // This process's own earlier record (a part started again in it) holds nothing against it.
    if (holder && holder.pid !== process.pid && holderRuns(holder)) throw ways.held(holder);
    // Left by a process that is gone: taken over by one claimant at a time, then created again.
    if (!(await removeStale(file, holder, ways.read)))
      await new Promise((resolve) => setTimeout(resolve, claimRetryMs));
  }
  throw ways.contested();
}

/** Whether the process a record names still runs, and is the same process where the kernel tells. */
export function holderRuns(holder: Pick<ClaimRecord, 'pid' | 'processStart'>): boolean {
  if (processGone(holder.pid)) return false;
  const now = processStart(holder.pid);
  return holder.processStart === undefined || now === undefined || now === holder.processStart;
}

/** Creates `file` holding `record`, whole, unless it exists. */
async function createExclusively(file: string, record: ClaimRecord): Promise<boolean> {
  const aside = `${file}.${record.token ?? process.pid}.tmp`;
  await writeFile(aside, `${JSON.stringify(record)}\n`, { mode: 0o600 });
  try {
    await link(aside, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return false;
  } finally {
    await rm(aside, { force: true });
  }
}

/**
 * Removes the file if it still holds `seen` (a record of a process that is gone), under a lock
 * directory, so that of two claimants that found the same stale file only one removes it; false when
 * another holds the lock (a lock older than staleLockMs is left by one that died, and removed).
 */
async function removeStale<R extends ClaimRecord>(
  file: string,
  seen: R | undefined,
  read: (file: string) => Promise<R | undefined>,
): Promise<boolean> {
  const lock = `${file}.lock`;
  try {
    await mkdir(lock);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const age = Date.now() - ((await stat(lock).catch(() => undefined))?.mtimeMs ?? Date.now());
    if (age > staleLockMs) await rm(lock, { recursive: true, force: true });
    return false;
  }
  try {
    const now = await read(file);
    if (now?.pid === seen?.pid && now?.token === seen?.token) await rm(file, { force: true });
    return true;
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}
