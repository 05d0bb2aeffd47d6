// The reporter of one lane of `npm test` (scripts/test-run.mjs): mocha's spec output for the log, and
// for the runner, one JSON line per test file on descriptor 3: its time, its counts, and the programs
// it started that were still running when it ended (a test stops everything it starts).
const { writeSync } = require('node:fs');
const Mocha = require('mocha');
const { survivors, stop } = require('./lane-survivors.cjs');

const { EVENT_SUITE_BEGIN, EVENT_SUITE_END, EVENT_TEST_PASS, EVENT_TEST_FAIL } = Mocha.Runner.constants;
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
    const current = (runnable) => {
      let suite = runnable.parent ?? runnable;
      while (suite && !suite.file) suite = suite.parent;
      return suite?.file;
    };
    const entry = (file) => {
      if (!files.has(file)) files.set(file, { started: Date.now(), passed: 0, failed: 0, depth: 0 });
      return files.get(file);
    };
    runner.on(EVENT_SUITE_BEGIN, (suite) => {
      if (suite.file && suite.parent?.root) entry(suite.file).depth += 1;
    });
    runner.on(EVENT_TEST_PASS, (test) => {
      const file = current(test);
      if (file) entry(file).passed += 1;
    });
    runner.on(EVENT_TEST_FAIL, (test) => {
      const file = current(test);
      if (file) entry(file).failed += 1;
    });
    runner.on(EVENT_SUITE_END, (suite) => {
      if (!suite.file || !suite.parent?.root) return;
      const state = entry(suite.file);
      state.depth -= 1;
      if (state.depth > 0) return;
      const left = settledSurvivors();
      stop(left);
      report({
        file: suite.file,
        ms: Date.now() - state.started,
        passed: state.passed,
        failed: state.failed,
        survivors: left,
      });
    });
  }
}

module.exports = LaneReporter;
