import assert from 'node:assert/strict';
import { parseNodeConfig } from '../../src/node/config.ts';
import { planListeners } from '../../src/node/listener-plan.ts';
import { changesOf, portalsOf, type InletPortal } from '../../src/node/portals.ts';
import { ValidationError, formatProblem } from '../../src/shared/errors.ts';

/** The problem lines parseNodeConfig refuses `text` with. */
function refused(text: string, environment: Record<string, string> = {}): string[] {
  try {
    parseNodeConfig('node.yaml', text, { environment });
  } catch (error) {
    assert.ok(error instanceof ValidationError, String(error));
    return error.problems.map(formatProblem);
  }
  return assert.fail('accepted');
}

const twoOutlets = `
tcp-outlets:
  postgres:
    to: 10.0.0.5:5432
    allow: db-inlet
  cache:
    relay: redis
    to: 10.0.0.6:6379
    allow: app-inlet
    tls: true
http-server-port: 0
`;

describe('node configuration: several portals by name', () => {
  it('reads the plural forms into one list per kind, relay and via defaulting to the name', () => {
    const portals = portalsOf(parseNodeConfig('node.yaml', twoOutlets));
    assert.deepEqual(portals.outlets, [
      {
        name: 'postgres',
        pointer: '/tcp-outlets/postgres',
        relay: 'postgres',
        to: '10.0.0.5:5432',
        allow: 'db-inlet',
        tls: false,
      },
      {
        name: 'cache',
        pointer: '/tcp-outlets/cache',
        relay: 'redis',
        to: '10.0.0.6:6379',
        allow: 'app-inlet',
        tls: true,
      },
    ]);
    const inlets = portalsOf(
      parseNodeConfig(
        'node.yaml',
        'tcp-inlets:\n  db: {from: "127.0.0.1:15432", allow: db-outlet}\n' +
          '  web: {from: "127.0.0.1:17777", via: hooks, allow: web-outlet, direct: false}\n',
      ),
    ).inlets;
    assert.deepEqual(
      inlets.map(({ name, via, direct, pointer }) => ({ name, via, direct, pointer })),
      [
        { name: 'db', via: 'db', direct: '127.0.0.1:0', pointer: '/tcp-inlets/db' },
        { name: 'web', via: 'hooks', direct: false, pointer: '/tcp-inlets/web' },
      ],
    );
  });

  it('names the single forms after their relay and via', () => {
    const config = parseNodeConfig(
      'node.json',
      JSON.stringify({
        relay: 'db',
        'tcp-outlet': { to: '10.0.0.5:5432', allow: 'db-inlet' },
        'tcp-inlet': { from: '127.0.0.1:1', via: 'web', allow: 'web-outlet', direct: '0.0.0.0:4200' },
      }),
    );
    const { outlets, inlets } = portalsOf(config);
    assert.deepEqual([outlets[0]?.name, outlets[0]?.pointer], ['db', '/tcp-outlet']);
    assert.deepEqual([inlets[0]?.name, inlets[0]?.pointer, inlets[0]?.direct], ['web', '/tcp-inlet', '0.0.0.0:4200']);
  });

  it('refuses, located and all at once: both forms of a kind, a relay name twice, overlapping listeners', () => {
    const text = `relay: db
tcp-outlet: {to: "10.0.0.5:5432", allow: db-inlet}
tcp-outlets:
  a: {relay: db, to: "10.0.0.7:5432", allow: x}
  b: {relay: db, to: "10.0.0.8:5432", allow: x}
tcp-inlets:
  one: {from: "127.0.0.1:15432", allow: y, direct: "0.0.0.0:4200"}
  two: {from: "127.0.0.1:15432", allow: y, direct: false}
  three: {from: "0.0.0.0:15433", allow: y, direct: false}
  four: {from: "10.1.2.3:15433", allow: y, direct: false}
  five: {from: "127.0.0.1:4200", allow: y, direct: false}
  six: {from: "127.0.0.1:0", allow: y, direct: "0.0.0.0:4201"}
  seven: {from: "127.0.0.1:0", allow: y, direct: "0.0.0.0:4201"}
`;
    assert.deepEqual(refused(text), [
      'node.yaml:4:3: /tcp-outlets: tcp-outlet and tcp-outlets are two ways to give the outlets; give one: ' +
        'move tcp-outlet into tcp-outlets under the name "db"',
      'node.yaml:4:14: /tcp-outlets/a/relay: outlets "db" and "a" both register the relay name "db"; ' +
        'a node registers each relay name once: give one of them another relay',
      'node.yaml:5:14: /tcp-outlets/b/relay: outlets "db" and "b" both register the relay name "db"; ' +
        'a node registers each relay name once: give one of them another relay',
      'node.yaml:8:15: /tcp-inlets/two/from: inlet "two" cannot listen on 127.0.0.1:15432: inlet "one" listens ' +
        'there too; give one of them another port',
      'node.yaml:10:16: /tcp-inlets/four/from: inlet "four" cannot listen on 10.1.2.3:15433: 0.0.0.0:15433 takes ' +
        'that port on every address, and inlet "three" listens on 0.0.0.0:15433; give one of them another port',
      'node.yaml:11:16: /tcp-inlets/five/from: inlet "five" cannot listen on 127.0.0.1:4200: 0.0.0.0:4200 takes ' +
        'that port on every address, and the direct path of inlet "one" listens on 0.0.0.0:4200; ' +
        'give one of them another port',
      'node.yaml:13:50: /tcp-inlets/seven/direct: the direct path of inlet "seven" cannot listen on 0.0.0.0:4201: ' +
        'the direct path of inlet "six" listens there too; give one of them another port',
    ]);
  });

  it('refuses inlets sharing a via with the direct path on both, at the later via', () => {
    assert.deepEqual(
      refused(
        'tcp-inlets:\n  a: {from: "127.0.0.1:1", via: db, allow: y}\n  b: {from: "127.0.0.1:2", via: db, allow: y}\n',
      ),
      [
        'node.yaml:3:33: /tcp-inlets/b/via: inlets "a" and "b" both reach the relay name "db" ' +
          "with the direct path on, and outlets tell a node's direct paths apart by relay name; " +
          'set direct: false on one of them',
      ],
    );
    assert.equal(
      portalsOf(
        parseNodeConfig(
          'node.yaml',
          'tcp-inlets:\n  a: {from: "127.0.0.1:1", via: db, allow: y}\n' +
            '  b: {from: "127.0.0.1:2", via: db, allow: y, direct: false}\n',
        ),
      ).inlets.length,
      2,
    );
  });

  it("refuses neither outlets nor inlets, a relay beside tcp-outlets, and keeps the single forms' words", () => {
    assert.deepEqual(refused('http-server-port: 1\n'), [
      'node.yaml:1:1: /: the configuration has neither tcp-outlet nor tcp-inlet; give at least one',
    ]);
    assert.deepEqual(refused(`relay: x\n${twoOutlets}`), [
      'node.yaml:1:8: /relay: relay goes with tcp-outlet; with tcp-outlets, each outlet has its own relay ' +
        '(by default its name)',
    ]);
    assert.deepEqual(refused('tcp-outlet: {to: "10.0.0.5:5432", allow: x}\n'), [
      'node.yaml:1:13: /tcp-outlet: an outlet needs relay: <name> (the relay its ticket grants)',
    ]);
    assert.deepEqual(
      refused('tcp-inlet: {from: "127.0.0.1:1", via: a, allow: b}\ntcp-inlets: {c: {from: "127.0.0.1:2", allow: d}}\n'),
      [
        'node.yaml:2:13: /tcp-inlets: tcp-inlet and tcp-inlets are two ways to give the inlets; give one: ' +
          'move tcp-inlet into tcp-inlets under the name "a"',
      ],
    );
  });
});

