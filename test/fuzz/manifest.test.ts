import assert from 'node:assert/strict';
import fc from 'fast-check';
import { compileUseCase } from '../../src/compile/compile.ts';
import { parseManifest } from '../../src/compile/manifest.ts';
import type { UseCaseManifest } from '../../src/shared/types/manifest.ts';
import { allUseCases, loadManifest } from '../support/usecases.ts';
import { assertTypedRejection, fuzz, hostileText, timed } from './fuzz.ts';
import { edited, rendered, yamlText } from './yaml-text.ts';

const file = 'usecase.yaml';
const bundled = fc.constantFrom(...allUseCases).map((usecase) => loadManifest(usecase));

/** Parses; a rejection must be the project's located ValidationError. Returns undefined when refused. */
function parsed(text: string): UseCaseManifest | undefined {
  try {
    return timed(2000, () => parseManifest(file, text));
  } catch (error) {
    assertTypedRejection(error, file);
    return undefined;
  }
}

/** An accepted manifest is plain data no bigger than its text allows, and compiles or is refused as bad input. */
function assertCompiles(manifest: UseCaseManifest, text: string): void {
  const json = JSON.stringify(manifest);
  assert.deepEqual(JSON.parse(json), manifest, 'plain JSON data (no Map, Set, Date or binary from YAML tags)');
  assert.ok(json.length <= 8 * text.length + 256, `${json.length} characters of manifest from ${text.length} of text`);
  let artifacts;
  try {
    artifacts = timed(5000, () => compileUseCase(manifest));
  } catch (error) {
    // A limit of a target format (a CloudFormation length, say) is bad input, refused before writing.
    assertTypedRejection(error, file);
    return;
  }
  assert.ok(artifacts.length > 0, 'some output');
  for (const artifact of artifacts) {
    assert.match(artifact.path, /^[A-Za-z0-9._/-]+$/, 'an output path inside the use case folder');
    assert.ok(!artifact.path.split('/').includes('..'), artifact.path);
    assert.equal(typeof artifact.content, 'string', artifact.path);
  }
}

/** A value of a field: mostly a plausible one, sometimes hostile text. */
const either = <T>(plausible: fc.Arbitrary<T>) => fc.oneof({ arbitrary: plausible, weight: 12 }, hostileText(4));

const port = fc.oneof(
  { arbitrary: fc.integer({ min: 1024, max: 65535 }), weight: 8 },
  fc.constantFrom(4200, 4201, 23345, 0, 70000),
);
const placeholder = fc.constantFrom('REDIS_ENDPOINT', 'DB', 'DB_REPLICA', 'API_HOST', 'lower', 'VPC_ID');
const target = fc.oneof(
  fc.tuple(placeholder, fc.option(port, { nil: undefined })).map(([name, p]) => (p ? `$${name}:${p}` : `$${name}`)),
  fc.tuple(fc.constantFrom('localhost', 'db.internal.example', '[::1]'), port).map(([host, p]) => `${host}:${p}`),
);
const verification = fc.oneof(
  fc.record(
    {
      kind: fc.constant('tcp'),
      send: either(fc.constantFrom('PING\r\n', 'HELO x\r\n', '\u0001\u00ff')),
      expect: either(fc.constantFrom('+PONG', 'SSH-', '250')),
      label: either(fc.constantFrom('cache', 'api')),
    },
    { requiredKeys: ['kind'] },
  ),
  fc.record(
    {
      kind: fc.constant('http'),
      method: fc.constantFrom('GET', 'HEAD', 'POST', 'BREW'),
      path: either(fc.webPath()),
      status: fc.integer({ min: 0, max: 700 }),
    },
    { requiredKeys: ['kind'] },
  ),
  fc.record({
    kind: fc.constant('command'),
    run: fc
      .array(either(fc.constantFrom('{host}', '{port}', '{ca}', '{name}', '-h', '{x}', '{"a": 1}')), { maxLength: 6 })
      .map((words) => ['redis-cli', ...words]),
  }),
);
const endpoint = fc.oneof(
  fc.record(
    {
      parameter: either(fc.constantFrom('CacheHost', 'VpcId', 'NodeClientIngressA')),
      port,
      label: either(fc.constantFrom('the cache', 'API server (host only)')),
    },
    { requiredKeys: [] },
  ),
  fc.record({
    source: fc.constant('vpc-endpoint'),
    service: either(
      fc.constantFrom(
        'bedrock-runtime',
        'com.amazonaws.eu-west-1.sts',
        'com.amazonaws.vpce.us-east-1.vpce-svc-0123456789abcdef0',
      ),
    ),
  }),
);
const outlet = fc.record({ to: target, tls: fc.boolean(), endpoint }, { requiredKeys: ['to'] });
const portalEntry = fc.record(
  {
    name: either(fc.constantFrom('a', 'b', 'orders-db', 'cache')),
    outlet,
    inlet: fc.record({ port, tls: fc.boolean() }, { requiredKeys: ['port'] }),
    verification,
  },
  { requiredKeys: ['name', 'outlet', 'inlet'] },
);
/** Manifests of the open shapes: one portal or several, any verification kind, endpoints of both sources. */
const openManifest = fc.oneof(
  fc.record({
    usecase: fc.constantFrom('svc', 'redis', 'shop'),
    title: fc.constant('A service'),
    outlet,
    inlet: fc.record({ port, tls: fc.boolean() }, { requiredKeys: ['port'] }),
    verification,
  }),
  fc.record({
    usecase: fc.constant('shop'),
    title: fc.constant('Shop'),
    portals: fc.uniqueArray(portalEntry, { minLength: 1, maxLength: 4, selector: (portal) => portal.name }),
  }),
);

describe('fuzz: use-case manifests (parseManifest, then compileUseCase)', () => {
  it('compiles or refuses at located fields manifests of the open shapes: portals, kinds, endpoints', async () => {
    await fuzz(
      'manifest, open shapes',
      fc.property(
        openManifest.chain((data) => rendered(data)),
        (text) => {
          const manifest = parsed(text);
          if (manifest) assertCompiles(manifest, text);
        },
      ),
      60,
    );
  });

  it('accepts a manifest or refuses it with located problems, for any YAML text', async () => {
    await fuzz(
      'manifest, any text',
      fc.property(yamlText(), (text) => {
        const manifest = parsed(text);
        if (manifest) assertCompiles(manifest, text);
      }),
      200,
    );
  });

  it('compiles or refuses as bad input the bundled manifests edited anywhere (hostile strings included)', async () => {
    await fuzz(
      'manifest, edited',
      fc.property(
        bundled.chain((manifest) => edited(manifest)).chain((data) => rendered(data)),
        (text) => {
          const manifest = parsed(text);
          if (manifest) assertCompiles(manifest, text);
        },
      ),
      40,
    );
  });

  it('reads back every bundled manifest written as YAML, flow YAML or JSON', async () => {
    await fuzz(
      'manifest round trip',
      fc.property(
        bundled.chain((manifest) => fc.tuple(fc.constant(manifest), rendered(manifest))),
        ([manifest, text]) => {
          assert.deepEqual(parseManifest(file, text), manifest);
        },
      ),
      20,
    );
  });
});
