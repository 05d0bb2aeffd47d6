import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { positionOf, runPortal } from '../support/run-portal.ts';
import { editedManifest, manifestText, projectRoot } from '../support/usecases.ts';
import { joinedRegExp } from '../support/joined-regexp.ts';

describe('portal compile', () => {
  let work: string;
  let out: string;

  beforeEach(async () => {
    work = await mkdtemp(join(tmpdir(), 'portal-compile-'));
    out = join(work, 'out');
  });

  afterEach(async () => {
    await rm(work, { recursive: true, force: true });
  });

  /** Compiles `text` as bad.yaml and asserts the failure contract: exit 2, one line per problem, nothing written. */
  async function compileBad(text: string, expectedProblems: number) {
    await writeFile(join(work, 'bad.yaml'), text);
    const run = await runPortal(['compile', 'bad.yaml', '--out', out], { cwd: work });
    assert.equal(run.code, 2, run.stderr);
    assert.equal(run.stdout, '');
    const lines = run.stderr.trimEnd().split('\n');
    const count = expectedProblems === 1 ? '1 problem' : `${expectedProblems} problems`;
    assert.equal(lines.at(-1), `portal: ${count}; fix the lines above and run the command again; nothing was written`);
    assert.equal(lines.length, expectedProblems + 1, run.stderr);
    assert.ok(!run.stderr.includes('    at '), 'no stack trace');
    assert.equal(existsSync(out), false, 'nothing was written');
    return { text, lines: lines.slice(0, -1) };
  }

  const at = (text: string, needle: string) => {
    const { line, column } = positionOf(text, needle);
    return `bad.yaml:${line}:${column}`;
  };

  it('compiles the bundled use cases and says where they went', async () => {
    const run = await runPortal(
      [
        'compile',
        join(projectRoot, 'usecases/postgres.yaml'),
        join(projectRoot, 'usecases/webhook.yaml'),
        '--out',
        out,
      ],
      { cwd: work },
    );
    assert.equal(run.code, 0, run.stderr);
    assert.equal(
      run.stdout,
      'compiled postgres: 15 files in out/postgres\ncompiled webhook: 11 files in out/webhook\n',
    );
    assert.deepEqual(
      run.stderr.trimEnd().split('\n'),
      [
        'portal: warning: no --controller: the nodes must reach the controller you enroll with, which the compiler ' +
          'cannot know; tickets.sh asks for it (--controller HOST:PORT --code CODE, or --public-address HOST:PORT), ' +
          'as step 3 of each guide says',
        'portal: warning: no --install-url: the guides say how to install portal from a release, and the stacks ask ' +
          'for the address of your install.sh (InstallUrl)',
      ],
      'one line for each address the compiler could not know',
    );
    assert.deepEqual((await readdir(out)).sort(), ['postgres', 'webhook']);
    const tickets = await readFile(join(out, 'postgres/tickets.sh'), 'utf8');
    assert.match(
      tickets,
      joinedRegExp(
        /^ {2}portal project ticket --expires-in 10h --usage-count 1 /m,
        /--attribute postgres-outlet --relay postgres > outlet.ticket$/m,
      ),
    );
  });

  it('refuses a file that is not YAML, with its line and column', async () => {
    const { lines } = await compileBad('usecase: postgres\ntitle: [unclosed\n', 1);
    assert.match(lines[0] ?? '', /^bad\.yaml:\d+:\d+: \/: not valid YAML: /);
  });

  it('refuses an unknown key, pointing at the key', async () => {
    const text = editedManifest('postgres', [[['outlet', 'colour'], 'blue']]);
    const { lines } = await compileBad(text, 1);
    assert.deepEqual(lines, [
      `${at(text, 'colour:')}: /outlet/colour: unknown key "colour"; expected one of: relay, to, allow, tls, ` +
        'endpoint, instance-type, replicas',
    ]);
  });

  it('refuses a title that would be read as a stack reference or shell syntax', async () => {
    const text = editedManifest('postgres', [[['title'], 'Orders ${Database}']]);
    const { lines } = await compileBad(text, 1);
    assert.deepEqual(lines, [
      `${at(text, 'Orders')}: /title: expected one line of plain text of up to 80 characters, ` +
        `without control characters, $, quotes, backslashes, braces or angle brackets, got "Orders \${Database}"`,
    ]);
  });

  it('refuses a title whose newline would start a command in the scripts, in one located line', async () => {
    const text = editedManifest('postgres', [[['title'], 'Orders\ntouch /tmp/injected']]);
    const { lines } = await compileBad(text, 1);
    assert.deepEqual(lines, [
      `${at(text, 'Orders')}: /title: expected one line of plain text of up to 80 characters, without control ` +
        `characters, $, quotes, backslashes, braces or angle brackets, got "Orders\\ntouch /tmp/injected"`,
    ]);
  });

  it('refuses a YAML alias bomb with its location instead of expanding it', async () => {
    const levels = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];
    const bomb = levels.map(
      (name, index) =>
        `${name}: &${name} [${Array(9)
          .fill(index === 0 ? '"lol"' : `*${levels[index - 1]}`)
          .join(', ')}]`,
    );
    const { lines } = await compileBad(`usecase: postgres\n${bomb.join('\n')}\n`, 1);
    assert.deepEqual(lines, [
      'bad.yaml:3:8: /b/0: aliases expand to more than 100 copies (a YAML alias bomb?); ' +
        'write the values out instead of repeating anchors',
    ]);
  });

  it('refuses a value of the wrong type', async () => {
    const text = editedManifest('postgres', [[['tickets', 'inlet', 'usage-count'], 'once']]);
    const { lines } = await compileBad(text, 1);
    assert.deepEqual(lines, [`${at(text, 'once')}: /tickets/inlet/usage-count: expected integer, got "once"`]);
  });

  it('refuses ports out of range, in numbers and in addresses', async () => {
    const numeric = editedManifest('postgres', [[['inlet', 'port'], 70000]]);
    assert.deepEqual((await compileBad(numeric, 1)).lines, [
      `${at(numeric, '70000')}: /inlet/port: 70000 is out of range; expected a whole number from 1 to 65535`,
    ]);
    await rm(join(work, 'bad.yaml'));
    const address = editedManifest('webhook', [[['outlet', 'to'], 'localhost:99999']]);
    assert.deepEqual((await compileBad(address, 1)).lines, [
      `${at(address, 'localhost:99999')}: /outlet/to: expected host:port, but port 99999 is out of range (1 to 65535)`,
    ]);
  });

  it('refuses a warehouse endpoint that ends in /<database>', async () => {
    const text = editedManifest('warehouse', [
      [['outlet', 'endpoint', 'example'], 'wh.c8xyz.us-east-1.redshift.amazonaws.com:5439/dev'],
    ]);
    const { lines } = await compileBad(text, 1);
    assert.deepEqual(lines, [
      `${at(text, 'wh.c8xyz')}: /outlet/endpoint/example: the endpoint must not end in /<database_name>; remove "/dev"`,
    ]);
  });

  it('refuses attributes, relays and vias that disagree, listing every problem at once', async () => {
    const text = editedManifest('postgres', [
      [['outlet', 'allow'], 'someone-else'],
      [['inlet', 'via'], 'elsewhere'],
      [['tickets', 'outlet', 'relay'], 'other-relay'],
    ]);
    const { lines } = await compileBad(text, 3);
    assert.deepEqual(lines, [
      `bad.yaml:${positionOf(text, '\noutlet:\n').line + 2}:10: /outlet/relay: ` +
        'the outlet registers relay "postgres" but its ticket grants "other-relay"; use the same name in both',
      `${at(text, 'someone-else')}: /outlet/allow: the outlet allows "someone-else" but the inlet ticket's attribute ` +
        'is "postgres-inlet"; set outlet.allow to "postgres-inlet"',
      `${at(text, 'elsewhere')}: /inlet/via: the inlet goes via "elsewhere" but the outlet registers relay ` +
        '"postgres"; set inlet.via to "postgres"',
    ]);
  });

  it('refuses --tls on the ticket of an inlet that serves no TLS', async () => {
    const text = editedManifest('postgres', [[['tickets', 'inlet', 'tls'], true]]);
    const { lines } = await compileBad(text, 1);
    const { line } = positionOf(text, 'tls: true');
    assert.deepEqual(lines, [
      `bad.yaml:${line}:10: /tickets/inlet/tls: --tls is given only where the inlet serves TLS, ` +
        'and inlet.tls is false; remove tls from the ticket or set inlet.tls: true',
    ]);
  });

  it('refuses a relay on the inlet ticket and a TLS inlet without a --tls ticket', async () => {
    const text = editedManifest('bedrock', [
      [['tickets', 'inlet', 'relay'], 'bedrock'],
      [['tickets', 'inlet', 'tls'], false],
    ]);
    const { lines } = await compileBad(text, 2);
    assert.match(
      lines[0] ?? '',
      /\/inlet\/tls: an inlet that serves TLS needs a ticket issued with --tls; set tickets\.inlet\.tls: true \(or/,
    );
    assert.match(
      lines[1] ?? '',
      /\/tickets\/inlet\/relay: only outlet tickets carry a relay; remove relay from the inlet ticket$/,
    );
  });

  it('reports the schema and the cross-field rules in one pass, every problem at its line and column', async () => {
    const text = editedManifest('postgres', [
      [['outlet', 'instance-type', 'default'], 'huge'],
      [['outlet', 'allow'], 'someone-else'],
      [['verification', 'table'], 'Bad Table'],
    ]);
    const { lines } = await compileBad(text, 3);
    assert.deepEqual(lines, [
      `${at(text, 'someone-else')}: /outlet/allow: the outlet allows "someone-else" but the inlet ticket's attribute ` +
        'is "postgres-inlet"; set outlet.allow to "postgres-inlet"',
      `${at(text, 'huge')}: /outlet/instance-type/default: expected an EC2 instance type such as m6a.large, got "huge"`,
      `${at(text, 'Bad Table')}: /verification/table: expected a lower-case SQL table name such as portal_check, ` +
        'got "Bad Table"',
    ]);
  });

  it('compiles a first manifest of four lines for any TCP service, every name derived', async () => {
    await writeFile(
      join(work, 'mqtt.yaml'),
      'usecase: mqtt\ntitle: MQTT broker\noutlet:\n  to: $MQTT_BROKER:8883\ninlet:\n  port: 18883\n',
    );
    const run = await runPortal(['compile', 'mqtt.yaml', '--out', out], { cwd: work });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, 'compiled mqtt: 10 files in out/mqtt\n');
    assert.match(await readFile(join(out, 'mqtt/k8s/inlet.yaml'), 'utf8'), /^kind: Service$/m, 'k8s/ is written too');
    assert.deepEqual(JSON.parse(await readFile(join(out, 'mqtt/outlet.json'), 'utf8')), {
      'http-server-port': 23345,
      relay: 'mqtt',
      'tcp-outlet': { allow: 'mqtt-inlet', to: '$MQTT_BROKER:8883' },
    });
    const stack = await readFile(join(out, 'mqtt/outlet.stack.yaml'), 'utf8');
    assert.match(stack, /^ {2}MqttBroker:\n {4}Type: String\n/m, 'the placeholder names its stack parameter');
  });

  it('refuses the new fields at their line and column, each with what to write', async () => {
    const text = [
      'usecase: shop',
      'title: Shop',
      'portals:',
      '  - name: cache',
      '    outlet:',
      '      to: $cache_host:6379',
      '      endpoint:',
      '        source: vpc-endpoint',
      '        service: com.amazonaws.vpce.us-east-1.vpce-svc-123',
      '    inlet:',
      '      port: 16379',
      '    verification:',
      '      kind: command',
      '      run: [redis-cli, -h, "{hots}", PING]',
      '  - name: cache',
      '    outlet:',
      '      to: localhost:8080',
      '    inlet:',
      '      port: 18080',
      '    verification:',
      '      kind: http',
      '      path: /health check',
      '',
    ].join('\n');
    const { lines } = await compileBad(text, 5);
    assert.deepEqual(lines, [
      `bad.yaml:6:11: /portals/0/outlet/to: "$cache_host" is not a placeholder: write an upper-case name of ` +
        'letters and underscores, such as $REDIS_ENDPOINT',
      'bad.yaml:9:18: /portals/0/outlet/endpoint/service: expected an AWS service short name such as ' +
        'bedrock-runtime, com.amazonaws.<region>.<service>, or com.amazonaws.vpce.<region>.vpce-svc-<17 hex digits>, ' +
        'got "com.amazonaws.vpce.us-east-1.vpce-svc-123"',
      'bad.yaml:14:28: /portals/0/verification/run/2: {hots} is not a placeholder; ' +
        'use {host}, {port}, {name}, {ca} or {env:NAME}',
      'bad.yaml:15:11: /portals/1/name: portal "cache" is also the name of portals[0]; give each portal its own name',
      'bad.yaml:22:13: /portals/1/verification/path: expected a URL path: / followed by letters, digits, ' +
        `-._~!$&'()*+,;=:@/ and %XX escapes, such as /index.html, got "/health check"`,
    ]);
  });

  it('takes the installer and controller addresses as settings, and refuses ones no node could use', async () => {
    const good = await runPortal(
      [
        'compile',
        join(projectRoot, 'usecases/redis.yaml'),
        '--out',
        out,
        '--install-url',
        'https://downloads.example.net/install.sh',
        '--controller',
        'ctl.example.net:4000',
      ],
      { cwd: work },
    );
    assert.equal(good.code, 0, good.stderr);
    assert.equal(good.stderr, '', 'nothing to warn about');
    assert.match(await readFile(join(out, 'redis/tickets.sh'), 'utf8'), /^CONTROLLER=ctl\.example\.net:4000$/m);
    for (const [flag, value, message] of [
      ['--controller', '127.0.0.1:4000', /^portal: --controller 127\.0\.0\.1:4000 is a loopback address/],
      [
        '--controller',
        'ctl.example.net',
        /^portal: --controller ctl\.example\.net: expected host:port, but it has no :port/,
      ],
      [
        '--install-url',
        'http://downloads.example.net/install.sh',
        /^portal: --install-url http:.* is not an https address/,
      ],
    ] as const) {
      const bad = await runPortal(
        ['compile', join(projectRoot, 'usecases/redis.yaml'), '--out', join(work, 'x'), flag, value],
        {
          cwd: work,
        },
      );
      assert.equal(bad.code, 2, `${flag} ${value}`);
      assert.match(bad.stderr, message);
      assert.equal(existsSync(join(work, 'x')), false, 'nothing was written');
    }
  });

  it('leaves earlier output untouched when a later compile fails', async () => {
    const good = await runPortal(['compile', join(projectRoot, 'usecases/postgres.yaml'), '--out', out], { cwd: work });
    assert.equal(good.code, 0, good.stderr);
    const before = await readFile(join(out, 'postgres/outlet.json'), 'utf8');
    await writeFile(join(work, 'bad.yaml'), editedManifest('postgres', [[['outlet', 'allow'], 'nobody']]));
    const bad = await runPortal(['compile', join(projectRoot, 'usecases/webhook.yaml'), 'bad.yaml', '--out', out], {
      cwd: work,
    });
    assert.equal(bad.code, 2);
    assert.deepEqual(await readdir(out), ['postgres'], 'no webhook output and no temporary folder');
    assert.equal(await readFile(join(out, 'postgres/outlet.json'), 'utf8'), before);
  });

  it('refuses two manifests with the same use case name', async () => {
    await writeFile(join(work, 'copy.yaml'), manifestText('postgres'));
    const run = await runPortal(['compile', join(projectRoot, 'usecases/postgres.yaml'), 'copy.yaml', '--out', out], {
      cwd: work,
    });
    assert.equal(run.code, 2);
    assert.match(
      run.stderr,
      joinedRegExp(
        /^copy\.yaml:\d+:10: \/usecase: use case "postgres" is also defined by .*usecases\/postgres\.yaml; /m,
        /give each manifest its own usecase name$/m,
      ),
    );
    assert.equal(existsSync(out), false);
  });

  it('explains a missing manifest file and an unknown option with exit code 2', async () => {
    const missing = await runPortal(['compile', 'nowhere.yaml', '--out', out], { cwd: work });
    assert.equal(missing.code, 2);
    assert.equal(
      missing.stderr,
      'portal: cannot read nowhere.yaml: no such file; give the path of a use-case manifest, ' +
        'such as usecases/postgres.yaml\n',
    );
    const option = await runPortal(['compile', '--colour', 'x.yaml'], { cwd: work });
    assert.equal(option.code, 2);
    assert.match(option.stderr, /unknown option '--colour'/);
  });

  it('prints a stack trace only with NODE_DEVELOPER=true', async () => {
    const run = await runPortal(['compile', 'nowhere.yaml'], { cwd: work, env: { NODE_DEVELOPER: 'true' } });
    assert.equal(run.code, 2);
    assert.match(run.stderr, /^portal: cannot read nowhere\.yaml/);
    assert.match(run.stderr, /\n {4}at /);
  });

  it('runs from the bundle in dist/, which writes the golden set', async () => {
    assert.ok(existsSync(join(projectRoot, 'dist/portal.mjs')), 'dist/portal.mjs is built (npm run build)');
    const run = await runPortal(['compile', join(projectRoot, 'usecases/bedrock.yaml'), '--out', out], { cwd: work });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(
      await readFile(join(out, 'bedrock/outlet.stack.yaml'), 'utf8'),
      await readFile(join(projectRoot, 'out/bedrock/outlet.stack.yaml'), 'utf8'),
    );
  });
});
