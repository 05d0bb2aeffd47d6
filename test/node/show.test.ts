import assert from 'node:assert/strict';
import { FailureStreak } from '../../src/node/failure-streak.ts';
import { recentMs } from '../../src/node/limits.ts';
import { RecentRefusals, type RefusalShow } from '../../src/node/refusals.ts';
import { isReady, nodeState } from '../../src/node/portal-health.ts';
import { assessNode, problemsOf, type InletShow, type NodeFacts, type OutletShow } from '../../src/node/show.ts';
import { inletUp, msBeforeNow as at, outletUp, showNow as now } from '../support/node-show-fixtures.ts';

/** The node's problem and warning lines, without each portal's share. */
function lines(known: NodeFacts): { problems: string[]; warnings: string[] } {
  const { problems, warnings } = assessNode(known);
  return { problems, warnings };
}

function facts(
  parts: { outlet?: Partial<OutletShow>; inlet?: Partial<InletShow> },
  more: Partial<NodeFacts> = {},
): NodeFacts {
  return {
    now,
    validUntil: now + 3_600_000,
    renewalError: undefined,
    controller: '127.0.0.1:4000',
    controllerConnected: true,
    relays: [{ id: 'controller', address: '127.0.0.1:4000', status: 'connected' }],
    outlets: parts.outlet ? [{ ...outletUp, ...parts.outlet }] : [],
    inlets: parts.inlet ? [{ ...inletUp, ...parts.inlet }] : [],
    ...more,
  };
}

/** Two outlets, `db` up and `cache` whose target refuses every connection. */
const outletsOneFailing = () => [
  { ...outletUp, name: 'db', configured_at: '/tcp-outlets/db' },
  {
    ...outletUp,
    name: 'cache',
    configured_at: '/tcp-outlets/cache',
    relay: 'cache',
    to: '127.0.0.1:6379',
    target_failures: { count: 2, reason: 'ECONNREFUSED', last_at: at(1000) },
  },
];

