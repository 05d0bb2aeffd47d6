/**
 * Runs the real `portal` CLI in a child process: the bundle (dist/), which the integration suite builds
 * first. The sources under tsx would cost each run a second and a half of compiling.
 */
import { spawn } from 'node:child_process';
import { portalBundle } from './processes.ts';
import { projectRoot } from './usecases.ts';

export interface PortalRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface RunOptions {
  readonly cwd?: string;
  readonly env?: Readonly<Record<string, string | undefined>>;
}

export function runPortal(args: readonly string[], options: RunOptions = {}): Promise<PortalRun> {
  const env = { ...process.env, NODE_DEVELOPER: undefined, ...options.env };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [portalBundle, ...args], {
      cwd: options.cwd ?? projectRoot,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** 1-based line and column of the first occurrence of `needle` in `text`. */
export function positionOf(text: string, needle: string): { line: number; column: number } {
  const offset = text.indexOf(needle);
  if (offset < 0) throw new Error(`"${needle}" not found`);
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: (before.at(-1)?.length ?? 0) + 1 };
}