describe('node configuration: endpoint placeholders from the environment', () => {
  const outlet = (to: string) => `tcp-outlets:\n  db:\n    to: ${to}\n    allow: x\n`;

  it('replaces $NAME in to with the environment variable NAME, with or without a port', () => {
    const withPort = parseNodeConfig('node.yaml', outlet('$POSTGRES_ENDPOINT:5432'), {
      environment: { POSTGRES_ENDPOINT: 'db.internal' },
    });
    assert.equal(withPort['tcp-outlets']?.db?.to, 'db.internal:5432');
    const whole = parseNodeConfig(
      'node.json',
      JSON.stringify({ relay: 'w', 'tcp-outlet': { to: '$REDSHIFT_ENDPOINT', allow: 'x' } }),
      {
        environment: { REDSHIFT_ENDPOINT: 'warehouse.example:5439' },
      },
    );
    assert.equal(whole['tcp-outlet']?.to, 'warehouse.example:5439');
  });

  it('refuses a placeholder whose variable is not set, naming the variable and the fix', () => {
    assert.deepEqual(refused(outlet('$POSTGRES_ENDPOINT:5432'), { POSTGRES_ENDPOINT: '' }), [
      'node.yaml:3:9: /tcp-outlets/db/to: $POSTGRES_ENDPOINT stands for the environment variable POSTGRES_ENDPOINT, ' +
        "which is not set; set POSTGRES_ENDPOINT in the node's environment to the service's address, " +
        'or write the address in its place',
    ]);
  });

  it('refuses a value that would make anything but host:port', () => {
    for (const value of ['db.internal:5432', 'db internal', 'db.internal/x', 'a"b', 'db\n']) {
      const lines = refused(outlet('$POSTGRES_ENDPOINT:5432'), { POSTGRES_ENDPOINT: value });
      assert.equal(lines.length, 1, value);
      assert.match(lines[0] ?? '', /^node\.yaml:3:9: \/tcp-outlets\/db\/to: expected host:port, but /);
      assert.match(lines[0] ?? '', / \(with POSTGRES_ENDPOINT=".*" from the environment\)$/);
    }
  });

  it('leaves a configuration without placeholders as it is', () => {
    assert.equal(parseNodeConfig('node.yaml', outlet('10.0.0.5:5432'))['tcp-outlets']?.db?.to, '10.0.0.5:5432');
  });
});

