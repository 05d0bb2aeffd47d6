/** The quoting functions give every hostile value back unchanged when the target language reads it. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  markdownCode,
  markdownText,
  oneLine,
  pythonQuote,
  shellDoubleQuoted,
  shellQuote,
  shellVariableOr,
  sqlIdentifier,
  subLiteral,
} from '../../src/compile/quote.ts';

const hostile = [
  'plain',
  'a b',
  '',
  "it's",
  'say "hi"',
  '$(touch /tmp/x) `touch /tmp/y` ${HOME} $HOME',
  'back\\slash\\',
  '100% %s %(prog)x',
  'line\nbreak\r\n',
  'sep\u2028ara\u2029tors\u0085',
  'tab\tbell\u0007del\u007f',
  'Café ☕ 🚀 𝔘',
  '"""\'\'\'',
  '-n',
  'x'.repeat(10_000),
];

describe('quoting by construction (src/compile/quote.ts)', () => {
  it('shellQuote: bash reads each value back as one word, unchanged', () => {
    const words = hostile.map(shellQuote);
    const run = spawnSync('bash', ['-c', `for word in ${words.join(' ')}; do printf '%s\\0' "$word"; done`], {
      encoding: 'utf8',
    });
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(run.stdout.split('\0').slice(0, -1), hostile);
    assert.equal(shellQuote('postgres-outlet'), 'postgres-outlet', 'a plain word stays bare');
    assert.throws(() => shellQuote('a\u0000b'), /NUL/);
  });

  it('shellDoubleQuoted: bash reads each value back inside double quotes, unchanged', () => {
    const script = hostile.map((value) => `printf '%s\\0' "${shellDoubleQuoted(value)}"`).join('\n');
    const run = spawnSync('bash', ['-c', script], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(run.stdout.split('\0').slice(0, -1), hostile);
  });

  it('shellVariableOr: the variable when set, else the number; only names and numbers go in', () => {
    const script = `printf '%s' ${shellVariableOr('PORTAL_X', 16379)}`;
    const read = (env: NodeJS.ProcessEnv) => spawnSync('bash', ['-c', script], { encoding: 'utf8', env }).stdout;
    assert.equal(read({ PATH: process.env.PATH }), '16379');
    assert.equal(read({ PATH: process.env.PATH, PORTAL_X: '' }), '16379');
    assert.equal(read({ PATH: process.env.PATH, PORTAL_X: '6379 $(x)' }), '6379 $(x)');
    assert.throws(() => shellVariableOr('x; rm', 1), /not a shell variable name/);
    assert.throws(() => shellVariableOr('X', 1.5), /whole number/);
  });

  it('pythonQuote: Python reads each value back, NUL included, from one line of ASCII', () => {
    const values = [...hostile, 'nul\u0000byte'];
    const literals = values.map(pythonQuote);
    for (const literal of literals) assert.match(literal, /^"[\x20-\x7e]*"$/);
    const run = spawnSync(
      'python3',
      ['-c', `import json, sys\nsys.stdout.write(json.dumps([${literals.join(', ')}]))`],
      { encoding: 'utf8' },
    );
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), values);
  });

  it('oneLine, markdownText and markdownCode keep a value on one line', () => {
    for (const value of hostile) {
      for (const text of [oneLine(value), markdownText(value), markdownCode(value), markdownCode(value, true)]) {
        assert.ok(!/[\n\r\u2028\u2029\u0085]/.test(text), JSON.stringify(text));
      }
    }
    assert.equal(markdownCode('a `b` c'), '``a `b` c``');
    assert.equal(markdownCode('`x`'), '`` `x` ``');
    assert.equal(markdownCode('a|b', true), '`a\\|b`');
    assert.equal(markdownText('*bold* [link](x) <b>|'), '\\*bold\\* \\[link\\](x) \\<b\\>\\|');
  });

  it('subLiteral: a ${…} comes out of Fn::Sub literally', () => {
    assert.equal(subLiteral('cost ${AWS::AccountId} and ${!x}'), 'cost ${!AWS::AccountId} and ${!!x}');
  });

  it('sqlIdentifier: refuses anything but a plain identifier', () => {
    assert.equal(sqlIdentifier('portal_check'), 'portal_check');
    for (const bad of ['x; DROP TABLE y', 'X', '1x', '"x"', ''])
      assert.throws(() => sqlIdentifier(bad), /not a plain SQL identifier/);
  });
});
