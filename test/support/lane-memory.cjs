// A lane hands back, between files, the memory a file's tests left it holding. A data test's buffers
// leave its lane at 1.4 GB resident, and every program the lane starts after that pays for it: fork
// copies the page tables, 4 ms of CPU per spawn at 46 MB resident and 21 ms at 1 GB (measured here).
// Only a lane past the threshold collects and trims: a full collection costs a lane of 200 MB 0.1 s.
const { setTimeout } = require('node:timers');
const { setFlagsFromString } = require('node:v8');
const { runInNewContext } = require('node:vm');

const thresholdBytes = 400 * 1024 * 1024;
let tools;

function lookUp() {
  let collect;
  let trim;
  try {
    setFlagsFromString('--expose-gc');
    collect = runInNewContext('typeof gc === "function" ? gc : undefined');
  } catch {
    collect = undefined;
  }
  try {
    // glibc keeps freed buffers in its heaps; malloc_trim gives whole free pages back (where there is glibc).
    const malloc = require('koffi').load('libc.so.6').func('int malloc_trim(size_t pad)');
    trim = () => malloc(0);
  } catch {
    trim = undefined;
  }
  return { collect, trim };
}

/**
 * Collects when the lane holds more than the threshold, and a moment later (V8 frees dead buffers' memory
 * on its own threads after a collection) collects again and trims; `done` hears the resident sizes.
 */
function releaseMemory(done = () => undefined) {
  const before = process.memoryUsage.rss();
  if (before < thresholdBytes) return;
  tools ??= lookUp();
  tools.collect?.();
  setTimeout(() => {
    tools.collect?.();
    tools.trim?.();
    done({ before, after: process.memoryUsage.rss() });
  }, 250).unref();
}

module.exports = { releaseMemory };
