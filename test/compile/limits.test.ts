/**
 * Resource limits a manifest or node configuration can reach: a YAML alias bomb is refused where it
 * starts (exit 2), and no compiled stack passes a CloudFormation quota; the manifest field that would
 * push it past is named before anything is written.
 */
import assert from 'node:assert/strict';
import { printCfnYaml } from '../../src/compile/stack/cfn-yaml.ts';
import { stackLimitViolations } from '../../src/compile/stack/limits.ts';
import { cfnLimits } from '../../src/compile/stack/template.ts';
import { nodeStack } from '../../src/compile/stack/stack.ts';
import { outletConfig, stackInletConfig } from '../../src/compile/node-config.ts';
import { manifestProblems } from '../../src/compile/manifest.ts';
import { parseNodeConfig } from '../../src/node/config.ts';
import { ValidationError } from '../../src/shared/errors.ts';
import { allUseCases, editedManifest, loadManifest, manifestText } from '../support/usecases.ts';
import { resolveUseCase } from '../../src/compile/model.ts';
import { loadUseCase } from './resolved-use-cases.ts';
import { joinedRegExp } from '../support/joined-regexp.ts';

/** Seven levels of nine: 9^7 = 4,782,969 strings once expanded. */
function aliasBomb(prefix: string): string {
  const levels = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];
  const lines = [`a: &a [${Array(9).fill('"lol"').join(', ')}]`];
  for (const [index, name] of levels.slice(1).entries()) {
    lines.push(`${name}: &${name} [${Array(9).fill(`*${levels[index]}`).join(', ')}]`);
  }
  return `${prefix}${lines.join('\n')}\n`;
}

describe('limits a manifest can reach', () => {
  it('refuses a YAML alias bomb in a manifest at its first alias, in milliseconds', () => {
    const started = performance.now();
    const { manifest, problems } = manifestProblems('bomb.yaml', aliasBomb('usecase: postgres\n'));
    const elapsed = performance.now() - started;
    assert.equal(manifest, undefined);
    assert.deepEqual(problems, [
      {
        file: 'bomb.yaml',
        line: 3,
        column: 8,
        pointer: '/b/0',
        message:
          'aliases expand to more than 100 copies (a YAML alias bomb?); ' +
          'write the values out instead of repeating anchors',
      },
    ]);
    assert.ok(elapsed < 2_000, `refused in ${elapsed.toFixed(0)} ms`);
  });

  it('refuses a YAML alias bomb in a node configuration the same way (exit 2, located)', () => {
    assert.throws(
      () => parseNodeConfig('node.yaml', aliasBomb('http-server-port: 23345\n')),
      (error: unknown) =>
        error instanceof ValidationError &&
        error.exitCode === 2 &&
        error.code === 'INVALID_INPUT' &&
        error.message.includes('node.yaml:3:8: /b/0: aliases expand to more than 100 copies'),
    );
  });

  it('still reads a manifest that uses a few aliases', () => {
    const machine =
      '  instance-type:\n    default: m6a.8xlarge\n    note: predictable network bandwidth of 12.5 Gbps\n';
    const text = manifestText('postgres')
      .replace(`${machine}inlet:`, `${machine.replace('instance-type:', 'instance-type: &machine')}inlet:`)
      .replace(`${machine}container:`, '  instance-type: *machine\ncontainer:');
    assert.ok(text.includes('*machine') && text.includes('&machine'));
    assert.deepEqual(manifestProblems('alias.yaml', text).problems, []);
  });

  it('refuses a 200 KB note by its length, at the note', () => {
    const text = editedManifest('postgres', [[['outlet', 'instance-type', 'note'], 'x'.repeat(200_000)]]);
    const { problems } = manifestProblems('long.yaml', text);
    assert.deepEqual(
      problems.map((problem) => [problem.pointer, problem.message]),
      [['/outlet/instance-type/note', 'is too long; expected at most 200 characters']],
    );
  });

  it(
    'refuses alternatives that would make the parameter description pass 4,000 characters, ' + 'at the instance type',
    () => {
      const alternatives = Array.from({ length: 400 }, (_, index) => `m${index}.large`);
      const text = editedManifest('postgres', [[['inlet', 'instance-type', 'alternatives'], alternatives]]);
      const { problems } = manifestProblems('many.yaml', text);
      assert.equal(problems.length, 1, JSON.stringify(problems));
      assert.equal(problems[0]?.pointer, '/inlet/instance-type');
      assert.match(
        problems[0]?.message ?? '',
        joinedRegExp(
          /^the description of parameter InstanceType of the inlet stack /,
          /would be 4\d{3} characters, over CloudFormation's limit of 4000; /,
        ),
      );
      const inletLine = text.split('\n').findIndex((line) => line.startsWith('inlet:')) + 1;
      assert.equal(
        problems[0]?.line,
        text.split('\n').findIndex((line, index) => index >= inletLine && line.startsWith('  instance-type:')) + 2,
      );
    },
  );

  it('names the field behind every limit a text can pass, even one the schema would have refused', () => {
    const manifest = structuredClone(loadManifest('postgres'));
    manifest.outlet = { ...manifest.outlet, 'instance-type': { default: 'm6a.large', note: 'x'.repeat(200_000) } };
    manifest.title = 't'.repeat(2_000);
    const found = [...new Set(stackLimitViolations(resolveUseCase(manifest)).map((violation) => violation.pointer))];
    assert.deepEqual(found.sort(), ['', '/outlet/instance-type', '/title'].sort());
  });

  for (const usecase of allUseCases) {
    it(`${usecase}: both stacks are within every limit, with room to spare`, () => {
      const manifest = loadUseCase(usecase);
      assert.deepEqual(stackLimitViolations(manifest), []);
      for (const [role, config] of [
        ['outlet', outletConfig(manifest)],
        ['inlet', stackInletConfig(manifest)],
      ] as const) {
        const template = nodeStack(manifest, role, config);
        const body = Buffer.byteLength(printCfnYaml(template));
        assert.ok(body < cfnLimits.templateBodyBytes / 2, `${role} template is ${body} bytes`);
        for (const parameter of Object.values(template.Parameters)) {
          assert.ok(parameter.Description.length < cfnLimits.parameterDescriptionCharacters);
        }
      }
    });
  }
});
