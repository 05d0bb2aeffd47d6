/** What the kernel says of another process, by pid: whether it is gone, and when it started (Linux tells both). */
import { readFileSync } from 'node:fs';

/**
 * The fields of /proc/<pid>/stat after the command name (which may hold spaces and parentheses); none where
 * /proc does not tell.
 */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** When the process started, in clock ticks since boot (field 22), so that a reused pid is told apart. */
export function processStart(pid: number): string | undefined {
  return statFields(pid)?.[19] || undefined;
}

/** No such process, or a zombie: exited, but not reaped where nothing reaps orphans. Another user's process runs. */
export function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
  return /^[ZX]$/.test(statFields(pid)?.[0] ?? '');
}