describe('node status: which problems there are, from facts', () => {
  it('finds none for an outlet registered on a relay and an inlet with a session', () => {
    assert.deepEqual(lines(facts({ outlet: {}, inlet: {} })), { problems: [], warnings: [] });
  });

  it('keeps an inlet without a session down, saying it is still opening one', () => {
    assert.deepEqual(problemsOf(facts({ inlet: { session: 'opening', path: null } })), [
      'its inlet on 127.0.0.1:15432 has no session to relay "db" (opening one)',
    ]);
  });

  it("names both attributes when the inlet's allow refused the outlet, the inlet's view", () => {
    const inlet: Partial<InletShow> = {
      session: 'none',
      session_failure: {
        reason: 'peer_refused',
        message: 'peer attribute not allowed',
        refusal: { by: 'this node', told_by: 'verdict', peer: null, saw: ['db-outlet'], allow: 'db-outlett' },
        at: at(1000),
      },
    };
    assert.deepEqual(problemsOf(facts({ inlet })), [
      'its inlet on 127.0.0.1:15432 has no session to relay "db" (retrying): its allow refused the outlet: ' +
        'saw "db-outlet", allow is "db-outlett"',
    ]);
  });

  it("names both attributes when the outlet's verdict refused the inlet", () => {
    const inlet: Partial<InletShow> = {
      session: 'none',
      session_failure: {
        reason: 'peer_refused',
        message: 'the peer does not allow this node',
        refusal: { by: 'the peer', told_by: 'verdict', peer: null, saw: ['db-inlet'], allow: 'db-inlett' },
        at: at(1000),
      },
    };
    assert.deepEqual(problemsOf(facts({ inlet })), [
      'its inlet on 127.0.0.1:15432 has no session to relay "db" (retrying): the outlet refused it: ' +
        'it saw "db-inlet", its allow is "db-inlett"',
    ]);
  });

  it("passes on the relay's answer: a refusal, or no outlet registered under the inlet's via", () => {
    const refused =
      'no outlet of the relay "db" that allows this node carries the attribute "db-outlett" this inlet allows ' +
      '(they carry "db-outlet")';
    assert.deepEqual(
      problemsOf(
        facts({
          inlet: {
            session: 'none',
            session_failure: { reason: 'peer_refused', message: refused, refusal: null, at: at(0) },
          },
        }),
      ),
      [`its inlet on 127.0.0.1:15432 has no session to relay "db" (retrying): the relay refused it: ${refused}`],
    );
    const none = 'no outlet is registered for the relay "dbb" right now';
    assert.deepEqual(
      problemsOf(
        facts({
          inlet: {
            via: 'dbb',
            session: 'opening',
            session_failure: { reason: 'no_outlet', message: none, refusal: null, at: at(0) },
          },
        }),
      ),
      [
        `its inlet on 127.0.0.1:15432 has no session to relay "dbb" (retrying): ${none}; ` +
          'check that the outlet runs and that via "dbb" is its relay name',
      ],
    );
    assert.deepEqual(
      problemsOf(
        facts({
          inlet: {
            session: 'none',
            session_failure: {
              reason: 'session_failed',
              message: 'no verdict from the peer',
              refusal: null,
              at: at(0),
            },
          },
        }),
      ),
      [
        'its inlet on 127.0.0.1:15432 has no session to relay "db" (retrying): the end-to-end session failed: ' +
          'no verdict from the peer',
      ],
    );
  });

  it(
    "gives the outlet's view of an inlet it refused, with both attributes, " + 'as a problem while it serves nobody',
    () => {
      const refusals: RefusalShow[] = [
        {
          by: 'this node',
          told_by: 'relay',
          peer: 'n-stranger',
          saw: ['stranger'],
          allow: 'db-inlet',
          count: 3,
          last_at: at(4000),
        },
      ];
      assert.deepEqual(lines(facts({ outlet: { refusals } })), {
        problems: [
          'its outlet refused inlet node n-stranger: saw "stranger", allow is "db-inlet" ' +
            '(3 times, last 4 s ago, at the relay)',
        ],
        warnings: [],
      });
      // Beside sessions it serves, a refused member is a stranger: said, but the outlet is up.
      assert.deepEqual(lines(facts({ outlet: { refusals, sessions: 1 } })), {
        problems: [],
        warnings: [
          'its outlet refused inlet node n-stranger: saw "stranger", allow is "db-inlet" ' +
            '(3 times, last 4 s ago, at the relay)',
        ],
      });
      const byPeer: RefusalShow[] = [
        {
          by: 'the peer',
          told_by: 'verdict',
          peer: 'n-inlet',
          saw: ['db-outlet'],
          allow: 'db-outlett',
          count: 1,
          last_at: at(200),
        },
      ];
      assert.deepEqual(problemsOf(facts({ outlet: { refusals: byPeer } })), [
        'inlet node n-inlet refused its outlet: it saw "db-outlet", its allow is "db-outlett" ' +
          '(1 time, last less than 1 s ago)',
      ]);
    },
  );

  it('forgets a refusal once it is no longer recent', () => {
    const refusals: RefusalShow[] = [
      {
        by: 'this node',
        told_by: 'relay',
        peer: 'n-stranger',
        saw: ['stranger'],
        allow: 'db-inlet',
        count: 3,
        last_at: at(recentMs + 1),
      },
    ];
    assert.deepEqual(lines(facts({ outlet: { refusals } })), { problems: [], warnings: [] });
  });

  it('reports a target that refused or timed out its recent connections, worded by the error', () => {
    assert.deepEqual(
      problemsOf(facts({ outlet: { target_failures: { count: 3, reason: 'ECONNREFUSED', last_at: at(4000) } } })),
      ['the target 127.0.0.1:28080 refused its last 3 connections (ECONNREFUSED), last 4 s ago'],
    );
    assert.deepEqual(
      problemsOf(facts({ outlet: { target_failures: { count: 1, reason: 'ETIMEDOUT', last_at: at(150_000) } } })),
      [],
    );
    assert.deepEqual(
      problemsOf(facts({ outlet: { target_failures: { count: 1, reason: 'ETIMEDOUT', last_at: at(59_000) } } })),
      ['the target 127.0.0.1:28080 did not answer its last connection (ETIMEDOUT), last 59 s ago'],
    );
    assert.deepEqual(
      problemsOf(
        facts({ outlet: { target_failures: { count: 2, reason: 'ERR_TLS_CERT_ALTNAME_INVALID', last_at: at(0) } } }),
      ),
      [
        'the TLS certificate of target 127.0.0.1:28080 did not verify on its last 2 connections ' +
          '(ERR_TLS_CERT_ALTNAME_INVALID), last less than 1 s ago',
      ],
    );
  });

  it("reports the clients the outlet refused, on the inlet's side", () => {
    assert.deepEqual(
      problemsOf(
        facts({
          inlet: { refused_by_outlet: { count: 1, reason: 'the outlet cannot reach its target', last_at: at(2000) } },
        }),
      ),
      ["the outlet refused its inlet's last client (the outlet cannot reach its target), last 2 s ago"],
    );
  });

  it('warns of a relay that failed while another carries the node, and of one unreachable', () => {
    const relays = [
      { id: 'controller', address: '127.0.0.1:4000', status: 'connected' },
      { id: 'r2', address: '127.0.0.1:4100', status: 'reconnecting' },
      { id: 'r3', address: '127.0.0.1:4200', status: 'waiting' },
    ] as const;
    const inlet: Partial<InletShow> = {
      relays_failed: [
        {
          id: 'r2',
          failures: 2,
          reason: 'relay r2 gave no session within 2000 ms',
          until: new Date(now + 9_600).toISOString(),
        },
      ],
    };
    assert.deepEqual(lines(facts({ inlet }, { relays })), {
      problems: [],
      warnings: [
        'relay r2 at 127.0.0.1:4100 is unreachable (reconnecting); the others carry the node',
        'relay r2 failed the inlet 2 times in a row (relay r2 gave no session within 2000 ms); ' +
          'it is tried after the others for 10 s more',
      ],
    });
  });

  it('lets parts on the direct path carry traffic with no relay reachable', () => {
    const relays = [{ id: 'controller', address: '127.0.0.1:4000', status: 'reconnecting' }] as const;
    assert.deepEqual(lines(facts({ inlet: { path: 'direct' } }, { relays })), {
      problems: [],
      warnings: ['no relay of the project is reachable (127.0.0.1:4000)'],
    });
    assert.deepEqual(lines(facts({ inlet: {} }, { relays })).problems, [
      'no relay of the project is reachable (127.0.0.1:4000)',
    ]);
    assert.deepEqual(
      lines(facts({ outlet: { status: 'waiting', registered_on: [], sessions: 1, sessions_direct: 1 } }, { relays })),
      {
        problems: [],
        warnings: [
          'no relay of the project is reachable (127.0.0.1:4000)',
          'its outlet is not registered on any relay as "db"; inlets reach it on the direct path only',
        ],
      },
    );
    assert.deepEqual(problemsOf(facts({ outlet: { status: 'waiting', registered_on: [] } })), [
      'its outlet is not registered on any relay as "db"',
    ]);
  });

  it('keeps the certificate and controller problems', () => {
    const problems = problemsOf(
      facts(
        { inlet: {} },
        { validUntil: now - 1000, renewalError: 'cannot reach the controller', controllerConnected: false },
      ),
    );
    assert.deepEqual(problems, [
      `its certificate expired at ${at(1000)} and has not been renewed yet (cannot reach the controller)`,
      'the controller 127.0.0.1:4000 is unreachable',
    ]);
  });
});

