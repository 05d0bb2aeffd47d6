/** The programs the benchmark runs, checked before anything starts, all missing ones named at once. */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { RuntimeFailure } from '../../src/shared/errors.ts';
import { settings } from './settings.ts';

function found(program: string): boolean {
  const candidates = program.includes('/')
    ? [program]
    : (process.env.PATH ?? '').split(delimiter).map((directory) => join(directory, program));
  return candidates.some((candidate) => {
    try {
      accessSync(candidate, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

export function checkPrerequisites(): void {
  const needed: { program: string; from: string }[] = [
    { program: 'iperf3', from: 'the Debian package iperf3' },
    { program: '/usr/sbin/sshd', from: 'openssh-server' },
    { program: 'ssh', from: 'openssh-client' },
    { program: 'ssh-keygen', from: 'openssh-client' },
    { program: 'getconf', from: 'libc-bin' },
    ...['initdb', 'postgres', 'createdb', 'pgbench'].map((name) => ({
      program: join(settings.postgresBin, name),
      from: 'postgresql-15 (or set BENCH_POSTGRES_BIN)',
    })),
  ];
  const missing = needed.filter(({ program }) => !found(program));
  if (missing.length > 0) {
    throw new RuntimeFailure('PREREQUISITE_MISSING', `missing ${missing.map(({ program }) => program).join(', ')}`, {
      hint: `install ${[...new Set(missing.map(({ from }) => from))].join(', ')}`,
    });
  }
  if (!found(settings.bundle))
    throw new RuntimeFailure('PREREQUISITE_MISSING', `no bundle at ${settings.bundle}`, {
      hint: 'run npm run build (npm run bench builds it first)',
    });
}
