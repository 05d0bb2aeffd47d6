// Root hooks for parallel runs: in a worker, root beforeAll/afterAll run once per test file, so they
// time each file (its tests and hooks; not its import) and leave the figure in PORTAL_TEST_TIMINGS.
const { appendFileSync } = require('node:fs');

let started = 0;

exports.mochaHooks = {
  beforeAll() {
    started = Date.now();
  },
  afterAll() {
    const folder = process.env.PORTAL_TEST_TIMINGS;
    const file = this.test?.parent?.suites?.[0]?.file;
    if (!folder || !file) return;
    appendFileSync(`${folder}/timings.jsonl`, `${JSON.stringify({ file, ms: Date.now() - started })}\n`);
  },
};
