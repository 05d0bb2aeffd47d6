/**
 * Manifests for any TCP service: names derived from the use case, any endpoint placeholder and
 * PrivateLink service, verifications of any kind, several portals on one pair of nodes, and every
 * problem reported in one pass. Pure: manifests in memory, compiled in memory.
 */
import assert from 'node:assert/strict';
import { compileUseCase } from '../../src/compile/compile.ts';
import { manifestProblems } from '../../src/compile/manifest.ts';
import { resolveUseCase } from '../../src/compile/model.ts';
import { parseCfnYaml } from '../../src/compile/stack/cfn-yaml.ts';
import { formatProblem } from '../../src/shared/errors.ts';
import type { UseCaseManifest } from '../../src/shared/types/manifest.ts';

/** Problems of a manifest written as YAML lines, as "pointer: message". */
function problems(...lines: string[]): string[] {
  return manifestProblems('m.yaml', `${lines.join('\n')}\n`).problems.map((p) => `${p.pointer}: ${p.message}`);
}

function parsed(...lines: string[]): UseCaseManifest {
  const result = manifestProblems('m.yaml', `${lines.join('\n')}\n`);
  assert.deepEqual(result.problems.map(formatProblem), []);
  return result.manifest as UseCaseManifest;
}

const head = ['usecase: redis', 'title: Redis cache'];

interface Stack {
  Parameters: Record<string, { Default?: string; Description: string }>;
  Resources: Record<string, { Type: string; Properties: Record<string, unknown>; DependsOn?: string[] }>;
  Outputs: Record<string, unknown>;
}

function stackOf(manifest: UseCaseManifest, role: 'outlet' | 'inlet'): Stack {
  const artifact = compileUseCase(manifest).find((a) => a.path === `${role}.stack.yaml`);
  return parseCfnYaml(artifact?.content ?? '') as Stack;
}

function userData(stack: Stack): unknown {
  const launch = stack.Resources.NodeLaunchTemplate?.Properties.LaunchTemplateData as { UserData: unknown };
  return (launch.UserData as { 'Fn::Base64': unknown })['Fn::Base64'];
}

