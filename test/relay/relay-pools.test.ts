import assert from 'node:assert/strict';
import type { PeerIdentity } from '../../src/pki/identity.ts';
import { Relay } from '../../src/relay/relay.ts';
import type { RelayEvent } from '../../src/wire/protocol.ts';

const member = (nodeId: string, attributes: string[], relays: string[] = []): PeerIdentity => ({
  projectId: 'p1',
  nodeId,
  attributes,
  relays,
  admin: false,
  tls: false,
  relayNode: false,
});
const outletIdentity = (nodeId: string, attribute = 'db-outlet') => member(nodeId, [attribute], ['db']);
const inlet = member('n-inlet', ['db-inlet']);

describe('relay: pools of outlets under one relay name', () => {
  const relays: Relay[] = [];
  const newRelay = () => {
    const relay = new Relay();
    relays.push(relay);
    return relay;
  };
  afterEach(() => relays.splice(0).forEach((relay) => relay.close()));

  it('tells a watching inlet the outlets it pairs with, and each change: a new one, one gone, one revoked', () => {
    const relay = newRelay();
    const told: RelayEvent[] = [];
    relay.register(outletIdentity('n-a'), 'db', 'db-inlet', () => undefined);
    // An outlet the inlet's allow does not admit is not one of its pool.
    relay.register(outletIdentity('n-other', 'other-outlet'), 'db', 'db-inlet', () => undefined);
    const watch = relay.watch(inlet, 'db', 'db-outlet', (event) => told.push(event));
    assert.deepEqual(watch.outlets, ['n-a']);
    const withdrawB = relay.register(outletIdentity('n-b'), 'db', 'db-inlet', () => undefined);
    relay.register(outletIdentity('n-c'), 'db', 'db-inlet', () => undefined);
    withdrawB();
    relay.cutMember('n-a');
    // A registration the inlet does not pair with changes nothing it is told.
    relay.register(outletIdentity('n-other-2', 'other-outlet'), 'db', 'db-inlet', () => undefined);
    assert.deepEqual(
      told.map((event) => (event.event === 'outlets' ? event.outlets.join(' ') : event.event)),
      ['n-a n-b', 'n-a n-b n-c', 'n-a n-c', 'n-c'],
    );
    watch.stop();
    relay.register(outletIdentity('n-d'), 'db', 'db-inlet', () => undefined);
    assert.equal(told.length, 4, 'a watch ended hears nothing more');
  });

  it('dials the outlet an inlet asks for, and says OUTLET_NOT_HERE for one not registered', () => {
    const relay = newRelay();
    const dialled: string[] = [];
    for (const id of ['n-a', 'n-b'])
      relay.register(
        outletIdentity(id),
        'db',
        'db-inlet',
        (event) => void (event.event === 'dial' && dialled.push(id)),
      );
    for (let i = 0; i < 4; i += 1) assert.equal(relay.connect(inlet, 'db', 'db-outlet', 'n-b').outlet, 'n-b');
    assert.deepEqual(dialled, ['n-b', 'n-b', 'n-b', 'n-b']);
    assert.throws(() => relay.connect(inlet, 'db', 'db-outlet', 'n-gone'), { code: 'OUTLET_NOT_HERE' });
  });

  it('spreads the splices of inlets that ask for no outlet over the least busy ones, turning among equals', () => {
    const relay = newRelay();
    const dials = new Map<string, number>();
    for (const id of ['n-a', 'n-b', 'n-c'])
      relay.register(outletIdentity(id), 'db', 'db-inlet', (event) => {
        if (event.event === 'dial') dials.set(id, (dials.get(id) ?? 0) + 1);
      });
    const granted = [];
    for (let i = 0; i < 9; i += 1) granted.push(relay.connect(member(`n-in-${i}`, ['db-inlet']), 'db', 'db-outlet'));
    assert.deepEqual([...dials.values()], [3, 3, 3], 'each outlet dialled three times');
    assert.deepEqual(
      granted.map((grant) => grant.outlet),
      ['n-a', 'n-b', 'n-c', 'n-a', 'n-b', 'n-c', 'n-a', 'n-b', 'n-c'],
    );
  });
});
