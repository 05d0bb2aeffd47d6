/**
 * One running process per identity directory (a node's <home>/node, a relay's <home>/relay): the first
 * to start claims it with a runtime file created exclusively, naming its process; a second start is
 * refused while that process lives. A file left by a process that died is taken over. No process ever
 * removes a runtime file that names another process.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { InputError } from '../shared/errors.ts';
import { claimExclusively, holderRuns as processRuns } from '../shared/exclusive-claim.ts';
import { processStart } from '../shared/process-state.ts';

/** What a runtime file says about the process that holds the directory. */
export interface RuntimeRecord {
  readonly pid: number;
  /** The process's start time as the kernel counts it (Linux), so a reused pid is not taken for it. */
  readonly processStart?: string;
  readonly startedAt: string;
  /** Random, per start: the claim's own, so that a process releases only its own record. */
  readonly token?: string;
  /** Known once the status server listens. */
  readonly statusPort?: number;
  /** host:port of a relay's status server, which may listen elsewhere than on 127.0.0.1. */
  readonly statusAddress?: string;
  /** A node's: the file it reads again on a reload (its own file, or the copy kept in its home). */
  readonly configuration?: string;
}

export interface HomeClaim {
  /** Adds what became known (the status port, the configuration file) to the runtime file. */
  update(fields: Partial<Pick<RuntimeRecord, 'statusPort' | 'statusAddress' | 'configuration'>>): Promise<void>;
  /** Removes the runtime file, if it still names this process. */
  release(): Promise<void>;
}

export interface ClaimOptions {
  /** The runtime file, e.g. <home>/node/runtime.json. */
  readonly file: string;
  /** What runs there, for the refusal: "a node", "a relay". */
  readonly what: string;
  /** The PORTAL_HOME the file belongs to, for the refusal. */
  readonly home: string;
}

/** Starts what runs on the home once it is claimed; a start that fails gives the claim back. */
export async function startClaimed<T>(options: ClaimOptions, start: (claim: HomeClaim) => Promise<T>): Promise<T> {
  const claim = await claimHome(options);
  try {
    return await start(claim);
  } catch (error) {
    await claim.release();
    throw error;
  }
}

export async function claimHome(options: ClaimOptions): Promise<HomeClaim> {
  const start = processStart(process.pid);
  const own: RuntimeRecord = {
    pid: process.pid,
    ...(start ? { processStart: start } : {}),
    token: randomBytes(8).toString('hex'),
    startedAt: new Date().toISOString(),
  };
  await mkdir(dirname(options.file), { recursive: true, mode: 0o700 });
  await claimExclusively(options.file, own, {
    read: readRuntime,
    held: (holder) => {
      const where = holder.statusAddress ?? (holder.statusPort ? `127.0.0.1:${holder.statusPort}` : undefined);
      const port = where ? `, status on ${where}` : '';
      return new InputError(
        'ALREADY_RUNNING',
        `${options.what} runs already with PORTAL_HOME=${options.home} (process ${holder.pid}, ` +
          `started ${holder.startedAt}${port})`,
        {
          hint:
            `one ${options.what.replace(/^an? /, '')} per PORTAL_HOME: stop that one first, ` +
            'or give this one another PORTAL_HOME',
        },
      );
    },
    contested: () =>
      new InputError('ALREADY_RUNNING', `${options.what} is starting with PORTAL_HOME=${options.home} at this moment`, {
        hint: 'start one process per PORTAL_HOME',
      }),
  });
  return claimOf(options.file, own);
}

/** The record in a runtime file, if there is one that names a process still running. */
export async function runningHolder(file: string): Promise<RuntimeRecord | undefined> {
  const holder = await readRuntime(file);
  return holder && holderRuns(holder) ? holder : undefined;
}

async function readRuntime(file: string): Promise<RuntimeRecord | undefined> {
  try {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as Partial<RuntimeRecord>;
    if (typeof parsed.pid !== 'number' || !Number.isInteger(parsed.pid) || parsed.pid <= 0) return undefined;
    return { startedAt: '?', ...parsed, pid: parsed.pid };
  } catch {
    return undefined;
  }
}

function claimOf(file: string, own: RuntimeRecord): HomeClaim {
  let record = own;
  const ours = async () => (await readRuntime(file))?.token === own.token;
  return {
    async update(fields) {
      if (!(await ours())) return;
      record = { ...record, ...fields };
      await writeFile(`${file}.${own.token}.tmp`, `${JSON.stringify(record)}\n`, { mode: 0o600 });
      await rename(`${file}.${own.token}.tmp`, file);
    },
    async release() {
      if (await ours()) await rm(file, { force: true });
    },
  };
}

/** Whether the process a record names still runs (and is the same process, where the kernel says). */
function holderRuns(holder: RuntimeRecord): boolean {
  // A zombie is gone too (processGone): a node killed where nothing reaps it holds nothing; nor does
  // this process's own earlier record.
  return holder.pid !== process.pid && processRuns(holder);
}
