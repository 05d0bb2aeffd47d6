/**
 * The data path reads every chunk into a new buffer, memory V8 counts as external. On Node.js 24 (V8
 * 13.6) every 64 MB of such allocations starts a full collection by itself ("external memory
 * pressure"), however little of it is still alive: at 6 Gbit/s a relay ran ten full collections a
 * second, a third of its CPU. Counting external memory within the heap's global limit instead keeps
 * full collections for when memory is actually held.
 */
import { setFlagsFromString } from 'node:v8';

/** The first Node.js whose V8 has the flag; older ones would print an unknown-flag error. */
const firstWithFlag = 24;

export const countsExternalMemoryInHeapLimit = (nodeVersion: string): boolean =>
  Number(nodeVersion.split('.')[0]) >= firstWithFlag;

export function tuneHeapForDataPath(): void {
  if (countsExternalMemoryInHeapLimit(process.versions.node))
    setFlagsFromString('--external-memory-accounted-in-global-limit');
}