describe('node status: a node of several portals names each in its lines', () => {
  const named = (name: string) => ({ name, configured_at: `/tcp-inlets/${name}` });

  it('is up only when every inlet has a session, and says which one has none', () => {
    const inlets = [
      { ...inletUp, ...named('postgres'), via: 'postgres' },
      {
        ...inletUp,
        ...named('web'),
        via: 'web',
        listening: '127.0.0.1:17777',
        session: 'none' as const,
        path: null,
      },
    ];
    assert.deepEqual(lines(facts({}, { inlets })), {
      problems: ['inlet web: its inlet on 127.0.0.1:17777 has no session to relay "web" (retrying)'],
      warnings: [],
    });
    assert.deepEqual(lines(facts({}, { inlets: [inlets[0] as InletShow] })), { problems: [], warnings: [] });
  });

  it("names the outlet whose target fails, and counts each outlet's direct sessions for itself", () => {
    const outlets = outletsOneFailing();
    assert.deepEqual(problemsOf(facts({}, { outlets })), [
      'outlet cache: the target 127.0.0.1:6379 refused its last 2 connections (ECONNREFUSED), last 1 s ago',
    ]);
    const relays = [{ id: 'controller', address: '127.0.0.1:4000', status: 'reconnecting' }] as const;
    const oneDirect = [
      { ...outletUp, name: 'db', configured_at: '/tcp-outlets/db', sessions_direct: 1, sessions: 1 },
      { ...outletUp, name: 'cache', configured_at: '/tcp-outlets/cache', relay: 'cache', status: 'waiting' as const },
    ];
    assert.deepEqual(problemsOf(facts({}, { outlets: oneDirect, relays })), [
      'no relay of the project is reachable (127.0.0.1:4000)',
      'outlet cache: its outlet is not registered on any relay as "cache"',
    ]);
  });
});

