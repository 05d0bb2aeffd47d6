/**
 * `npm run bench`: the portal against `ssh -L` (a real sshd on loopback, aes128-gcm) and against no
 * tunnel at all, measured in one run: pgbench against a throwaway PostgreSQL 15 (select-only and
 * TPC-B, 8 clients and 1), iperf3 throughput, 64-byte round trips, new connection to first byte, CPU
 * seconds per GiB carried, and resident memory per idle connection. Portal is measured on each path
 * this build offers (relayed; direct once the node configuration knows tcp-inlet.direct). Prints the
 * figures, the ratios to ssh -L and the targets in one table, and beside it the runtime floor: the
 * same figures through chains of bare Node.js TCP proxies, as many processes as each path has. Needs
 * iperf3, sshd, ssh and PostgreSQL 15 (Debian: iperf3, openssh-server, openssh-client, postgresql-15).
 * Not part of npm test.
 *
 * Settings: BENCH_SECONDS, BENCH_REPEATS, BENCH_ROUND_TRIPS, BENCH_CONNECTIONS, BENCH_PGBENCH_SECONDS,
 * BENCH_PGBENCH_ROUNDS, BENCH_PGBENCH_SCALE, BENCH_CPU_BYTES, BENCH_IDLE_CONNECTIONS,
 * BENCH_IDLE_SECONDS, BENCH_POSTGRES_BIN, BENCH_FLOORS (0 leaves the runtime floor out), BENCH_PHASES (a
 * subset of throughput,latency,cpu,pgbench,idle), BENCH_PATHS (relayed, direct or both), BENCH_NODE (the
 * Node.js of the nodes: 24, the shipped one, unless set), BENCH_NODE_ARGS;
 * see scripts/bench/settings.ts.
 */
import { PortalError } from '../src/shared/errors.ts';

// Ctrl-C reaches this process twice (from the terminal, and relayed by tsx): every signal is caught,
// so that the second one does not end the process before it has stopped its helpers.
let interrupted = false;
let cleanup: () => Promise<void> = () => Promise.resolve();
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    if (interrupted) return;
    interrupted = true;
    console.error(`bench: ${signal}, stopping everything it started`);
    void cleanup().then(() => process.exit(130));
  });
}

try {
  // Imported here, so that a bad setting (read as the modules load) is reported like any other error.
  const run = await import('./bench/run.ts');
  cleanup = run.cleanup;
  await run.main();
} catch (error) {
  if (!interrupted) {
    const hint = error instanceof PortalError && error.hint ? `; ${error.hint}` : '';
    console.error(`bench: ${(error as Error).message}${hint}`);
    process.exitCode = error instanceof PortalError ? error.exitCode : 1;
  }
} finally {
  await cleanup();
}
