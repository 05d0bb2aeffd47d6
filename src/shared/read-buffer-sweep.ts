/**
 * Sweeps dead read buffers with a young-generation collection before they start a full one. On
 * Node.js 24 a process that moves small messages between a TLS connection and a plain one (an inlet,
 * an outlet) leaves about 64 KiB of dead read buffer outside the heap per message, where Node.js 20
 * left a few bytes; the buffers die young, but an echo of 64-byte messages allocates so little inside
 * the heap that the young generation is rarely collected. The dead buffers then fill the room under
 * the heap's global limit (external memory counts in it, see heap-tuning.ts), and V8 starts a full
 * mark-compact every 64 MB or so: measured on an inlet, two per 4,000 round trips, each marking for
 * about 20 ms in steps of up to 8 ms and pausing 2 to 6 ms: the round trip's slowest, and part of
 * its p99. A young-generation collection frees the same buffers in well under a
 * millisecond: one is made whenever the memory outside the heap has grown by `growthBytes` since the
 * last, looked at every `intervalMs`.
 */
import { getHeapStatistics } from 'node:v8';
import { exposedGc, optionsWork, type Collect } from './exposed-gc.ts';
import { readBufferCheckMs, readBufferGrowthBytes } from './limits.ts';

export interface ReadBufferSweepOptions {
  /** @default readBufferCheckMs */
  readonly intervalMs?: number;
  /** @default readBufferGrowthBytes */
  readonly growthBytes?: number;
  /** What is read for the memory outside the heap. @default V8's external memory */
  readonly external?: () => number;
  /** The collection. @default V8's, where it honours a young-generation request (Node.js 22 and later) */
  readonly collect?: Collect;
}

/** Starts looking; returns the function that stops. Does nothing where a young collection cannot be asked for. */
export function sweepDeadReadBuffers(options: ReadBufferSweepOptions = {}): () => void {
  const collect = options.collect ?? (optionsWork() ? exposedGc() : undefined);
  if (!collect) return () => undefined;
  const external = options.external ?? (() => getHeapStatistics().external_memory);
  const growth = options.growthBytes ?? readBufferGrowthBytes;
  let after = external();
  const timer = setInterval(() => {
    const now = external();
    // What is still alive after a sweep is the new level: live buffers never trigger another.
    if (now < after) after = now;
    if (now - after < growth) return;
    collect({ type: 'minor', execution: 'sync' });
    after = external();
  }, options.intervalMs ?? readBufferCheckMs);
  timer.unref();
  return () => clearInterval(timer);
}
