import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { PassThrough } from 'node:stream';
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
const outletIdentity = (nodeId: string) => member(nodeId, ['db-outlet'], ['db']);
const inlet = member('n-inlet', ['db-inlet']);

function codeOf(action: () => unknown): string | undefined {
  try {
    action();
    return undefined;
  } catch (error) {
    return (error as { code?: string }).code;
  }
}

/** The error `action` throws, as code, message and hint. */
function errorOf(action: () => unknown): { code?: string; message?: string; hint?: string } | undefined {
  try {
    action();
    return undefined;
  } catch (error) {
    const { code, message, hint } = error as { code?: string; message?: string; hint?: string };
    return { code, message, hint };
  }
}

describe('relay: what members may ask of it', () => {
  const relays: Relay[] = [];
  const newRelay = (options = {}) => {
    const relay = new Relay(options);
    relays.push(relay);
    return relay;
  };
  afterEach(() => relays.splice(0).forEach((relay) => relay.close()));

  it(
    'refuses a member whose attribute no registered outlet allows, before any outlet hears of it, ' +
      'and reports it to the outlets once a second',
    async () => {
      const relay = newRelay();
      const events: RelayEvent[] = [];
      relay.register(outletIdentity('n-outlet'), 'db', 'db-inlet', (event) => events.push(event));
      const stranger = member('n-stranger', ['guest']);
      for (let i = 0; i < 500; i += 1)
        assert.equal(
          codeOf(() => relay.connect(stranger, 'db', 'db-outlet')),
          'PEER_NOT_ALLOWED',
        );
      assert.equal(events.length, 0, 'no dial reached the outlet');
      await new Promise((resolve) => setTimeout(resolve, 1100));
      assert.deepEqual(events, [{ event: 'refused', from: 'n-stranger', attributes: ['guest'], count: 500 }]);
      assert.equal(relay.stats().refused, 500);
    },
  );

  it('refuses a registration without allow, or of a relay the ticket does not grant', () => {
    const relay = newRelay();
    assert.equal(
      codeOf(() => relay.register(outletIdentity('n-outlet'), 'db', '', () => undefined)),
      'ALLOW_MISSING',
    );
    assert.equal(
      codeOf(() => relay.register(outletIdentity('n-outlet'), 'other', 'db-inlet', () => undefined)),
      'RELAY_NOT_GRANTED',
    );
    assert.throws(
      () => relay.register(outletIdentity('n-outlet'), 'other', 'db-inlet', () => undefined),
      (error: Error & { hint?: string }) => {
        assert.equal(error.message, 'the certificate of node n-outlet does not grant the relay "other"');
        assert.match(
          error.hint ?? '',
          /^an administrator of the project runs portal project grant n-outlet --relay other, /,
        );
        return true;
      },
    );
    assert.equal(relay.stats().registrations, 0);
  });

  it(
    'keeps one registration per member and relay name: registering 100 times replaces, ' +
      'and the old withdrawal touches nothing',
    () => {
      const relay = newRelay();
      const withdrawals = Array.from({ length: 100 }, () =>
        relay.register(outletIdentity('n-rogue'), 'db', 'db-inlet', () => undefined),
      );
      relay.register(outletIdentity('n-outlet'), 'db', 'db-inlet', () => undefined);
      assert.equal(relay.stats().registrations, 2);
      withdrawals[0]?.();
      assert.equal(
        relay.stats().registrations,
        2,
        'an earlier registration withdrawn late does not remove the current one',
      );
      withdrawals[99]?.();
      assert.equal(relay.stats().registrations, 1);
    },
  );

  it('tells whoever keeps the audit trail of each splice it refuses: whom, why, for which relay name', () => {
    const refused: string[] = [];
    const relay = newRelay({
      pendingPerMember: 1,
      onRefused: (peer: PeerIdentity, reason: string, name: string) => refused.push(`${peer.nodeId} ${reason} ${name}`),
    });
    relay.register(outletIdentity('n-outlet'), 'db', 'db-inlet', () => undefined);
    assert.equal(
      codeOf(() => relay.connect(member('n-stranger', ['guest']), 'db', 'db-outlet')),
      'PEER_NOT_ALLOWED',
    );
    assert.equal(
      codeOf(() => relay.connect(inlet, 'db', 'other-outlet')),
      'PEER_NOT_ALLOWED',
    );
    assert.equal(
      codeOf(() => relay.connect(inlet, 'db', 'db-outlet')),
      undefined,
    );
    assert.equal(
      codeOf(() => relay.connect(inlet, 'db', 'db-outlet')),
      'RELAY_BUSY',
    );
    assert.deepEqual(refused, ['n-stranger allow db', 'n-inlet allow db', 'n-inlet limits db']);
  });

  it('holds a member to 16 pending splices and an outlet to 64 unanswered dials', () => {
    const relay = newRelay({ pendingPerMember: 16, pendingPerOutlet: 64 });
    relay.register(outletIdentity('n-outlet'), 'db', 'db-inlet', () => undefined);
    const codes = Array.from({ length: 40 }, () => codeOf(() => relay.connect(inlet, 'db', 'db-outlet')) ?? 'GRANTED');
    assert.equal(codes.filter((code) => code === 'GRANTED').length, 16);
    assert.equal(codes.filter((code) => code === 'RELAY_BUSY').length, 24);
    const many = Array.from({ length: 8 }, (_, i) => member(`n-inlet-${i}`, ['db-inlet']));
    const granted = many
      .flatMap((peer) =>
        Array.from({ length: 16 }, () => codeOf(() => relay.connect(peer, 'db', 'db-outlet')) ?? 'GRANTED'),
      )
      .filter((code) => code === 'GRANTED');
    assert.equal(granted.length, 64 - 16, 'the outlet takes 64 dials in all');
    assert.equal(relay.stats().splicesPending, 64);
  });

  it(
    'offers a splice to another outlet when the dialled one does not answer, ' +
      'and leaves a silent outlet out of the choice',
    async () => {
      const relay = newRelay({ dialAnswerMs: 30, unansweredLimit: 2, suspendMs: 60_000 });
      const dials: Record<'silent' | 'good', string[]> = { silent: [], good: [] };
      const halves: PassThrough[] = [];
      relay.register(
        outletIdentity('n-silent'),
        'db',
        'db-inlet',
        (event) => void (event.event === 'dial' && dials.silent.push(event.splice)),
      );
      // The good outlet answers each dial at once with its half (an in-memory stream stands for the socket).
      relay.register(outletIdentity('n-good'), 'db', 'db-inlet', (event) => {
        if (event.event !== 'dial') return;
        dials.good.push(event.splice);
        halves.push(new PassThrough());
        relay.join(halves.at(-1) as unknown as Socket, event.splice, 'outlet', event.secret);
      });
      const wait = () => new Promise((resolve) => setTimeout(resolve, 80));
      // The outlet with the fewest dials waiting is chosen: the silent one gets the first and the third.
      const first = relay.connect(member('n-inlet-1', ['db-inlet']), 'db', 'db-outlet');
      const second = relay.connect(member('n-inlet-2', ['db-inlet']), 'db', 'db-outlet');
      await wait();
      const third = relay.connect(member('n-inlet-3', ['db-inlet']), 'db', 'db-outlet');
      await wait();
      assert.deepEqual(dials.silent, [first.splice, third.splice]);
      assert.deepEqual(
        dials.good,
        [second.splice, first.splice, third.splice],
        'each unanswered splice moved to the outlet that answers',
      );
      // Two dials unanswered in a row: the silent outlet is out of the choice while the good one takes dials.
      for (let i = 0; i < 5; i += 1) relay.connect(member(`n-later-${i}`, ['db-inlet']), 'db', 'db-outlet');
      assert.equal(dials.silent.length, 2);
      assert.equal(dials.good.length, 8);
      assert.ok(
        halves.every((half) => !half.destroyed),
        'answered halves wait for their inlets',
      );
    },
  );
  it(
    'pairs an inlet only with outlets carrying the attribute its allow names: 100 splices all go to the app outlet, ' +
      'none to a rogue granted the same relay name',
    async () => {
      const relay = newRelay({ pendingPerMember: 1000, pendingPerOutlet: 1000, dialAnswerMs: 30 });
      const dials: Record<'app' | 'rogue', string[]> = { app: [], rogue: [] };
      relay.register(
        member('n-app', ['app-outlet'], ['app']),
        'app',
        'app-inlet',
        (event) => void (event.event === 'dial' && dials.app.push(event.splice)),
      );
      relay.register(
        member('n-rogue', ['rogue'], ['app']),
        'app',
        'app-inlet',
        (event) => void (event.event === 'dial' && dials.rogue.push(event.splice)),
      );
      const appInlet = member('n-app-inlet', ['app-inlet']);
      const splices = Array.from({ length: 100 }, () => relay.connect(appInlet, 'app', 'app-outlet').splice);
      assert.deepEqual(dials.app, splices, 'every splice dialled the app outlet, in order');
      assert.deepEqual(dials.rogue, []);
      // The app outlet answers none of them: no splice moves to the rogue either.
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.deepEqual(dials.rogue, [], 'an unanswered splice is offered only to outlets the inlet accepts');
      assert.equal(relay.stats().splicesPending, 100);
    },
  );

  it(
    'refuses a splice when no outlet carries the attribute the inlet allows, names it, ' +
      'and reports nothing to the outlets',
    async () => {
      const relay = newRelay();
      const events: RelayEvent[] = [];
      relay.register(member('n-rogue', ['rogue'], ['app']), 'app', 'app-inlet', (event) => events.push(event));
      const appInlet = member('n-app-inlet', ['app-inlet']);
      assert.deepEqual(
        errorOf(() => relay.connect(appInlet, 'app', 'app-outlet')),
        {
          code: 'PEER_NOT_ALLOWED',
          message:
            'no outlet of the relay "app" that allows this node carries the attribute "app-outlet" this inlet allows ' +
            '(they carry "rogue")',
          hint: 'check that the outlet\'s ticket attribute equals the inlet\'s allow ("app-outlet")',
        },
      );
      await new Promise((resolve) => setTimeout(resolve, 1100));
      assert.deepEqual(events, [], 'the outlet refused nothing: it hears of neither a dial nor a refusal');
      assert.deepEqual(
        { refused: relay.stats().refused, pending: relay.stats().splicesPending },
        { refused: 0, pending: 0 },
      );
    },
  );

  it('pairs by allow expressions on both sides, names the one that refused, refuses one that does not read', () => {
    const relay = newRelay();
    const dials: string[] = [];
    relay.register(
      member('n-prod', ['db-outlet', 'env=prod'], ['db']),
      'db',
      'team = "ops" and env in ["prod", "staging"]',
      (event) => event.event === 'dial' && dials.push('prod'),
    );
    relay.register(
      member('n-dev', ['db-outlet', 'env=dev'], ['db']),
      'db',
      'team = "ops"',
      (event) => event.event === 'dial' && dials.push('dev'),
    );
    const ops = member('n-ops', ['team=ops', 'env=prod']);
    assert.ok(relay.connect(ops, 'db', 'db-outlet and env = "prod"').splice);
    assert.deepEqual(dials, ['prod'], 'only the outlet both allows admit');
    assert.deepEqual(
      errorOf(() => relay.connect(member('n-dev-inlet', ['team=dev', 'env=prod']), 'db', 'db-outlet')),
      {
        code: 'PEER_NOT_ALLOWED',
        message: 'no outlet of the relay "db" allows this node\'s attribute (team=dev, env=prod)',
        hint: "check that the outlet's allow admits this node's ticket attributes",
      },
    );
    assert.deepEqual(
      errorOf(() => relay.connect(ops, 'db', 'env = "qa"')),
      {
        code: 'PEER_NOT_ALLOWED',
        message:
          'no outlet of the relay "db" that allows this node is admitted by this inlet\'s allow (env = "qa") ' +
          '(they carry "db-outlet", "env=prod", "env=dev")',
        hint: 'check that the inlet\'s allow (env = "qa") admits the outlet\'s ticket attributes',
      },
    );
    assert.deepEqual(
      errorOf(() => relay.connect(ops, 'db', 'env = qa')),
      {
        code: 'POLICY_INVALID',
        message:
          'the inlet\'s allow is not an allow expression: column 7: expected a quoted value such as "ops" ' +
          '(letters, digits, ".", "_", "-"), found "qa"',
        hint:
          'give an attribute name, or an expression such as team = "ops" and env in ["prod", "staging"] ' +
          '(docs/policies.md)',
      },
    );
    assert.equal(
      codeOf(() => relay.register(member('n-bad', ['db-outlet'], ['db']), 'db', 'team in [', () => undefined)),
      'POLICY_INVALID',
    );
  });

  it('refuses a splice request without allow', () => {
    const relay = newRelay();
    relay.register(outletIdentity('n-outlet'), 'db', 'db-inlet', () => undefined);
    assert.equal(
      codeOf(() => relay.connect(inlet, 'db', '')),
      'ALLOW_MISSING',
    );
    assert.equal(relay.stats().splicesPending, 0);
  });
});