describe('open manifests: any TCP service', () => {
  it('locates a portal name that is not text, with no other rule tripping over it', () => {
    assert.deepEqual(
      problems(
        ...head,
        'portals:',
        '  - name: []',
        '    outlet: { to: $ORDERS_DB_ENDPOINT:5432 }',
        '    inlet: { port: 15432 }',
        '  - name: cache',
        '    outlet: { to: $CACHE_ENDPOINT:6379 }',
        '    inlet: { port: 16379 }',
      ),
      [
        '/portals/0/name: expected a lower-case name of letters, digits and dashes, such as orders-db ' +
          '(at most 32, not ending in a dash), got a list',
      ],
    );
  });

  it('derives every name a first manifest leaves out from the use case', () => {
    const useCase = resolveUseCase(parsed(...head, 'outlet:', '  to: $REDIS_ENDPOINT:6379', 'inlet:', '  port: 16379'));
    assert.deepEqual(useCase.tickets, {
      outlet: {
        expiresIn: '10h',
        usageCount: 1,
        attribute: 'redis-outlet',
        attributes: ['redis-outlet'],
        relays: ['redis'],
        tls: false,
      },
      inlet: {
        expiresIn: '10h',
        usageCount: 1,
        attribute: 'redis-inlet',
        attributes: ['redis-inlet'],
        relays: [],
        tls: false,
      },
    });
    const [portal] = useCase.portals;
    assert.deepEqual(portal?.outlet, {
      to: '$REDIS_ENDPOINT:6379',
      tls: false,
      relay: 'redis',
      allow: 'redis-inlet',
      endpoint: {
        placeholder: 'REDIS_ENDPOINT',
        source: 'parameter',
        parameter: 'RedisEndpoint',
        label: 'Redis cache endpoint',
        pointer: '/outlet/endpoint',
        idPart: '',
      },
    });
    assert.deepEqual(portal?.inlet, { port: 16379, tls: false, via: 'redis', allow: 'redis-outlet' });
    assert.deepEqual(portal?.verification, { kind: 'tcp' });
    assert.equal(useCase.statusPort, 23345);
    assert.deepEqual(useCase.instanceTypes, { outlet: { default: 'm6a.large' }, inlet: { default: 'm6a.large' } });
    const outlet = stackOf(
      parsed(...head, 'outlet:', '  to: $REDIS_ENDPOINT:6379', 'inlet:', '  port: 16379'),
      'outlet',
    );
    assert.equal(
      outlet.Parameters.RedisEndpoint?.Description,
      'The Redis cache endpoint; the port is appended by the configuration.',
    );
  });

  it('names the stack parameter from any upper-case placeholder, and checks it against the stack at the field', () => {
    const manifest = parsed(...head, 'outlet:', '  to: $CACHE_PRIMARY_HOST:6379', 'inlet:', '  port: 16379');
    assert.ok('CachePrimaryHost' in stackOf(manifest, 'outlet').Parameters);
    assert.deepEqual(problems(...head, 'outlet:', '  to: $VPC_ID:6379', 'inlet:', '  port: 16379'), [
      '/outlet/endpoint: "VpcId" is already a name in the stack; choose another with parameter: such as VpcIdValue',
    ]);
    assert.deepEqual(
      problems(
        ...head,
        'outlet:',
        '  to: $REDIS:6379',
        '  endpoint:',
        '    parameter: Redis-Host',
        'inlet:',
        '  port: 1',
      ),
      [
        '/outlet/endpoint/parameter: expected a CloudFormation parameter name of letters and digits, ' +
          'such as RedisEndpoint, got "Redis-Host"',
      ],
    );
  });

  for (const [service, serviceName, privateDns, value] of [
    [
      'bedrock-runtime',
      { 'Fn::Sub': 'com.amazonaws.${AWS::Region}.bedrock-runtime' },
      true,
      'bedrock-runtime.${AWS::Region}.${AWS::URLSuffix}',
    ],
    [
      'ecr.api',
      { 'Fn::Sub': 'com.amazonaws.${AWS::Region}.ecr.api' },
      true,
      'ecr.api.${AWS::Region}.${AWS::URLSuffix}',
    ],
    ['com.amazonaws.eu-west-1.sts', 'com.amazonaws.eu-west-1.sts', true, 'sts.eu-west-1.${AWS::URLSuffix}'],
    [
      'com.amazonaws.vpce.us-east-1.vpce-svc-0123456789abcdef0',
      'com.amazonaws.vpce.us-east-1.vpce-svc-0123456789abcdef0',
      false,
      '${RuntimeEndpointDnsName}',
    ],
  ] as const) {
    it(`creates an interface endpoint for ${service} and gives the outlet its name`, () => {
      const manifest = parsed(
        ...head,
        'outlet:',
        '  to: $SERVICE_HOST:443',
        '  tls: true',
        '  endpoint:',
        '    source: vpc-endpoint',
        `    service: ${service}`,
        'inlet:',
        '  port: 8443',
      );
      const stack = stackOf(manifest, 'outlet');
      const endpoint = stack.Resources.RuntimeEndpoint;
      assert.equal(endpoint?.Type, 'AWS::EC2::VPCEndpoint');
      assert.deepEqual(endpoint?.Properties.ServiceName, serviceName);
      assert.equal(endpoint?.Properties.PrivateDnsEnabled, privateDns);
      assert.ok(stack.Resources.NodeAutoScalingGroup?.DependsOn?.includes('RuntimeEndpoint'));
      const data = userData(stack) as { 'Fn::Sub': string | [string, Record<string, unknown>] };
      const template = typeof data['Fn::Sub'] === 'string' ? data['Fn::Sub'] : data['Fn::Sub'][0];
      assert.ok(template.includes(`ENDPOINT='${value}'`), template);
      if (!privateDns) {
        assert.deepEqual((data['Fn::Sub'] as [string, Record<string, unknown>])[1], {
          RuntimeEndpointDnsName: {
            'Fn::Select': [
              '1',
              { 'Fn::Split': [':', { 'Fn::Select': ['0', { 'Fn::GetAtt': ['RuntimeEndpoint', 'DnsEntries'] }] }] },
            ],
          },
        });
      }
    });
  }

  it('refuses a malformed PrivateLink service name at the field', () => {
    for (const service of ['com.amazonaws.vpce.us-east-1.vpce-svc-12', 'com.amazonaws.Bedrock', 'Bedrock_Runtime']) {
      const found = problems(
        ...head,
        'outlet:',
        '  to: $SERVICE_HOST:443',
        '  endpoint:',
        '    source: vpc-endpoint',
        `    service: ${service}`,
        'inlet:',
        '  port: 8443',
      );
      assert.equal(found.length, 1, service);
      assert.match(found[0] ?? '', /^\/outlet\/endpoint\/service: expected an AWS service short name/);
    }
  });

  it('takes any URL path, with dots and escapes, and refuses what is not one', () => {
    for (const path of ['/index.html', '/v1/items;rev=2', '/caf%C3%A9', "/a-b_c~d!$&'()*+,=:@"]) {
      assert.deepEqual(
        problems(
          ...head,
          'outlet:',
          '  to: localhost:80',
          'inlet:',
          '  port: 8080',
          'verification:',
          '  kind: http',
          `  path: "${path.replace(/"/g, '\\"')}"`,
        ),
        [],
        path,
      );
    }
    for (const path of ['/a b', '/a?b=1', '/%zz', 'index.html', '/a#b']) {
      const found = problems(
        ...head,
        'outlet:',
        '  to: localhost:80',
        'inlet:',
        '  port: 8080',
        'verification:',
        '  kind: http',
        `  path: "${path}"`,
      );
      assert.equal(found.length, 1, path);
      assert.match(found[0] ?? '', /^\/verification\/path: expected a URL path/);
    }
  });

  it('wants {name} and {ca} in a command only where the inlet serves TLS, and the program first', () => {
    const command = (tls: string, run: string) =>
      problems(
        ...head,
        'outlet:',
        '  to: localhost:6379',
        'inlet:',
        '  port: 16379',
        tls,
        'verification:',
        '  kind: command',
        `  run: ${run}`,
      );
    assert.deepEqual(
      command('  tls: true', '[redis-cli, --tls, --cacert, "{ca}", --sni, "{name}", -h, "{host}", PING]'),
      [],
    );
    assert.deepEqual(command('  tls: false', '[redis-cli, --cacert, "{ca}", PING]'), [
      '/verification/run/2: {ca} is for an inlet that serves TLS; this one does not (inlet.tls is false)',
    ]);
    assert.deepEqual(command('  tls: false', '["-h", "{host}"]'), [
      '/verification/run/0: the first word is the program to run, such as redis-cli: letters, digits and ._+/- only',
    ]);
    assert.deepEqual(command('  tls: false', `[curl, -d, '{"a": 1}', "http://{host}:{port}/"]`), [], 'JSON is text');
  });

  it('refuses a password written into a command check, each word where it is, and takes {env:NAME}', () => {
    const command = (run: string) =>
      problems(
        ...head,
        'outlet:',
        '  to: localhost:3306',
        'inlet:',
        '  port: 13306',
        'verification:',
        '  kind: command',
        `  run: ${run}`,
      );
    const refused = (word: number, what: string) =>
      `/verification/run/${word}: ${what} would be written into tickets.sh and README.md for anyone who reads ` +
      'them; write {env:NAME} in its place and set NAME where the check runs (it is read then, never written ' +
      'into a file), or leave it out and let the client read its own variable (MYSQL_PWD for mysql and ' +
      'mariadb, REDISCLI_AUTH for redis-cli, PGPASSWORD for psql), which also keeps it out of the process list';
    // The new user's MariaDB check, as written: the password in -p.
    assert.deepEqual(command('[mariadb, -h, "{host}", -P, "{port}", -u, portal, -pS3cret, -e, "SELECT 1"]'), [
      refused(7, 'the password of mariadb -p'),
    ]);
    assert.deepEqual(
      command(
        '[env, PGPASSWORD=s3cret, curl, --password=x, --token, abc, -H, "Authorization: Bearer abc", ' +
          '"https://u:pw@{host}:{port}/"]',
      ),
      [
        refused(1, 'the value of PGPASSWORD'),
        refused(3, 'the value of password'),
        refused(5, 'the value of token'),
        refused(7, 'the value of the Authorization header'),
        refused(8, 'the password in the address'),
      ],
    );
    assert.deepEqual(command('[redis-cli, -h, "{host}", -p, "{port}", -a, s3cret, PING]'), [
      refused(6, 'the password of redis-cli -a'),
    ]);
    // What keeps the secret out is taken: placeholders, and flags whose value is not a secret.
    assert.deepEqual(
      command(
        '[mariadb, -h, "{host}", -P, "{port}", -u, portal, "-p{env:MARIADB_PWD}", "--password={env:PW}", ' +
          '-H, "Authorization: Bearer {env:TOKEN}", -e, "SELECT 1"]',
      ),
      [],
    );
    assert.deepEqual(command('[redis-cli, -h, "{host}", -p, "{port}", -a, "{env:REDIS_PW}", PING]'), []);
    assert.deepEqual(command('[pg_isready, -h, "{host}", -p, "{port}", --auth-method, md5, --auth=s3cret]'), [
      refused(7, 'the value of auth'),
    ]);
    assert.deepEqual(command('[mariadb, "{env:INLET_HOST}", "{env:lower}"]'), [
      '/verification/run/1: {env:INLET_HOST} names a variable tickets.sh sets itself; choose another name',
      '/verification/run/2: {env:lower} is not an environment variable; ' +
        'write {env:NAME} with NAME in upper case, digits and _',
    ]);
  });

  it('reports the schema and the rules in one pass: a bad instance type hides no other problem', () => {
    assert.deepEqual(
      problems(
        ...head,
        'tickets:',
        '  inlet:',
        '    attribute: redis-outlet',
        'outlet:',
        '  to: localhost:6379',
        '  instance-type:',
        '    default: huge',
        'inlet:',
        '  port: 16379',
        '  via: elsewhere',
      ),
      [
        '/tickets/inlet/attribute: the inlet ticket\'s attribute equals the outlet ticket\'s ("redis-outlet"); ' +
          'give the two tickets different attributes so that each side can tell its peer apart',
        '/outlet/instance-type/default: expected an EC2 instance type such as m6a.large, got "huge"',
        '/inlet/via: the inlet goes via "elsewhere" but the outlet registers relay "redis"; set inlet.via to "redis"',
      ],
    );
  });

  it('asks for the outlet and the inlet of a single portal, and keeps portal fields out of the node sections', () => {
    assert.deepEqual(problems(...head), [
      ': missing required key "outlet" (or list the portals under portals)',
      ': missing required key "inlet" (or list the portals under portals)',
    ]);
    assert.deepEqual(problems(...head, 'outlet:', '  tls: true', 'inlet:', '  port: 1'), [
      '/outlet: missing required key "to"',
    ]);
    assert.deepEqual(
      problems(
        ...head,
        'outlet:',
        '  to: localhost:1',
        'portals:',
        '  - name: a',
        '    outlet: { to: "localhost:2" }',
        '    inlet: { port: 10002 }',
        'verification: { kind: tcp }',
      ),
      [
        '/outlet/to: with portals, each portal gives its own outlet to; ' +
          'only instance-type and replicas belong here, so move to into the portals',
        '/verification: with portals, each portal gives its own verification; move it into the portals it checks',
      ],
    );
  });

  describe('several portals on one pair of nodes', () => {
    const portal = (name: string, to: string, port: number, ...more: string[]) => [
      `  - name: ${name}`,
      `    outlet: { to: "${to}" }`,
      `    inlet: { port: ${port} }`,
      ...more,
    ];

    it('refuse inlet ports they share, or one on a direct path, and relays they share', () => {
      assert.deepEqual(
        problems(
          'usecase: shop',
          'title: Shop',
          'portals:',
          ...portal('a', 'localhost:1', 4201),
          ...portal('b', 'localhost:2', 4201),
        ),
        [
          "/portals/0/inlet/port: the stack inlet's direct path listens on port 4201; choose another inlet port",
          "/portals/1/inlet/port: the stack inlet's direct path listens on port 4201; choose another inlet port",
        ],
      );
      assert.deepEqual(
        problems(
          'usecase: shop',
          'title: Shop',
          'portals:',
          ...portal('a', 'localhost:1', 10001),
          ...portal('b', 'localhost:2', 10001),
        ),
        ['/portals/1/inlet/port: portal "a" listens on port 10001 already; choose another'],
      );
      assert.deepEqual(
        problems(
          'usecase: shop',
          'title: Shop',
          'portals:',
          ...portal('a', 'localhost:1', 10001),
          '  - name: b',
          '    outlet: { to: "localhost:2", relay: a }',
          '    inlet: { port: 10002 }',
        ),
        ['/portals/1/outlet/relay: portals "a" and "b" would register the same relay "a"; give each its own'],
      );
    });

    it('share one endpoint between portals of one placeholder, and refuse two definitions of it', () => {
      const shared = parsed(
        'usecase: db',
        'title: DB',
        'portals:',
        ...portal('primary', '$DB_HOST:5432', 15432),
        ...portal('pooler', '$DB_HOST:6432', 16432),
      );
      const outlet = stackOf(shared, 'outlet');
      assert.deepEqual(
        Object.keys(outlet.Parameters).filter((id) => id.endsWith('Host')),
        ['DbHost'],
      );
      assert.deepEqual(
        problems(
          'usecase: db',
          'title: DB',
          'portals:',
          ...portal('primary', '$DB_HOST:5432', 15432),
          '  - name: pooler',
          '    outlet: { to: "$DB_HOST:6432", endpoint: { parameter: PoolerHost } }',
          '    inlet: { port: 16432 }',
        ),
        [
          '/portals/1/outlet/endpoint: another portal gives $DB_HOST another endpoint; portals that share a ' +
            'placeholder share its endpoint: give it once, or use another placeholder',
        ],
      );
    });

    it('replace every placeholder at boot, longest first, and open each inlet port to the clients', () => {
      const manifest = parsed(
        'usecase: db',
        'title: DB',
        'portals:',
        ...portal('primary', '$DB:5432', 15432),
        ...portal('replica', '$DB_REPLICA:5432', 15433),
      );
      const data = userData(stackOf(manifest, 'outlet')) as { 'Fn::Sub': string };
      const order = [...data['Fn::Sub'].matchAll(/^PLACEHOLDER=(\w+)$/gm)].map((match) => match[1]);
      assert.deepEqual(order, ['DB_REPLICA', 'DB'], '$DB_REPLICA before $DB, which begins it');
      const inlet = stackOf(manifest, 'inlet');
      assert.deepEqual(
        ['NodeClientIngressPrimary', 'NodeClientIngressReplica'].map((id) => inlet.Resources[id]?.Properties.FromPort),
        [15432, 15433],
      );
      assert.deepEqual(
        [inlet.Resources.NodeDirectIngress?.Properties.FromPort, inlet.Resources.NodeDirectIngress?.Properties.ToPort],
        [4200, 4201],
      );
    });
  });

  it("counts an inlet stack's node UP only while its plain tcp and http portals answer through it", () => {
    const manifest = parsed(
      'usecase: shop',
      'title: Shop',
      'portals:',
      ...portal2('cache', 16379, '    verification: { kind: tcp, send: "PING\\r\\n", expect: +PONG }'),
      ...portal2('api', 18080, '    verification: { kind: http, path: /health, status: 204 }'),
      ...portal2('db', 15432),
    );
    const data = userData(stackOf(manifest, 'inlet')) as { 'Fn::Sub': string };
    const script = data['Fn::Sub'];
    assert.ok(
      script.includes(
        `reply=$(timeout 5 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$0" && printf "$1" >&3 && head -c "$2" <&3' ` +
          `16379 'PING\\015\\012' 5 2>/dev/null) || true`,
      ),
    );
    assert.ok(
      script.includes(
        `[ "$reply" = +PONG ] || { echo "portal cache did not answer as expected on port 16379"; return 1; }`,
      ),
    );
    assert.ok(script.includes(`-X GET http://127.0.0.1:18080/health 2>/dev/null) || true`));
    assert.ok(script.includes('[ "$code" = 204 ] ||'));
    assert.ok(!script.includes('15432'), 'a connection alone proves nothing about the service: no check');
    assert.ok(
      script.includes(
        `case "$status" in 'The node is UP'*) failure=$(check_portals) || status="The node runs, but $failure" ;; esac`,
      ),
    );
    const literal = parsed(
      ...head,
      'outlet:',
      '  to: localhost:6379',
      'inlet:',
      '  port: 16379',
      'verification: { kind: tcp, expect: "${AWS::AccountId}" }',
    );
    const sub = (userData(stackOf(literal, 'inlet')) as { 'Fn::Sub': string })['Fn::Sub'];
    assert.ok(sub.includes(`[ "$reply" = '\${!AWS::AccountId}' ]`), 'Fn::Sub gives the text back, not a stack value');
    const outlet = userData(stackOf(manifest, 'outlet')) as { 'Fn::Sub': string };
    assert.ok(!outlet['Fn::Sub'].includes('check_portals'), 'the outlet has no inlet to check through');
  });
});

function portal2(name: string, port: number, ...more: string[]): string[] {
  return [
    `  - name: ${name}`,
    `    outlet: { to: "localhost:${port - 10000}" }`,
    `    inlet: { port: ${port} }`,
    ...more,
  ];
}
