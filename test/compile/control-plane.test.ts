import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { compileUseCase } from '../../src/compile/compile.ts';
import { manifestProblems } from '../../src/compile/manifest.ts';
import { formatProblem } from '../../src/shared/errors.ts';
import type { UseCaseManifest } from '../../src/shared/types/manifest.ts';

const useCase = ['usecase: db', 'title: A database', 'outlet:', '  to: db.internal:5432', 'inlet:', '  port: 15432'];
const withPlane = (...plane: string[]) => [...useCase, 'control-plane:', ...plane.map((line) => `  ${line}`)];

function problems(lines: readonly string[]): string[] {
  return manifestProblems('m.yaml', `${lines.join('\n')}\n`).problems.map((p) => `${p.pointer}: ${p.message}`);
}

function artifacts(lines: readonly string[]): Map<string, string> {
  const result = manifestProblems('m.yaml', `${lines.join('\n')}\n`);
  assert.deepEqual(result.problems.map(formatProblem), []);
  return new Map(compileUseCase(result.manifest as UseCaseManifest).map((file) => [file.path, file.content]));
}

interface Service {
  image: string;
  container_name: string;
  network_mode: string;
  command: string[];
  environment?: Record<string, string>;
  secrets?: string[];
  volumes?: string[];
  profiles?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
}

interface Compose {
  services: Record<string, Service>;
  secrets: Record<string, { file: string }>;
  volumes: Record<string, unknown>;
}

const composeOf = (files: Map<string, string>): Compose =>
  parse(files.get('control-plane/compose.yaml') ?? '') as Compose;

/** The value after `flag` in `command`, each time it appears. */
const flagValues = (command: readonly string[], flag: string): string[] =>
  command.flatMap((word, index) => (word === flag ? [command[index + 1] ?? ''] : []));

