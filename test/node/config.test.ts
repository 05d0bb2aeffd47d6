import assert from 'node:assert/strict';
import { parseNodeConfig } from '../../src/node/config.ts';
import { ValidationError, formatProblem } from '../../src/shared/errors.ts';

/** The problem lines parseNodeConfig refuses `text` with. */
function refused(text: string): string[] {
  try {
    parseNodeConfig('--configuration', text);
  } catch (error) {
    assert.ok(error instanceof ValidationError, String(error));
    assert.equal(error.code, 'INVALID_INPUT');
    return error.problems.map(formatProblem);
  }
  return assert.fail('accepted');
}

const outlet = { relay: 'db', 'tcp-outlet': { to: '10.0.0.5:5432', allow: 'db-inlet' } };

describe('node configuration: JSON read as JSON, YAML as YAML', () => {
  it('names a missing comma once, in JSON words, at its line and column', () => {
    assert.deepEqual(refused('{"relay": "db" "tcp-outlet": {"to": "10.0.0.5:5432", "allow": "db-inlet"}}'), [
      "--configuration:1:16: /relay: not valid JSON: expected ',' or '}' after a property value, found a string",
    ]);
    const multiline =
      '{\n  "relay": "db",\n  "tcp-outlet": {\n    "to": "10.0.0.5:5432"\n    "allow": "db-inlet"\n  }\n}\n';
    assert.deepEqual(refused(multiline), [
      "--configuration:5:5: /tcp-outlet/to: not valid JSON: expected ',' or '}' after a property value, found a string",
    ]);
    assert.deepEqual(refused('{"tcp-inlet": {"from": "127.0.0.1:1", "via": "x", "allow": "y"} "relay": "x"}'), [
      "--configuration:1:65: /tcp-inlet: not valid JSON: expected ',' or '}' after a property value, found a string",
    ]);
  });

  it('refuses a trailing comma, which YAML would accept', () => {
    assert.deepEqual(refused('{"relay": "db", "tcp-outlet": {"to": "10.0.0.5:5432", "allow": "db-inlet",}}'), [
      "--configuration:1:74: /tcp-outlet/allow: not valid JSON: a trailing comma before '}'; remove the comma",
    ]);
    assert.deepEqual(refused(`${JSON.stringify(outlet).slice(0, -1)},\n}`), [
      "--configuration:1:69: /tcp-outlet: not valid JSON: a trailing comma before '}'; remove the comma",
    ]);
  });

  it('refuses what JSON does not allow, one problem each', () => {
    const cases: [string, string][] = [
      [
        '{"relay": "db", "relay": "db"}',
        '1:17: /relay: not valid JSON: the key "relay" appears twice in one object; keep one',
      ],
      [
        '{"relay": \'db\'}',
        '1:11: /relay: not valid JSON: expected a value, found a single quote (JSON strings take double quotes)',
      ],
      [
        '{"relay": "db", tcp-outlet: {}}',
        "1:17: /relay: not valid JSON: expected a property name in double quotes after ',', found 'tcp-outlet'",
      ],
      [
        '{"relay": "d\nb"}',
        "1:13: /relay: not valid JSON: a string may not span lines: close it with '\"' on its line, " +
          'or write \\n for a line break',
      ],
      [
        '{"http-server-port": 080}',
        '1:22: /http-server-port: not valid JSON: a number may not start with 0 followed by more digits',
      ],
      [
        '{"relay": "db"} // the relay',
        "1:17: /: not valid JSON: expected the end of the text after the document, found '/'",
      ],
      [
        '{"relay": "db"',
        "1:15: /relay: not valid JSON: expected ',' or '}' after a property value, found the end of the text",
      ],
      [
        '{"relay": "\\x"}',
        '1:12: /relay: not valid JSON: \\x is not an escape in JSON; use \\", \\\\, \\/, \\b, \\f, \\n, \\r, ' +
          '\\t or \\u and four hexadecimal digits',
      ],
      ['{"tcp-inlet": [1, 2,]}', "1:20: /tcp-inlet/1: not valid JSON: a trailing comma before ']'; remove the comma"],
    ];
    for (const [text, problem] of cases) assert.deepEqual(refused(text), [`--configuration:${problem}`], text);
  });

  it('refuses nesting deeper than any configuration needs, where it starts', () => {
    const deep = `{"a": ${'['.repeat(100)}${']'.repeat(100)}}`;
    assert.deepEqual(refused(deep), [
      '--configuration:1:70: /a' +
        '/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0' +
        '/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0' +
        ': not valid JSON: nested more than 64 levels deep',
    ]);
  });

  it('locates schema problems of JSON text by line, column and pointer', () => {
    const text =
      '{\n\t"relay": "db",\n\t"tcp-outlet": {"to": "10.0.0.5:5432", "allow": "db-inlet", "tls": "yes"},\n' +
      '\t"colour": 1\n}';
    assert.deepEqual(refused(text), [
      '--configuration:4:2: /colour: unknown key "colour"; expected one of: relay, tcp-outlet, tcp-outlets, ' +
        'tcp-inlet, tcp-inlets, http-server-port, revocation-max-age, ticket',
      '--configuration:3:68: /tcp-outlet/tls: expected boolean, got "yes"',
    ]);
    assert.deepEqual(refused('{"relay": "db", "tcp-outlet": {"to": "nowhere", "allow": "db-inlet"}}'), [
      '--configuration:1:38: /tcp-outlet/to: expected host:port, but it has no :port',
    ]);
  });

  it('reads an allow expression, and refuses one that does not read with its column in the expression', () => {
    const admitted = 'team = "ops" and env in ["prod", "staging"]';
    const config = parseNodeConfig(
      '--configuration',
      JSON.stringify({ relay: 'db', 'tcp-outlet': { to: '10.0.0.5:5432', allow: admitted } }),
    );
    assert.equal(config['tcp-outlet']?.allow, admitted);
    const text = '{"tcp-inlets": {"db": {"from": "127.0.0.1:15432", "allow": "team = ops"}}}';
    assert.deepEqual(refused(text), [
      '--configuration:1:60: /tcp-inlets/db/allow: allow is neither an attribute name nor an expression: ' +
        'column 8: expected a quoted value such as "ops" (letters, digits, ".", "_", "-"), found "ops" ' +
        '(give a name such as postgres-inlet, or an expression such as team = "ops" and env = "prod")',
    ]);
    assert.deepEqual(refused(JSON.stringify({ relay: 'db', 'tcp-outlet': { to: '10.0.0.5:5432', allow: '' } })), [
      '--configuration:1:58: /tcp-outlet/allow: must not be empty',
    ]);
  });

  it('reads revocation-max-age as a duration, and locates one it cannot use', () => {
    const base = '{"relay": "db", "tcp-outlet": {"to": "10.0.0.5:5432", "allow": "db-inlet"}, ';
    assert.equal(parseNodeConfig('node.json', `${base}"revocation-max-age": "5m"}`)['revocation-max-age'], '5m');
    assert.deepEqual(refused(`${base}"revocation-max-age": "5"}`), [
      '--configuration:1:99: /revocation-max-age: revocation-max-age has no unit; give a whole number followed by ' +
        'ms, s, m, h or d (such as 5m or 1h), from 1s to 30d',
    ]);
  });

  it('reads valid JSON, with tabs, CRLF or a byte order mark, and YAML as before, flow mappings included', () => {
    const json = JSON.stringify(outlet, null, '\t').replace(/\n/g, '\r\n');
    assert.deepEqual(parseNodeConfig('node.json', json), outlet);
    assert.deepEqual(parseNodeConfig('node.json', `\uFEFF${JSON.stringify(outlet)}`), outlet);
    assert.deepEqual(
      parseNodeConfig('node.yaml', '{relay: db, tcp-outlet: {to: "10.0.0.5:5432", allow: db-inlet,}}'),
      outlet,
    );
    assert.deepEqual(
      parseNodeConfig('node.yaml', 'relay: db\ntcp-outlet:\n  to: 10.0.0.5:5432\n  allow: db-inlet\n'),
      outlet,
    );
    assert.deepEqual(refused('relay: db\ntcp-outlet: {to: "10.0.0.5:5432", allow: db-inlet, colour: red}\n'), [
      '--configuration:2:52: /tcp-outlet/colour: unknown key "colour"; expected one of: to, allow, tls',
    ]);
  });

  it('keeps a "__proto__" key as data, refused as an unknown key', () => {
    assert.deepEqual(refused('{"relay": "db", "__proto__": {"polluted": true}}'), [
      '--configuration:1:17: /__proto__: unknown key "__proto__"; expected one of: relay, tcp-outlet, tcp-outlets, ' +
        'tcp-inlet, tcp-inlets, http-server-port, revocation-max-age, ticket',
    ]);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
});
