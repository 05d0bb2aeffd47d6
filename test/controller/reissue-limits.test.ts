import assert from 'node:assert/strict';
import { ChallengeBook, reissueLimits } from '../../src/controller/reissue.ts';
import type { PortalError } from '../../src/shared/errors.ts';
import { createWorld, type World } from '../support/portal-world.ts';

describe('re-issue challenges: what anonymous peers may ask for together', () => {
  let world: World;

  before(async () => {
    world = await createWorld();
  });

  after(async () => world?.close());

  it(
    `hands out at most ${reissueLimits.overall.perSecond} challenges a second to all sources together, ` +
      `after a burst of ${reissueLimits.overall.burst}`,
    () => {
      const service = world.controller.service;
      const now = Date.now();
      let source = 0;
      // Each asks from a source of its own: only the bound on all sources together can refuse.
      const ask = (at: number) => {
        try {
          return service.reissueChallenge(`192.0.2.${source++}`, at).challenge ? 'ok' : 'none';
        } catch (error) {
          return (error as PortalError).code;
        }
      };
      const { burst, perSecond } = reissueLimits.overall;
      const first = Array.from({ length: burst + 1 }, () => ask(now));
      assert.deepEqual(first, [...Array<string>(burst).fill('ok'), 'RATE_LIMITED']);
      const second = Array.from({ length: perSecond + 1 }, () => ask(now + 1000));
      assert.deepEqual(second, [...Array<string>(perSecond).fill('ok'), 'RATE_LIMITED']);
    },
  );

  it(`takes a challenge once, within ${reissueLimits.challengeLifetimeMs / 1000} s of handing it out`, () => {
    const book = new ChallengeBook();
    const now = 1_000_000;
    const fresh = book.issue(now);
    assert.equal(book.redeem(fresh, now + reissueLimits.challengeLifetimeMs - 1), true);
    assert.equal(book.redeem(fresh, now + 1), false, 'used up');
    const late = book.issue(now);
    assert.equal(book.redeem(late, now + reissueLimits.challengeLifetimeMs), false, 'too late');
    assert.equal(book.redeem('never handed out', now), false);
  });
});