describe('the compiled control plane (control-plane: in a manifest)', () => {
  it('is compiled only when the manifest asks for it, under control-plane/', () => {
    const without = [...artifacts(useCase).keys()];
    assert.equal(without.filter((path) => path.startsWith('control-plane/')).length, 0);
    const files = [...artifacts(withPlane('address: portal.example.net')).keys()];
    for (const path of ['control-plane/compose.yaml', 'control-plane/README.md'])
      assert.ok(files.includes(path), `${path} is compiled`);
  });

  it('takes an address and bounded counts, and says what a wrong one should be', () => {
    assert.deepEqual(problems(withPlane('replicas: 3')), ['/control-plane: missing required key "address"']);
    assert.match(
      problems(withPlane('address: Portal.Example.NET'))[0] ?? '',
      /^\/control-plane\/address: .*lower-case DNS name/,
    );
    assert.match(
      problems(withPlane('address: a.example.net', 'replicas: 1'))[0] ?? '',
      /^\/control-plane\/replicas: .*2/,
    );
    assert.match(problems(withPlane('address: a.example.net', 'relays: 10'))[0] ?? '', /^\/control-plane\/relays: .*9/);
    assert.match(problems(withPlane('address: a.example.net', 'leader: 1'))[0] ?? '', /^\/control-plane/);
  });

  it('refuses ports that meet on the compose machine or pass 65535, naming the key', () => {
    assert.deepEqual(problems(withPlane('address: a.example.net', 'port: 4000', 'relay-port: 4002')), [
      '/control-plane/relay-port: relay 1 and controller replica 3 would both listen on port 4002 of the compose ' +
        'machine; choose ports whose ranges do not meet',
    ]);
    assert.deepEqual(problems(withPlane('address: a.example.net', 'port: 65534')), [
      '/control-plane/port: controller replica 3 would listen on port 65536, past 65535; choose a lower port',
    ]);
    assert.deepEqual(problems(withPlane('address: a.example.net', 'relay-port: 5432')), [
      '/control-plane/relay-port: PostgreSQL and relay 1 would both listen on port 5432 of the compose machine; ' +
        'choose ports whose ranges do not meet',
    ]);
    assert.deepEqual(problems(withPlane('address: a.example.net', 'port: 9459')), [
      "/control-plane/port: controller replica 1's status server and controller replica 2 would both listen on port " +
        '9460 of the compose machine; choose ports whose ranges do not meet',
    ]);
  });

  describe('compose.yaml', () => {
    const compose = composeOf(artifacts(withPlane('address: portal.example.net', 'replicas: 3', 'relays: 2')));
    const replicas = ['controller-1', 'controller-2', 'controller-3'].map((name) => compose.services[name] as Service);

    it('runs PostgreSQL on loopback with its password from a secret file, and keeps its data in a volume', () => {
      const database = compose.services.database as Service;
      assert.deepEqual(database.command, ['postgres', '-c', 'listen_addresses=127.0.0.1', '-c', 'port=5432']);
      assert.equal(database.environment?.POSTGRES_PASSWORD_FILE, '/run/secrets/database-password');
      assert.deepEqual(compose.secrets, {
        'controller-seal-key': { file: './controller-seal.key' },
        'database-password': { file: './database.password' },
      });
      assert.deepEqual(database.volumes, ['database:/var/lib/postgresql/data']);
    });

    it('runs each replica on its own port, announcing every replica, on the database, with no relay of its own', () => {
      const addresses = ['portal.example.net:4000', 'portal.example.net:4001', 'portal.example.net:4002'];
      replicas.forEach((replica, index) => {
        assert.deepEqual(flagValues(replica.command, '--listen'), [`0.0.0.0:${4000 + index}`]);
        assert.deepEqual(flagValues(replica.command, '--public-address'), addresses);
        assert.deepEqual(flagValues(replica.command, '--store'), ['postgres://portal@127.0.0.1:5432/portal']);
        assert.deepEqual(flagValues(replica.command, '--store-password-file'), ['/run/secrets/database-password']);
        assert.deepEqual(flagValues(replica.command, '--sealing-key-file'), ['/run/secrets/controller-seal-key']);
        assert.deepEqual(flagValues(replica.command, '--status-listen'), [`127.0.0.1:${9460 + index}`]);
        assert.ok(replica.command.includes('--no-relay'));
        assert.deepEqual(replica.depends_on, { database: { condition: 'service_healthy' } });
        assert.match(replica.healthcheck?.test.join(' ') ?? '', new RegExp(`port: ${9460 + index}, .*/healthz`));
      });
    });

    it('starts the relays only in their profile, each announcing its own port, its key apart from its state', () => {
      for (const [index, name] of ['relay-1', 'relay-2'].entries()) {
        const relay = compose.services[name] as Service;
        assert.deepEqual(relay.profiles, ['relays']);
        assert.deepEqual(flagValues(relay.command, '--public-address'), [`portal.example.net:${4100 + index}`]);
        assert.deepEqual(relay.environment, { ENROLLMENT_TICKET: '${RELAY_TICKET:-}' });
        assert.deepEqual(relay.volumes, [`${name}-state:/var/lib/portal`, `${name}-keys:/var/lib/portal/keys`]);
      }
      assert.equal(Object.keys(compose.services).length, 1 + 3 + 2);
    });

    it('holds no secret: every password and key comes from a file the administrator makes', () => {
      const text = JSON.stringify(compose);
      assert.doesNotMatch(text, /PASSWORD"\s*:\s*"(?!\/run\/secrets)/);
      for (const service of Object.values(compose.services))
        assert.equal(
          service.command.some((word) => /password=|seal(ing)?-key=/i.test(word)),
          false,
        );
    });
  });

  it("writes a guide whose compose commands name the file's secrets, containers and profile", () => {
    const files = artifacts(withPlane('address: portal.example.net', 'relays: 3'));
    const guide = files.get('control-plane/README.md') ?? '';
    const compose = composeOf(files);
    for (const secret of Object.values(compose.secrets)) assert.ok(guide.includes(secret.file.slice(2)), secret.file);
    assert.ok(guide.includes(`docker logs ${compose.services['controller-1']?.container_name}`));
    assert.ok(guide.includes('../tickets.sh --controller portal.example.net:4000 --code'));
    assert.ok(guide.includes('portal project ticket --relay-node --usage-count 3 > relay.ticket'));
    assert.ok(
      guide.includes('RELAY_TICKET="$(cat relay.ticket)" docker-compose -f compose.yaml --profile relays up -d'),
    );
  });
});