describe('node configuration: what a reload changes', () => {
  const inlet = (name: string, from: string, more: Partial<InletPortal> = {}): InletPortal => ({
    name,
    pointer: `/tcp-inlets/${name}`,
    from,
    via: name,
    allow: 'x',
    tls: false,
    direct: '0.0.0.0:0',
    ...more,
  });

  it('sorts portals into added, removed, changed and unchanged, by name', () => {
    const a = inlet('a', '127.0.0.1:1');
    const b = inlet('b', '127.0.0.1:2');
    const c = inlet('c', '127.0.0.1:3');
    const changes = changesOf([a, b, c], [a, { ...b, allow: 'y' }, inlet('d', '127.0.0.1:4')]);
    assert.deepEqual(changes.unchanged, [a]);
    assert.deepEqual(changes.changed, [{ before: b, after: { ...b, allow: 'y' } }]);
    assert.deepEqual(
      changes.added.map((portal) => portal.name),
      ['d'],
    );
    assert.deepEqual(changes.removed, [c]);
  });

  it('hands a listener to the inlet that listens where one going away did, and binds the rest early or late', () => {
    const going = [inlet('a', '127.0.0.1:15432', { direct: '0.0.0.0:4200' }), inlet('b', '0.0.0.0:15433')];
    const coming = [
      inlet('a', '127.0.0.1:15432', { allow: 'y', direct: '0.0.0.0:4200' }),
      inlet('c', '127.0.0.1:15433'),
      inlet('d', '127.0.0.1:15434'),
    ];
    assert.deepEqual(
      planListeners(coming, going).map(({ inlet: { name }, donor, listener, direct }) => ({
        name,
        donor,
        listener,
        direct,
      })),
      [
        { name: 'a', donor: 'a', listener: 'taken-over', direct: 'late' },
        { name: 'c', donor: undefined, listener: 'late', direct: 'early' },
        { name: 'd', donor: undefined, listener: 'early', direct: 'early' },
      ],
    );
  });
});