describe('node status: the facts behind it', () => {
  it('a failure streak ends at the first success', () => {
    const streak = new FailureStreak();
    assert.equal(streak.describe(), null);
    streak.fail('ECONNREFUSED', now - 2000);
    streak.fail('ECONNREFUSED', now);
    assert.deepEqual(streak.describe(), { count: 2, reason: 'ECONNREFUSED', last_at: at(0) });
    streak.succeed();
    assert.equal(streak.describe(), null);
  });

  it('remembers refusals by peer and attributes, the latest first, and only so many', () => {
    const refusals = new RecentRefusals();
    refusals.note({ by: 'this node', told_by: 'relay', peer: 'n1', saw: ['a'], allow: 'x' }, 2, now - 3000);
    refusals.note({ by: 'the peer', told_by: 'verdict', peer: 'n2', saw: ['x'], allow: 'b' }, 1, now - 2000);
    refusals.note({ by: 'this node', told_by: 'relay', peer: 'n1', saw: ['a'], allow: 'x' }, 1, now);
    assert.deepEqual(
      refusals.describe().map(({ peer, count, last_at }) => ({ peer, count, last_at })),
      [
        { peer: 'n1', count: 3, last_at: at(0) },
        { peer: 'n2', count: 1, last_at: at(2000) },
      ],
    );
    for (let index = 0; index < 100; index += 1)
      refusals.note({ by: 'this node', told_by: 'relay', peer: `m${index}`, saw: ['z\n'], allow: 'x' }, 1, now);
    assert.equal(refusals.describe().length, 16);
    assert.equal(refusals.describe()[0]?.peer, 'm99');
    assert.deepEqual(refusals.describe()[0]?.saw, ['z\\n'], 'shown as one line');
  });
});

describe('node status: each portal has its state, and the node follows the rule of portal-health.ts', () => {
  const outlets = outletsOneFailing();
  const stateOf = (known: NodeFacts, announced: boolean) => {
    const { problems, portals } = assessNode(known);
    return nodeState({ revoked: false, problems, portals, announced });
  };

  it('one dead target takes down its own portal only: the node is degraded, and ready', () => {
    const known = facts({}, { outlets });
    assert.deepEqual(
      assessNode(known).portals.map(({ name, state, problems }) => ({ name, state, problems })),
      [
        { name: 'db', state: 'up', problems: [] },
        {
          name: 'cache',
          state: 'down',
          problems: ['the target 127.0.0.1:6379 refused its last 2 connections (ECONNREFUSED), last 1 s ago'],
        },
      ],
    );
    // Degraded from the start: a healthy portal serves, whether or not the node has been up yet.
    for (const announced of [true, false]) {
      assert.equal(stateOf(known, announced), 'degraded');
      assert.equal(isReady(stateOf(known, announced)), true);
    }
  });

  it('is down (starting, before it was first up) when no portal serves, and not ready', () => {
    const dead = outlets.map((outlet) => ({
      ...outlet,
      target_failures: { count: 1, reason: 'ETIMEDOUT', last_at: at(500) },
    }));
    const known = facts({}, { outlets: dead });
    assert.deepEqual(
      assessNode(known).portals.map((portal) => portal.state),
      ['down', 'down'],
    );
    assert.equal(stateOf(known, true), 'down');
    assert.equal(stateOf(known, false), 'starting');
    assert.equal(isReady('down'), false);
    assert.equal(isReady('starting'), false);
  });

  it('an expired certificate takes down every portal, each saying why', () => {
    const known = facts({}, { outlets: [outlets[0] as OutletShow], validUntil: now - 1000 });
    const [portal] = assessNode(known).portals;
    assert.equal(portal?.state, 'down');
    assert.match(portal?.problems[0] ?? '', /^its certificate expired at /);
    assert.equal(stateOf(known, true), 'down');
  });

  it('a portal with warnings only is degraded, and the node still up; a revoked node is neither up nor ready', () => {
    const relayFailed = [{ id: 'r2', failures: 1, reason: 'reset', until: new Date(now + 5000).toISOString() }];
    const known = facts({ inlet: { relays_failed: relayFailed } });
    assert.deepEqual(
      assessNode(known).portals.map((portal) => portal.state),
      ['degraded'],
    );
    assert.equal(stateOf(known, true), 'up');
    const { problems, portals } = assessNode(known);
    assert.equal(nodeState({ revoked: true, problems, portals, announced: true }), 'revoked');
    assert.equal(isReady('revoked'), false);
  });
});
