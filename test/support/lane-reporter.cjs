// The reporter of one lane of `npm test` (scripts/test-run.mjs): mocha's spec output for the log, and
// for the runner, one JSON line per test file on descriptor 3: its time, its counts, and the programs
// it started that were still running when it ended (a test stops everything it starts).
const { readFileSync, writeSync } = require('node:fs');
const Mocha = require('mocha');
const { exitWhenLingering } = require('./exit-guard.cjs');
const { releaseMemory } = require('./lane-memory.cjs');
const { survivors, stop } = require('./lane-survivors.cjs');

const { EVENT_RUN_END, EVENT_SUITE_BEGIN, EVENT_TEST_PASS, EVENT_TEST_FAIL } = Mocha.Runner.constants;
const marker = process.env.PORTAL_TEST_LANE;

/** A process may take a moment to exit after its test has signalled it: look twice before blaming. */
function settledSurvivors() {
  const first = survivors(marker);
  if (first.length === 0) return first;
  const until = Date.now() + 2_000;
  while (Date.now() < until) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
  const again = new Set(survivors(marker).map((process) => process.pid));
  return first.filter((process) => again.has(process.pid));
}

/**
 * CPU milliseconds spent by this lane and the programs it has waited for (utime, stime, cutime, cstime
 * of /proc/self/stat, in clock ticks of 1/100 s), so that a file's cost to the machine shows beside its
 * time; and by the lane alone (its tests' own code, mocha, the TypeScript loader).
 */
function cpuMs() {
  if (process.platform !== 'linux') return { all: 0, own: 0 };
  const fields = readFileSync('/proc/self/stat', 'latin1').split(') ')[1].split(' ');
  const ticks = (indexes) => indexes.reduce((sum, index) => sum + Number(fields[index]), 0) * 10;
  return { all: ticks([11, 12, 13, 14]), own: ticks([11, 12]) };
}

function report(line) {
  try {
    writeSync(3, `${JSON.stringify(line)}\n`);
  } catch {
    // Run alone, outside the runner: there is no descriptor 3, and the spec output says it all.
  }
}

class LaneReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const files = new Map();
    let open;
    const current = (runnable) => {
      let suite = runnable.parent ?? runnable;
      while (suite && !suite.file) suite = suite.parent;
      return suite?.file;
    };
    const entry = (file) => {
      if (!files.has(file)) files.set(file, { started: Date.now(), cpu: cpuMs(), passed: 0, failed: 0 });
      return files.get(file);
    };
    // A file may hold several top-level suites: it is over when the next file begins, or the run ends.
    const close = () => {
      if (open === undefined) return;
      const state = entry(open);
      const cpu = cpuMs();
      const left = settledSurvivors();
      stop(left);
      report({
        file: open,
        ms: Date.now() - state.started,
        cpuMs: cpu.all - state.cpu.all,
        ownCpuMs: cpu.own - state.cpu.own,
        passed: state.passed,
        failed: state.failed,
        survivors: left,
      });
      open = undefined;
      releaseMemory();
    };
    runner.on(EVENT_SUITE_BEGIN, (suite) => {
      if (!suite.file || !suite.parent?.root || suite.file === open) return;
      close();
      open = suite.file;
      entry(open);
    });
    runner.on(EVENT_TEST_PASS, (test) => {
      const file = current(test);
      if (file) entry(file).passed += 1;
    });
    runner.on(EVENT_TEST_FAIL, (test) => {
      const file = current(test);
      if (file) entry(file).failed += 1;
    });
    runner.once(EVENT_RUN_END, () => {
      close();
      exitWhenLingering();
    });
  }
}

module.exports = LaneReporter;
