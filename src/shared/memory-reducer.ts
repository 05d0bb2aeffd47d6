/**
 * Gives memory back after a burst. Under a burst (a flood of handshakes, a spike of clients) V8 grows
 * its heap, and its young generation above all, and keeps what it grew long after the burst is over:
 * a controller measured here held 35 MB of empty heap a minute after a 10-second flood, with the live
 * heap back to its size before. Every `intervalMs`, when that much of the heap is committed but
 * unused, one forced full collection returns it (a few milliseconds for such a heap), and the buffers
 * outside the heap that dead sockets held go with it; when it is not, this costs a look at the heap's
 * figures.
 *
 * The buffers of a data path live outside the heap, and a burst of clients can leave many of them dead
 * in a heap that is neither grown nor in use: an outlet measured here held 81 MB of dead socket
 * buffers a minute after 2,000 clients had left, with 4 MB of its heap unused, since an idle process
 * allocates nothing that would start the collection that frees them. So the buffers grown by that
 * much since the last look start the collection too.
 *
 * A collection during the burst finds its buffers alive and takes their level for the live one; the
 * burst's buffers, dead once it ends, then never grow past it (an outlet measured here held 40 MB of
 * them a minute after a burst on a loaded machine). So a collection that leaves the buffers that much
 * above the least they ever came to is followed by another at the next look, and, while they stay
 * there, at looks ever further apart (1, 1, 2, 4 … 32 looks): a process whose buffers are live pays
 * for a few collections, not one a look. */
import { exposedGc, optionsWork } from './exposed-gc.ts';
import { heapCheckMs, heapSlackBytes } from './limits.ts';
import { allocatorTrim } from './malloc-trim.ts';

/** Follow-ups of buffers still in use come at most 2^5 = 32 looks apart (about 11 minutes at 20 s). */
const maxFollowUpDoublings = 5;

export interface MemoryReducerOptions {
  /** How often the heap is looked at. @default heapCheckMs */
  readonly intervalMs?: number;
  /** Committed but unused heap worth a collection. @default heapSlackBytes */
  readonly slackBytes?: number;
  /** Growth of the buffers outside the heap since the last collection that is worth one. @default heapSlackBytes */
  readonly bufferSlackBytes?: number;
}

/** Starts looking; returns the function that stops. Does nothing where the runtime offers no collection. */
export function reduceMemoryAfterBursts(options: MemoryReducerOptions = {}): () => void {
  const collect = exposedGc();
  if (!collect) return () => undefined;
  const run = collect;
  // From V8 12 (Node.js 22) a collection without options empties the young generation but keeps it
  // committed (32 MiB after a burst on 22, 128 MiB on 24): only the 'last-resort' flavour hands it
  // back, with the old generation's free pages.
  const withOptions = optionsWork();
  const slack = options.slackBytes ?? heapSlackBytes;
  const bufferSlack = options.bufferSlackBytes ?? heapSlackBytes;
  const trim = allocatorTrim();
  // What the buffers came to after the last collection (or the lowest seen since): the live ones.
  let liveBuffers = process.memoryUsage().arrayBuffers;
  // The resident size once the allocator last gave back what it could; what grew past it since may be
  // free memory that only a trim returns. A process that stays busy sets this high and trims no more.
  let trimmedRss = process.memoryUsage.rss();
  let trimming = false;
  // The least the buffers ever came to (the process at rest), and the follow-up of a collection that
  // found them above it: looks until the next one (0: none due), and follow-ups that found them so.
  let restingBuffers = liveBuffers;
  let followUpIn = 0;
  let stillInUse = 0;
  const timer = setInterval(() => {
    const { heapTotal, heapUsed, arrayBuffers, rss } = process.memoryUsage();
    liveBuffers = Math.min(liveBuffers, arrayBuffers);
    restingBuffers = Math.min(restingBuffers, arrayBuffers);
    const followUp = followUpIn > 0 && --followUpIn === 0;
    const collectNow = heapTotal - heapUsed >= slack || arrayBuffers - liveBuffers >= bufferSlack || followUp;
    if (collectNow) {
      if (withOptions) run({ type: 'major', execution: 'sync', flavor: 'last-resort' });
      else run();
      liveBuffers = process.memoryUsage().arrayBuffers;
      restingBuffers = Math.min(restingBuffers, liveBuffers);
      const inUse = liveBuffers - restingBuffers >= bufferSlack;
      stillInUse = inUse && followUp ? stillInUse + 1 : 0;
      followUpIn = inUse ? 2 ** Math.min(Math.max(stillInUse - 1, 0), maxFollowUpDoublings) : 0;
    }
    if (!trim || trimming || (!collectNow && rss - trimmedRss < slack)) return;
    trimming = true;
    trim(() => {
      trimming = false;
      trimmedRss = process.memoryUsage.rss();
    });
  }, options.intervalMs ?? heapCheckMs);
  timer.unref();
  return () => clearInterval(timer);
}
