import assert from 'node:assert/strict';
import { attackKeys, selectAttacks } from '../../scripts/soak-selection.ts';

describe('soak selection: which attacks SOAK_ONLY runs', () => {
  it('runs every attack when SOAK_ONLY is unset or blank', () => {
    for (const only of [undefined, '', '  ']) {
      const selected = selectAttacks(only);
      assert.ok(typeof selected !== 'string');
      assert.deepEqual([...selected], [...attackKeys]);
    }
  });

  it('runs only the member-side attacks named, spaces and empty items aside', () => {
    const selected = selectAttacks(' withheld-verdict, ,status-hold ');
    assert.ok(typeof selected !== 'string');
    assert.deepEqual([...selected].sort(), ['status-hold', 'withheld-verdict']);
  });

  it('refuses an unknown key in one line that lists the keys', () => {
    const refused = selectAttacks('withheld-verdict,audit-floood');
    assert.equal(typeof refused, 'string');
    assert.match(refused as string, /^SOAK_ONLY: no attack named audit-floood; give keys .*audit-flood/);
    assert.doesNotMatch(refused as string, /\n/);
  });

  it('refuses an attack that runs on the bulk inlet without the one that starts it', () => {
    for (const key of ['unreachable-relays', 'relay-killed']) {
      assert.match(selectAttacks(key) as string, new RegExp(`^SOAK_ONLY: ${key} runs on what rogue-relay starts`));
      assert.ok(typeof selectAttacks(`rogue-relay,${key}`) !== 'string');
    }
  });
});
