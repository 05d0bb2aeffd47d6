import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseNodeConfig } from '../../src/node/config.ts';
import { imageConfig, readDockerfile } from '../support/dockerfile.ts';
import { Ajv } from 'ajv';
import { parse, stringify } from 'yaml';
import { allUseCases, artifactText, compiled, containerUseCases, projectRoot } from '../support/usecases.ts';

// The official compose-spec schema, as the dclint package ships it (its exports do not list the file).
// It names draft-07 by its https address, which ajv knows by its http one: draft-07 is ajv's default.
const { $schema: _draft, ...composeSchema } = JSON.parse(
  readFileSync(join(projectRoot, 'node_modules/dclint/schemas/compose.schema.json'), 'utf8'),
) as Record<string, unknown>;
const validateCompose = new Ajv({ allErrors: true, strict: false }).compile(composeSchema);

interface Service {
  image: string;
  container_name: string;
  network_mode: string;
  command: string[];
  environment?: Record<string, string>;
  ports?: string[];
  depends_on?: string[];
  restart?: string;
  stop_grace_period?: string;
}

function compose(usecase: string): { services: Record<string, Service> } {
  return parse(artifactText(usecase, 'inlet.compose.yaml')) as { services: Record<string, Service> };
}

/** What compose does with ${VAR}, ${VAR:-default} and ${VAR:?error} when the shell sets `variables`. */
function interpolate(text: string, variables: Record<string, string>): string {
  return text.replace(
    /\$\{([A-Z_]+)(?::([-?])([^}]*))?\}/g,
    (_, name: string, operator: string | undefined, word: string) => {
      const value = variables[name];
      if (value !== undefined && value !== '') return value;
      if (operator === '?') throw new Error(word);
      return operator === '-' ? word : '';
    },
  );
}

