/** What /proc says about a process: CPU time, resident memory, children, open-files limit. */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());

/** Fields of /proc/PID/stat after the command name, which may hold spaces and parentheses. */
function statFields(pid: number): string[] | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** utime + stime of one process (all its threads) in seconds; 0 once it is gone. */
export function cpuSeconds(pid: number): number {
  const fields = statFields(pid);
  // After the name: state(0) ppid(1) … utime(11) stime(12), numbered from field 3 of the man page.
  return fields ? (Number(fields[11]) + Number(fields[12])) / clockTicks : 0;
}

export function totalCpuSeconds(pids: readonly number[]): number {
  return pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
}

/** VmRSS in KiB; 0 once the process is gone. */
export function rssKiB(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

/** Every live process below `pid`, found by walking parent pids. */
export function descendants(pid: number): number[] {
  const parents = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = statFields(Number(entry));
    if (!fields) continue;
    const parent = Number(fields[1]);
    parents.set(parent, [...(parents.get(parent) ?? []), Number(entry)]);
  }
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    for (const child of parents.get(queue.shift() as number) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

/** A process and everything below it. */
export const tree = (pid: number): number[] => [pid, ...descendants(pid)];

/** This process's limit on open files (Node can read it, not raise it). */
export function openFilesLimit(): { soft: number; hard: number } {
  const match = /^Max open files\s+(\S+)\s+(\S+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
  const value = (text: string | undefined) =>
    text === undefined || text === 'unlimited' ? Number.MAX_SAFE_INTEGER : Number(text);
  return { soft: value(match?.[1]), hard: value(match?.[2]) };
}
