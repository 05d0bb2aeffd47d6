/** Hostile manifest values, the HTTP use cases: see test/support/hostile-manifest.ts. */
import { hostileSetup, itRefusesOrCompilesInert } from '../support/hostile-manifest.ts';

describe('hostile manifest values, the HTTP use cases (issue: command injection through a manifest)', function () {
  this.timeout(600_000);
  const run = hostileSetup();
  for (const usecase of ['api', 'bedrock', 'shop', 'webhook'] as const) itRefusesOrCompilesInert(usecase, run);
});
