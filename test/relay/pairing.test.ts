import assert from 'node:assert/strict';
import type { PeerIdentity } from '../../src/pki/identity.ts';
import { requirePolicy } from '../../src/shared/policy.ts';
import { pairInlet } from '../../src/relay/pairing.ts';

const inlet = (attributes: string[]): PeerIdentity => ({
  projectId: 'p1',
  nodeId: 'n-inlet',
  attributes,
  relays: [],
  admin: false,
  tls: false,
  relayNode: false,
});
const outlet = (name: string, attributes: string[], allow: string) => ({
  name,
  attributes,
  policy: requirePolicy(allow, 'allow'),
});

describe('relay pairing: each side admits the other', () => {
  const outlets = [
    outlet('prod', ['db-outlet', 'env=prod'], 'team = "ops"'),
    outlet('dev', ['db-outlet', 'env=dev'], 'db-inlet'),
  ];

  it('pairs an inlet only with the outlets that allow it and that its allow admits', () => {
    const pairing = pairInlet(inlet(['team=ops']), 'db', 'env = "prod"', requirePolicy('env = "prod"', 'x'), outlets);
    assert.ok(pairing.ok);
    assert.deepEqual(
      pairing.outlets.map((entry) => entry.name),
      ['prod'],
    );
  });

  it('says when no outlet allows the inlet: the outlets hear of it', () => {
    const pairing = pairInlet(inlet(['team=dev']), 'db', 'db-outlet', requirePolicy('db-outlet', 'x'), outlets);
    assert.ok(!pairing.ok);
    assert.equal(pairing.byOutlets, true);
    assert.equal(pairing.error.code, 'PEER_NOT_ALLOWED');
    assert.match(pairing.error.message, /no outlet of the relay "db" allows this node's attribute \(team=dev\)/);
  });

  it("says when the inlet's allow refuses every outlet that allows it, naming what they carry", () => {
    const allow = 'env = "staging"';
    const pairing = pairInlet(inlet(['team=ops', 'db-inlet']), 'db', allow, requirePolicy(allow, 'x'), outlets);
    assert.ok(!pairing.ok);
    assert.equal(pairing.byOutlets, false);
    assert.match(pairing.error.message, /is admitted by this inlet's allow/);
    assert.match(pairing.error.message, /"db-outlet", "env=prod", "env=dev"/);
    assert.equal(pairing.detail, `no outlet that allows it is admitted by this inlet's allow (env = "staging")`);
  });
});
