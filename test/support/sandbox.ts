/**
 * A sandbox for scripts written for another machine: a temporary root, and a bin folder of recording
 * stand-ins for the commands that would touch the real system (mount, systemctl, dnf, …).
 */
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemPathWithoutPortal } from './system-path.ts';

export interface Sandbox {
  readonly dir: string;
  readonly root: string;
  readonly bin: string;
  /** The system's programs without a `portal` this machine may have: PATH after `bin` (system-path.ts). */
  readonly system: string;
  /** Every recorded call, one "command args…" line each. */
  calls(): Promise<string[]>;
  /**
   * Adds a stand-in: a body run with "$@" by bash, or by sh where it needs nothing of bash (sh starts
   * about a third faster, and a script may call stand-ins thousands of times); its call is recorded first.
   */
  stub(command: string, body?: string, shell?: 'bash' | 'sh'): Promise<void>;
  remove(): Promise<void>;
}

export async function createSandbox(): Promise<Sandbox> {
  const dir = await mkdtemp(join(tmpdir(), 'portal-sandbox-'));
  const root = join(dir, 'root');
  const bin = join(dir, 'bin');
  const callLog = join(dir, 'calls.log');
  await Promise.all([mkdir(root), mkdir(bin)]);
  await writeFile(callLog, '');
  const system = systemPathWithoutPortal();
  return {
    dir,
    root,
    bin,
    system,
    async calls() {
      return (await readFile(callLog, 'utf8')).split('\n').filter(Boolean);
    },
    async stub(command, body = 'exit 0', shell = 'bash') {
      const path = join(bin, command);
      await writeFile(path, `#!/bin/${shell}\necho "${command} $*" >> '${callLog}'\n${body}\n`);
      await chmod(path, 0o755);
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
