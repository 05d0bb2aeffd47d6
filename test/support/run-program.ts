/** A program run to completion, as a person runs a command: its output and exit code, whatever they are. */
import { spawn } from 'node:child_process';
import { once } from 'node:events';

export interface Finished {
  /** The exit code; null when a signal ended the program. */
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface RunProgramOptions {
  /** Added to this process's environment; an undefined value removes a variable. */
  readonly env?: NodeJS.ProcessEnv;
  /** @default this process's working directory */
  readonly cwd?: string;
  /** Written to the program's standard input, which is then closed. @default nothing */
  readonly input?: string;
}

/** Runs `command` to its end; never throws on a non-zero exit, so a test asserts the code and output it expects. */
export async function runProgram(
  command: string,
  args: readonly string[],
  options: RunProgramOptions = {},
): Promise<Finished> {
  const child = spawn(command, args, {
    env: { ...process.env, ...options.env },
    cwd: options.cwd,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  // A program that exits without reading all its input must not fail the test with EPIPE.
  child.stdin.on('error', () => undefined);
  child.stdin.end(options.input ?? '');
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout, stderr };
}
