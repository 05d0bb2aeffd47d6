/**
 * The runtime's own metrics (CPU, memory, event loop, garbage collection) under a process's prefix.
 *
 * The event loop's delay is sampled every 100 ms, not prom-client's 10 ms: each sample wakes the loop,
 * and at 10 ms an idle node, relay or controller spent about 8 ms of CPU a second on the samples alone
 * (most of what it spent idle). A stall still shows: one that holds the loop across a sample delays it
 * by as much.
 */
import { collectDefaultMetrics, type Registry } from 'prom-client';

const eventLoopSampleMs = 100;

export function collectProcessMetrics(registry: Registry, prefix: string): void {
  collectDefaultMetrics({ register: registry, prefix, eventLoopMonitoringPrecision: eventLoopSampleMs });
}
