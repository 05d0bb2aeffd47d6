/** Hostile manifest values, the templates without the schema: see test/support/hostile-manifest.ts. */
import { hostileSetup, itQuotesWithoutTheSchema } from '../support/hostile-manifest.ts';

describe('hostile manifest values, templates without the schema (issue: injection through a manifest)', function () {
  this.timeout(600_000);
  const run = hostileSetup();
  for (const usecase of ['webhook', 'postgres'] as const) itQuotesWithoutTheSchema(usecase, run);
});
