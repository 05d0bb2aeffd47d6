/** Hostile manifest values, the database use cases: see test/support/hostile-manifest.ts. */
import { hostileSetup, itRefusesOrCompilesInert } from '../support/hostile-manifest.ts';

describe('hostile manifest values, the database use cases (issue: command injection through a manifest)', function () {
  this.timeout(600_000);
  const run = hostileSetup();
  for (const usecase of ['postgres', 'warehouse', 'redis'] as const) itRefusesOrCompilesInert(usecase, run);
});