describe('compose files (spec 2.5)', () => {
  for (const usecase of containerUseCases) {
    it(`${usecase}: conforms to the compose specification schema`, () => {
      const valid = validateCompose(compose(usecase));
      assert.equal(valid, true, JSON.stringify(validateCompose.errors, null, 2));
    });
  }

  it('is written for both nodes of every use case, each conforming to the compose specification', () => {
    for (const usecase of allUseCases) {
      for (const role of ['outlet', 'inlet']) {
        assert.ok(compiled(usecase).has(`${role}.compose.yaml`), `${usecase} ${role}`);
        const file = parse(artifactText(usecase, `${role}.compose.yaml`)) as unknown;
        assert.equal(validateCompose(file), true, `${usecase} ${role}: ${JSON.stringify(validateCompose.errors)}`);
      }
    }
  });

  it('runs the outlet as <usecase>-outlet on the host network, its ticket and endpoints from the shell', () => {
    const outlet = (usecase: string) =>
      (parse(artifactText(usecase, 'outlet.compose.yaml')) as { services: Record<string, Service> }).services;
    const { node } = outlet('redis');
    assert.equal(node?.container_name, 'redis-outlet');
    assert.equal(node?.network_mode, 'host');
    assert.equal(node?.ports, undefined, 'it opens no port');
    assert.equal(node?.restart, 'unless-stopped');
    assert.deepEqual(node?.environment, {
      ENROLLMENT_TICKET: '${ENROLLMENT_TICKET:?set ENROLLMENT_TICKET to the contents of outlet.ticket}',
      NODE_LOGGING: 'true',
      NODE_LOG_LEVEL: 'info',
      PORTAL_SEALING_KEY_FILE: '/var/lib/portal-keys/node-seal.key',
      REDIS_ENDPOINT: "${REDIS_ENDPOINT:?set REDIS_ENDPOINT to the endpoint's value, as README.md says}",
    });
    assert.deepEqual(parse(node?.command[4] ?? ''), JSON.parse(artifactText('redis', 'outlet.json')));
    assert.deepEqual(
      Object.keys(outlet('shop').node?.environment ?? {}).filter((name) => name.endsWith('_ENDPOINT')),
      ['CACHE_ENDPOINT', 'ORDERS_DB_ENDPOINT'],
      'one variable per placeholder',
    );
    assert.equal(outlet('webhook').node?.environment?.ENROLLMENT_TICKET?.includes('outlet.ticket'), true);
  });

  it('runs a client container beside the inlet where the manifest names one', () => {
    const { client } = compose('redis').services;
    assert.deepEqual(client, {
      command: ['/bin/sh', '-c', 'while true; do sleep 30; done'],
      container_name: 'redis-client',
      depends_on: ['node'],
      image: 'redis:7',
      network_mode: 'host',
    });
    assert.equal(compose('api').services.client, undefined);
  });

  it('docker-compose config -q takes the outlet with its ticket and endpoint, and names what is missing', () => {
    const file = join(projectRoot, 'out', 'redis', 'outlet.compose.yaml');
    const check = (env: Record<string, string>) =>
      spawnSync('docker-compose', ['-f', file, 'config', '-q'], {
        env: { PATH: process.env.PATH, ...env },
        encoding: 'utf8',
      });
    const accepted = check({ ENROLLMENT_TICKET: 'pt1.aBc-123_xyz', REDIS_ENDPOINT: 'cache.internal.example' });
    assert.equal(accepted.status, 0, accepted.stderr);
    const noEndpoint = check({ ENROLLMENT_TICKET: 'pt1.aBc-123_xyz' });
    assert.equal(noEndpoint.status, 1);
    assert.match(noEndpoint.stderr, /set REDIS_ENDPOINT to the endpoint's value, as README\.md says/);
    const noTicket = check({ REDIS_ENDPOINT: 'cache.internal.example' });
    assert.equal(noTicket.status, 1);
    assert.match(noTicket.stderr, /set ENROLLMENT_TICKET to the contents of outlet\.ticket/);
  });

  it('runs the node as <usecase>-inlet with the spec environment', () => {
    for (const usecase of containerUseCases) {
      const node = compose(usecase).services.node;
      assert.ok(node, `${usecase} has a node service`);
      assert.equal(node.container_name, `${usecase}-inlet`);
      assert.equal(node.image, 'portal-node');
      assert.deepEqual(node.command.slice(0, 3), ['node', 'create', '--foreground']);
      assert.equal(
        node.environment?.ENROLLMENT_TICKET,
        '${ENROLLMENT_TICKET:?set ENROLLMENT_TICKET to the contents of inlet.ticket}',
      );
      assert.equal(node.environment?.NODE_LOGGING, 'true');
      assert.equal(node.restart, 'unless-stopped', 'the inlet comes back with the Docker host');
      assert.equal(
        node.stop_grace_period,
        '30s',
        "docker stop waits for the node's drain (10 s by default) and 20 s more, rather than the 10 s that " +
          'would kill it mid-drain',
      );
    }
    const levels = containerUseCases.map((usecase) => compose(usecase).services.node?.environment?.NODE_LOG_LEVEL);
    assert.deepEqual(levels, ['debug', 'info', 'info', 'info']);
    assert.equal(compose('postgres').services.node?.environment?.NODE_DEVELOPER, '${NODE_DEVELOPER:-false}');
  });

  it("keeps the node's sealing key on a named volume of its own, apart from the image's state volume", async () => {
    const image = imageConfig(await readDockerfile());
    const [stateVolume, keysVolume] = image.volumes;
    assert.equal(stateVolume, image.env.PORTAL_HOME);
    for (const usecase of containerUseCases) {
      const file = compose(usecase) as {
        services: Record<string, Service & { volumes?: string[] }>;
        volumes?: Record<string, unknown>;
      };
      const node = file.services.node;
      const keyFile = node?.environment?.PORTAL_SEALING_KEY_FILE ?? '';
      assert.equal(dirname(keyFile), keysVolume, `${usecase}: the key file lies on the image's keys volume`);
      assert.equal(keyFile, image.env.PORTAL_SEALING_KEY_FILE, 'the same file the image names by default');
      assert.ok(!keyFile.startsWith(`${stateVolume}/`), 'not beside the state it seals');
      assert.deepEqual(node?.volumes, [`portal-keys:${keysVolume}`]);
      assert.deepEqual(file.volumes, { 'portal-keys': {} }, 'a named volume: it outlives the container');
    }
  });

  it('uses the host network with a psql client for the warehouse and PostgreSQL', () => {
    for (const usecase of ['warehouse', 'postgres']) {
      const { node, 'psql-client': client } = compose(usecase).services;
      assert.equal(node?.network_mode, 'host');
      assert.equal(node?.ports, undefined);
      assert.equal(client?.network_mode, 'host');
      assert.equal(client?.container_name, 'psql-client');
      assert.deepEqual(client?.depends_on, ['node']);
      assert.deepEqual(client?.command, ['/bin/sh', '-c', 'while true; do sleep 30; done']);
    }
  });

  it('uses a bridge network publishing 443:443 for the foundation model, with no psql client', () => {
    const { services } = compose('bedrock');
    assert.equal(services.node?.network_mode, 'bridge');
    assert.deepEqual(services.node?.ports, ['443:443']);
    assert.deepEqual(Object.keys(services), ['node']);
  });

  it('gives the configuration with --configuration (warehouse, foundation model) or --node-config (PostgreSQL)', () => {
    const expected = {
      warehouse: [
        '--configuration',
        {
          'http-server-port': 23345,
          'tcp-inlet': { from: '127.0.0.1:15439', via: 'warehouse', allow: 'warehouse-outlet', direct: false },
        },
      ],
      bedrock: [
        '--configuration',
        {
          'http-server-port': 23345,
          'tcp-inlet': { from: '0.0.0.0:443', via: 'bedrock', allow: 'bedrock-outlet', tls: true, direct: false },
        },
      ],
      postgres: [
        '--node-config',
        {
          'http-server-port': 23345,
          'tcp-inlet': { from: '127.0.0.1:15432', via: 'postgres', allow: 'postgres-outlet', direct: false },
        },
      ],
    } as const;
    for (const [usecase, [flag, configuration]] of Object.entries(expected)) {
      const command = compose(usecase).services.node?.command ?? [];
      assert.equal(command.length, 5, command.join(' '));
      assert.equal(command[3], flag);
      assert.deepEqual(parse(command[4] ?? ''), configuration);
    }
  });

  it('keeps the ticket off the command line: it reaches the node only through its environment', () => {
    for (const usecase of containerUseCases) {
      const node = compose(usecase).services.node;
      const command = (node?.command ?? []).join('\n');
      assert.ok(
        !command.includes('ENROLLMENT_TICKET') &&
          !command.includes('--enrollment-ticket') &&
          !/^ticket:/m.test(command),
        `${usecase}: ${command}`,
      );
      assert.equal(
        interpolate(node?.environment?.ENROLLMENT_TICKET ?? '', { ENROLLMENT_TICKET: 'pt1.aBc-123_xyz' }),
        'pt1.aBc-123_xyz',
      );
    }
  });

  for (const usecase of containerUseCases) {
    it(
      `${usecase}: docker-compose config -q accepts it with a ticket and refuses it, ` + 'naming the fix, without one',
      () => {
        const file = join(projectRoot, 'out', usecase, 'inlet.compose.yaml');
        const check = (ticket: string | undefined) =>
          spawnSync('docker-compose', ['-f', file, 'config', '-q'], {
            env: { PATH: process.env.PATH, ...(ticket === undefined ? {} : { ENROLLMENT_TICKET: ticket }) },
            encoding: 'utf8',
          });
        const accepted = check('pt1.aBc-123_xyz');
        assert.equal(
          accepted.error,
          undefined,
          'docker-compose is installed (Debian package docker-compose; .ci/run installs it)',
        );
        assert.equal(accepted.status, 0, accepted.stderr);
        for (const missing of [undefined, '']) {
          const refused = check(missing);
          assert.equal(refused.status, 1);
          assert.match(refused.stderr, /set ENROLLMENT_TICKET to the contents of inlet\.ticket/);
        }
      },
    );
  }

  for (const usecase of containerUseCases) {
    it(
      `${usecase}: keeps the direct path off, and the guide's edits turn it on in a file compose ` +
        'and the node accept',
      () => {
        const original = artifactText(usecase, 'inlet.compose.yaml');
        assert.equal(original.split('direct: false').length, 2, 'one place to change, as the guide says');
        const file = parse(original.replace('direct: false', 'direct: 0.0.0.0:4200')) as {
          services: Record<string, Service>;
        };
        const node = file.services.node as Service;
        assert.equal(
          node.environment?.PORTAL_DIRECT_ADVERTISE,
          undefined,
          'nothing advertised until the operator says where',
        );
        node.environment = { ...node.environment, PORTAL_DIRECT_ADVERTISE: '203.0.113.7:4200' };
        if (node.network_mode === 'bridge') node.ports = [...(node.ports ?? []), '4200:4200'];
        const configuration = parseNodeConfig(`${usecase} command`, node.command[4] ?? '');
        assert.equal(configuration['tcp-inlet']?.direct, '0.0.0.0:4200');
        const dir = mkdtempSync(join(tmpdir(), 'portal-compose-direct-'));
        try {
          const edited = join(dir, 'inlet.compose.yaml');
          writeFileSync(edited, stringify(file));
          const check = spawnSync('docker-compose', ['-f', edited, 'config', '-q'], {
            env: { PATH: process.env.PATH, ENROLLMENT_TICKET: 'pt1.aBc-123_xyz' },
            encoding: 'utf8',
          });
          assert.equal(check.status, 0, check.stderr);
          assert.equal(validateCompose(file), true, JSON.stringify(validateCompose.errors));
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      },
    );
  }

  it('stops compose with a clear message when ENROLLMENT_TICKET is unset', () => {
    for (const usecase of containerUseCases) {
      const environment = JSON.stringify(compose(usecase).services.node?.environment ?? {});
      assert.throws(
        () => interpolate(environment, {}),
        /set ENROLLMENT_TICKET to the contents of inlet\.ticket/,
        usecase,
      );
    }
  });
});
