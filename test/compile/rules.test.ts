import assert from 'node:assert/strict';
import { compileUseCase } from '../../src/compile/compile.ts';
import { manifestProblems } from '../../src/compile/manifest.ts';
import { checkRules } from '../../src/compile/rules.ts';
import { formatProblem } from '../../src/shared/errors.ts';
import type { UseCaseManifest } from '../../src/shared/types/manifest.ts';
import { allUseCases, editedManifest, loadManifest } from '../support/usecases.ts';

function variant(usecase: string, edit: (manifest: UseCaseManifest) => void): UseCaseManifest {
  const manifest = structuredClone(loadManifest(usecase));
  edit(manifest);
  return manifest;
}

const pointers = (manifest: UseCaseManifest) => checkRules(manifest).map((violation) => violation.pointer);

describe('cross-field rules', () => {
  it('find nothing wrong with the bundled use cases', () => {
    for (const usecase of allUseCases) assert.deepEqual(checkRules(loadManifest(usecase)), [], usecase);
  });

  it('want the two tickets to carry different attributes', () => {
    const same = variant('postgres', (m) => {
      m.tickets = { ...m.tickets, inlet: { ...m.tickets?.inlet, attribute: 'postgres-outlet' } };
      m.outlet = { ...m.outlet, allow: 'postgres-outlet' };
    });
    assert.deepEqual(pointers(same), ['/tickets/inlet/attribute']);
  });

  it('keep --tls off the outlet ticket and require it for a TLS inlet', () => {
    assert.deepEqual(pointers(variant('bedrock', (m) => (m.tickets = { outlet: { tls: true } }))), [
      '/tickets/outlet/tls',
    ]);
    assert.deepEqual(pointers(variant('bedrock', (m) => (m.inlet = { ...m.inlet, tls: false }))), [
      '/verification/kind',
    ]);
    const explicit = variant('bedrock', (m) => {
      m.inlet = { ...m.inlet, tls: false };
      m.tickets = { inlet: { tls: true } };
    });
    assert.deepEqual(pointers(explicit), ['/tickets/inlet/tls', '/verification/kind']);
    assert.deepEqual(pointers(variant('bedrock', (m) => (m.tickets = { inlet: { tls: false } }))), ['/inlet/tls']);
  });

  it('tie the target placeholder to the endpoint that replaces it', () => {
    assert.deepEqual(
      pointers(variant('postgres', (m) => (m.outlet = { ...m.outlet, to: '$REDSHIFT_ENDPOINT:5432' }))),
      ['/outlet/to'],
    );
    assert.deepEqual(
      pointers(variant('postgres', (m) => delete m.outlet?.endpoint)),
      [],
      'the endpoint follows from the placeholder',
    );
    assert.deepEqual(
      pointers(
        variant('webhook', (m) => (m.outlet = { ...m.outlet, endpoint: loadManifest('postgres').outlet?.endpoint })),
      ),
      ['/outlet/endpoint'],
    );
    assert.deepEqual(pointers(variant('warehouse', (m) => delete m.outlet?.endpoint?.port)), [
      '/outlet/endpoint',
      '/outlet/endpoint/example',
    ]);
    assert.deepEqual(pointers(variant('postgres', (m) => m.outlet?.endpoint && (m.outlet.endpoint.port = 5432))), [
      '/outlet/endpoint/port',
      '/outlet/endpoint/example',
    ]);
  });

  it('match the endpoint source with its parameter or service', () => {
    assert.deepEqual(
      pointers(variant('postgres', (m) => m.outlet?.endpoint && delete m.outlet.endpoint.parameter)),
      [],
      'the parameter follows from the placeholder',
    );
    assert.deepEqual(
      pointers(variant('bedrock', (m) => m.outlet?.endpoint && (m.outlet.endpoint.parameter = 'RuntimeEndpoint'))),
      ['/outlet/endpoint/parameter'],
    );
    assert.deepEqual(pointers(variant('bedrock', (m) => m.outlet?.endpoint && delete m.outlet.endpoint.service)), [
      '/outlet/endpoint',
    ]);
    assert.deepEqual(
      pointers(variant('warehouse', (m) => m.outlet?.endpoint && (m.outlet.endpoint.example = 'wh.example:5440'))),
      ['/outlet/endpoint/example'],
    );
    assert.deepEqual(
      pointers(variant('postgres', (m) => m.outlet?.endpoint && (m.outlet.endpoint.example = 'db.example:5432'))),
      ['/outlet/endpoint/example'],
    );
  });

  it('make a bridge container publish the inlet port on 0.0.0.0, and a host container publish nothing', () => {
    assert.deepEqual(pointers(variant('bedrock', (m) => m.container && (m.container.publish = []))), [
      '/container/publish',
    ]);
    assert.deepEqual(pointers(variant('bedrock', (m) => m.container && (m.container.listen = '127.0.0.1'))), [
      '/container/listen',
    ]);
    assert.deepEqual(
      pointers(variant('bedrock', (m) => m.container && (m.container.publish = ['443:443', '99999:443']))),
      ['/container/publish/1'],
    );
    assert.deepEqual(pointers(variant('postgres', (m) => m.container && (m.container.publish = ['15432:15432']))), [
      '/container/publish',
    ]);
  });

  it('keep the status server off the inlet port and off a target on the same machine', () => {
    assert.deepEqual(pointers(variant('webhook', (m) => (m['status-port'] = 17777))), ['/status-port']);
    assert.deepEqual(pointers(variant('webhook', (m) => (m['status-port'] = 7777))), ['/status-port']);
    assert.deepEqual(
      pointers(variant('postgres', (m) => (m['status-port'] = 5432))),
      [],
      'a remote target may share the number',
    );
  });

  it("keep the inlet and the status server off the stack inlet's direct port, 4200", () => {
    const inletOnIt = checkRules(variant('postgres', (m) => (m.inlet = { ...m.inlet, port: 4200 })));
    assert.deepEqual(inletOnIt, [
      {
        pointer: '/inlet/port',
        message: "the stack inlet's direct path listens on port 4200; choose another inlet port",
      },
    ]);
    assert.deepEqual(pointers(variant('postgres', (m) => (m['status-port'] = 4200))), ['/status-port']);
    assert.deepEqual(
      pointers(variant('webhook', (m) => (m.outlet = { ...m.outlet, to: 'localhost:4200' }))),
      [],
      'the outlet machine does not listen on it',
    );
  });

  it('refuse an endpoint parameter named like something the stack already defines', () => {
    for (const taken of ['VpcId', 'StateFileSystem', 'NodeRole']) {
      const violations = checkRules(
        variant('postgres', (m) => m.outlet?.endpoint && (m.outlet.endpoint.parameter = taken)),
      );
      assert.deepEqual(
        violations.map((v) => v.pointer),
        ['/outlet/endpoint/parameter'],
        taken,
      );
      assert.match(
        violations[0]?.message ?? '',
        new RegExp(`^"${taken}" is already a name in the stack; choose another, such as PostgresEndpoint$`),
      );
    }
  });

  it('want a literal host:port for a webhook receiver beside the outlet', () => {
    const placeholder = variant('webhook', (m) => {
      m.outlet = { ...m.outlet, to: '$POSTGRES_ENDPOINT:7777', endpoint: loadManifest('postgres').outlet?.endpoint };
    });
    assert.deepEqual(pointers(placeholder), ['/outlet/to']);
  });

  it('keep each ticket lifetime within what portal project ticket --expires-in accepts: positive, at most 30d', () => {
    const hint = 'give a whole number followed by ms, s, m, h or d (such as 10h or 1h30m), at most 30d';
    assert.deepEqual(checkRules(variant('webhook', (m) => (m.tickets = { inlet: { 'expires-in': '400d' } }))), [
      { pointer: '/tickets/inlet/expires-in', message: `"400d" is longer than 30d; ${hint}` },
    ]);
    assert.deepEqual(checkRules(variant('webhook', (m) => (m.tickets = { outlet: { 'expires-in': '0h' } }))), [
      { pointer: '/tickets/outlet/expires-in', message: `"0h" must be positive; ${hint}` },
    ]);
    assert.deepEqual(
      checkRules(variant('webhook', (m) => (m.tickets = { outlet: { 'expires-in': '1h30m' } }))),
      [],
      'the CLI takes combined units',
    );
    assert.deepEqual(checkRules(variant('webhook', (m) => (m.tickets = { outlet: { 'expires-in': '30d' } }))), []);
  });

  it('locate an out-of-range expires-in in the manifest by file, line, column and pointer', () => {
    const text = editedManifest('webhook', [[['tickets', 'inlet', 'expires-in'], '400d']]);
    const line = text.split('\n').findIndex((row) => row.includes('expires-in: 400d')) + 1;
    const column = (text.split('\n')[line - 1] ?? '').indexOf('400d') + 1;
    const { problems } = manifestProblems('webhook.yaml', text);
    assert.deepEqual(problems.map(formatProblem), [
      `webhook.yaml:${line}:${column}: /tickets/inlet/expires-in: "400d" is longer than 30d; ` +
        'give a whole number followed by ms, s, m, h or d (such as 10h or 1h30m), at most 30d',
    ]);
    const unknownUnit = manifestProblems(
      'webhook.yaml',
      editedManifest('webhook', [[['tickets', 'inlet', 'expires-in'], '1w']]),
    ).problems.map((p) => p.message);
    assert.deepEqual(unknownUnit, [
      'expected a duration: a whole number followed by ms, s, m, h or d (such as 10h or 1h30m), got "1w"',
    ]);
  });

  it('take an allow expression that admits the other ticket, and carry it to the guide and the ticket commands', () => {
    const policy = variant('postgres', (m) => {
      m.tickets = { ...m.tickets, inlet: { ...m.tickets?.inlet, attributes: ['team=ops', 'env=prod'] } };
      m.outlet = { ...m.outlet, allow: 'team = "ops" and env in ["prod", "staging"]' };
    });
    assert.deepEqual(checkRules(policy), []);
    const files = new Map(compileUseCase(policy).map((artifact) => [artifact.path, artifact.content]));
    assert.match(
      files.get('tickets.sh') ?? '',
      /--attribute postgres-inlet --attribute team=ops --attribute env=prod/,
      'one --attribute each, bare shell words',
    );
    assert.match(
      files.get('README.md') ?? '',
      /\| Accepts a peer with \| `team = "ops" and env in \["prod", "staging"\]` \| `postgres-outlet` \|/,
    );
    const outlet = JSON.parse(files.get('outlet.json') ?? '{}') as { 'tcp-outlet': { allow: string } };
    assert.equal(outlet['tcp-outlet'].allow, 'team = "ops" and env in ["prod", "staging"]');
  });

  it('refuse an allow that does not admit the other ticket, or does not read, with its column', () => {
    const text = editedManifest('postgres', [
      [['outlet', 'allow'], 'team = "ops" and env = "prod"'],
      [['inlet', 'allow'], 'postgres-outlet or'],
      [
        ['tickets', 'inlet', 'attributes'],
        ['team=ops', 'env=dev'],
      ],
    ]);
    const { problems } = manifestProblems('postgres.yaml', text);
    assert.deepEqual(
      problems.map((problem) => `${problem.pointer}: ${problem.message}`),
      [
        '/outlet/allow: the outlet\'s allow (team = "ops" and env = "prod") does not admit the inlet ticket\'s ' +
          'attributes ("postgres-inlet", "team=ops", "env=dev"); ' +
          'change outlet.allow, or the attributes of tickets.inlet',
        '/inlet/allow: inlet.allow is neither an attribute name nor an expression: column 19: expected an attribute ' +
          'name, "(" or "not", found the end of the expression (give a name such as postgres-inlet, or an ' +
          'expression such as team = "ops" and env = "prod")',
      ],
    );
    assert.ok(
      problems.every((problem) => problem.line > 1 && problem.column > 1),
      'located in the file',
    );
    const twice = variant('postgres', (m) => {
      m.tickets = { ...m.tickets, inlet: { ...m.tickets?.inlet, attributes: ['team=ops', 'team=dev'] } };
    });
    assert.deepEqual(pointers(twice), ['/tickets/inlet/attributes']);
  });
});
