import assert from 'node:assert/strict';
import { renderUnit, type ServiceUnit } from '../../src/service/systemd-unit.ts';

const base: ServiceUnit = {
  role: 'controller',
  name: 'portal-controller',
  user: 'portal',
  home: '/var/lib/portal/controller',
  program: ['/usr/bin/node', '/opt/portal/lib/portal/dist/portal.mjs'],
  arguments: ['controller', 'start', '--listen', '0.0.0.0:4000'],
  credentials: [{ id: 'controller-seal.key', path: '/etc/portal/controller-seal.key' }],
  environment: [],
  drainMs: 10_000,
  privilegedPort: false,
  portalVersion: '0.1.0',
};

const settings = (text: string, key: string) =>
  text
    .split('\n')
    .filter((line) => line.startsWith(`${key}=`))
    .map((line) => line.slice(key.length + 1));

describe('systemd units', () => {
  it(
    'runs the foreground command as a dedicated user, with its state, ' +
      'its credentials and a stop timeout above the drain time',
    () => {
      const text = renderUnit(base);
      assert.deepEqual(settings(text, 'ExecStart'), [
        '/usr/bin/node /opt/portal/lib/portal/dist/portal.mjs controller start --listen 0.0.0.0:4000',
      ]);
      assert.deepEqual(settings(text, 'User'), ['portal']);
      assert.deepEqual(settings(text, 'Environment'), ['PORTAL_HOME=/var/lib/portal/controller']);
      assert.deepEqual(settings(text, 'LoadCredential'), ['controller-seal.key:/etc/portal/controller-seal.key']);
      assert.deepEqual(settings(text, 'StateDirectory'), ['portal/controller']);
      assert.deepEqual(settings(text, 'ReadWritePaths'), ['/var/lib/portal/controller']);
      assert.deepEqual(settings(text, 'KillSignal'), ['SIGTERM']);
      assert.deepEqual(
        settings(text, 'TimeoutStopSec'),
        ['30s'],
        'the default drain of 10 s, and 20 s to close and exit',
      );
      assert.deepEqual(
        settings(text, 'RestartPreventExitStatus'),
        ['2'],
        'a refusal (exit 2) would be refused again: no restart',
      );
      assert.deepEqual(settings(text, 'CapabilityBoundingSet'), ['']);
      assert.equal(settings(text, 'AmbientCapabilities').length, 0);
    },
  );

  it('quotes and escapes every word of ExecStart and every value, and writes credential paths as %d', () => {
    const text = renderUnit({
      ...base,
      home: '/srv/portal 50%',
      arguments: [
        'controller',
        'start',
        '--network-domain',
        'a b',
        '100%',
        '$HOME',
        'say "hi"',
        'back\\slash',
        ';',
        { credential: 'controller-seal.key' },
      ],
      environment: [
        ['NODE_LOG_LEVEL', 'debug'],
        ['PORTAL_SEALING_KEY_FILE', { credential: 'node-seal.key' }],
        ['NOTE', 'two words'],
      ],
      privilegedPort: true,
    });
    assert.deepEqual(settings(text, 'ExecStart'), [
      '/usr/bin/node /opt/portal/lib/portal/dist/portal.mjs controller start --network-domain "a b" 100%% $$HOME ' +
        '"say \\"hi\\"" "back\\\\slash" ";" %d/controller-seal.key',
    ]);
    assert.deepEqual(settings(text, 'Environment'), [
      '"PORTAL_HOME=/srv/portal 50%%"',
      'NODE_LOG_LEVEL=debug',
      'PORTAL_SEALING_KEY_FILE=%d/node-seal.key',
      '"NOTE=two words"',
    ]);
    assert.deepEqual(settings(text, 'StateDirectory'), [], 'a home outside /var/lib is not a state directory');
    assert.deepEqual(settings(text, 'CapabilityBoundingSet'), ['CAP_NET_BIND_SERVICE']);
    assert.deepEqual(settings(text, 'AmbientCapabilities'), ['CAP_NET_BIND_SERVICE']);
  });

  it('waits the drain the process is given and 20 s more before it kills it', () => {
    for (const [drainMs, timeout, comment] of [
      [
        60_000,
        '80s',
        '# Portal drains its connections after the first SIGTERM for up to 1m (PORTAL_DRAIN_TIMEOUT), then exits.',
      ],
      [
        1500,
        '22s',
        '# Portal drains its connections after the first SIGTERM for up to 1500ms (PORTAL_DRAIN_TIMEOUT), then exits.',
      ],
      [0, '20s', '# Portal closes its connections at once after SIGTERM (PORTAL_DRAIN_TIMEOUT), then exits.'],
    ] as const) {
      const text = renderUnit({ ...base, drainMs });
      assert.deepEqual(settings(text, 'TimeoutStopSec'), [timeout], `${drainMs} ms`);
      assert.ok(text.split('\n').includes(comment), comment);
    }
  });
});
