/**
 * The chaos scenario's clients. The data path's: a new PostgreSQL connection through the inlet every
 * 10 ms, each committing one row of its own (`INSERT … seq`) and closing, with postgres.js; it notes
 * when each commit was acknowledged and when each attempt failed. The control plane's: an administrator
 * issuing a ticket every 100 ms, through whichever controller replica answers.
 */
import postgres from 'postgres';
import type { Postgres } from './postgres.ts';
import { ticketInProcess } from './ticket-in-process.ts';

export interface Attempt {
  readonly seq: number;
  /** performance.now() when it began and when it ended. */
  readonly startedAt: number;
  readonly endedAt: number;
  readonly ok: boolean;
  readonly error?: string;
}

export interface RunningClient {
  readonly attempts: readonly Attempt[];
  stop(): Promise<void>;
}

/** One attempt may take this long before it counts as failed (a connection that hangs is a failure). */
const attemptLimitMs = 5_000;

export const commitEveryMs = 10;

export async function createChaosTable(target: Postgres): Promise<void> {
  const sql = postgres({ ...connection(target, target.port), onnotice: () => {} });
  try {
    await sql`CREATE TABLE chaos (seq integer PRIMARY KEY, at timestamptz NOT NULL DEFAULT now())`;
    await sql`CREATE TABLE chaos_bypass (seq integer PRIMARY KEY, at timestamptz NOT NULL DEFAULT now())`;
  } finally {
    await sql.end({ timeout: 1 });
  }
}

/** Every seq in the target's table, read directly (not through the portal). */
export async function committedSeqs(target: Postgres): Promise<Set<number>> {
  const sql = postgres({ ...connection(target, target.port), onnotice: () => {} });
  try {
    const rows = await sql<{ seq: number }[]>`SELECT seq FROM chaos`;
    return new Set(rows.map((row) => row.seq));
  } finally {
    await sql.end({ timeout: 1 });
  }
}

function connection(target: Postgres, port: number) {
  return {
    host: '127.0.0.1',
    port,
    user: target.user,
    password: target.password,
    database: target.database,
    max: 1,
    connect_timeout: attemptLimitMs / 1000,
    idle_timeout: 0,
    prepare: false,
  };
}

/** Attempts under way at once at most: a stall shows as a gap, not as a pile of connections. */
const inFlightMax = 16;

/**
 * Begins an attempt through `port` every commitEveryMs, each a new connection that commits one row; an
 * attempt takes longer than the period (a new connection authenticates), so several are under way.
 */
export function startCommittingClient(target: Postgres, port: number): RunningClient {
  const attempts: Attempt[] = [];
  const underWay = new Set<Promise<void>>();
  let seq = 0;
  const once = async (mine: number): Promise<Attempt> => {
    const startedAt = performance.now();
    const sql = postgres({ ...connection(target, port), onnotice: () => {} });
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        sql`INSERT INTO chaos (seq) VALUES (${mine})`,
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer in ${attemptLimitMs} ms`)), attemptLimitMs);
        }),
      ]);
      return { seq: mine, startedAt, endedAt: performance.now(), ok: true };
    } catch (error) {
      return { seq: mine, startedAt, endedAt: performance.now(), ok: false, error: (error as Error).message };
    } finally {
      clearTimeout(timer);
      await sql.end({ timeout: 0 }).catch(() => undefined);
    }
  };
  const ticker = setInterval(() => {
    if (underWay.size >= inFlightMax) return;
    const attempt = once(++seq).then((done) => {
      attempts.push(done);
      underWay.delete(attempt);
    });
    underWay.add(attempt);
  }, commitEveryMs);
  return {
    attempts,
    async stop() {
      clearInterval(ticker);
      await Promise.all(underWay);
    },
  };
}

/** Issues a ticket every 100 ms as the administrator of `adminHome`: the control plane's writes. */
export function startControlPlaneWriter(adminHome: string): RunningClient {
  const attempts: Attempt[] = [];
  let running = true;
  let seq = 0;
  const loop = (async () => {
    while (running) {
      const startedAt = performance.now();
      const mine = ++seq;
      try {
        await ticketInProcess(adminHome, ['--attribute', 'chaos-probe', '--expires-in', '1m']);
        attempts.push({ seq: mine, startedAt, endedAt: performance.now(), ok: true });
      } catch (error) {
        attempts.push({ seq: mine, startedAt, endedAt: performance.now(), ok: false, error: (error as Error).message });
      }
      const wait = startedAt + 100 - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
  })();
  return {
    attempts,
    async stop() {
      running = false;
      await loop;
    },
  };
}

/**
 * The machine's own pauses: one connection straight to the target (past every process the scenario
 * kills) committing a row every commitEveryMs, one at a time. Its gaps are what no kill can cause; it
 * costs the machine little (no new connection per commit), so that it measures the load rather than
 * adding to it.
 */
export function startPauseProbe(target: Postgres): RunningClient {
  const attempts: Attempt[] = [];
  const sql = postgres({ ...connection(target, target.port), onnotice: () => {} });
  let seq = 0;
  let stopped = false;
  const running = (async () => {
    while (!stopped) {
      const startedAt = performance.now();
      const mine = ++seq;
      try {
        await sql`INSERT INTO chaos_bypass (seq) VALUES (${mine})`;
        attempts.push({ seq: mine, startedAt, endedAt: performance.now(), ok: true });
      } catch (error) {
        attempts.push({ seq: mine, startedAt, endedAt: performance.now(), ok: false, error: (error as Error).message });
      }
      await new Promise((resolve) => setTimeout(resolve, commitEveryMs));
    }
  })();
  return {
    attempts,
    async stop() {
      stopped = true;
      await running;
      await sql.end({ timeout: 1 }).catch(() => undefined);
    },
  };
}
