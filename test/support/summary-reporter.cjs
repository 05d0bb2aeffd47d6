// Mocha's spec reporter, closed by one plain summary line ("N passed, N failed") that any CI can read.
const Mocha = require('mocha');
const { exitWhenLingering } = require('./exit-guard.cjs');

class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
      const { passes, failures, pending } = runner.stats;
      const skipped = pending > 0 ? `, ${pending} skipped` : '';
      process.stdout.write(`\ntests: ${passes} passed, ${failures} failed${skipped}\n`);
      exitWhenLingering();
    });
  }
}

module.exports = SummaryReporter;
