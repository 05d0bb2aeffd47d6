/**
 * Garbage collection for processes that move bytes. Every socket read allocates a buffer outside the
 * JavaScript heap; at a few hundred MB/s the young generation grows to its largest, and V8 then starts
 * a full mark-compact whenever the room left under the old generation's limit is no larger than the
 * young generation, which, for a small heap whose limit is about twice its live size, is all the time:
 * a relay measured here spent a third of a core marking a 16 MB heap over and over. A larger growth
 * factor leaves that room (the limit becomes five times the live size, a few tens of MB for these
 * processes) and the full collections stop. V8 reads this flag each time it sets the limit, so
 * setting it at start-up is enough.
 */
import { setFlagsFromString } from 'node:v8';

export function tuneGarbageCollectionForThroughput(): void {
  setFlagsFromString('--heap-growing-percent=400');
}
