/**
 * The guide's section that deploys the control plane's stack (templates/control-plane-cloudformation.md.hbs,
 * in control-plane/README.md): its parameters, commands and secret keys agree with the compiled stack.
 */
import assert from 'node:assert/strict';
import { parseCfnYaml } from '../../src/compile/stack/cfn-yaml.ts';
import { planeIds } from '../../src/compile/control-plane/stack-names.ts';
import { joinedRegExp } from '../support/joined-regexp.ts';
import { artifactText } from '../support/usecases.ts';

type Template = {
  Parameters: Record<string, { Default?: string }>;
  Resources: Record<string, { Properties: Record<string, unknown> }>;
  Outputs: Record<string, unknown>;
};

const compiled = (): Template => parseCfnYaml(artifactText('postgres', 'control-plane/stack.yaml')) as Template;

const userDataOf = (template: Template, id: string): string => {
  const data = template.Resources[id]?.Properties.LaunchTemplateData as {
    UserData: { 'Fn::Base64': { 'Fn::Sub': string | [string, unknown] } };
  };
  const sub = data.UserData['Fn::Base64']['Fn::Sub'];
  return typeof sub === 'string' ? sub : sub[0];
};

describe("the control plane guide's CloudFormation section", () => {
  const guide = artifactText('postgres', 'control-plane/README.md');
  const section = guide.slice(guide.indexOf('## AWS CloudFormation'));
  const { Parameters, Outputs } = compiled();

  it('explains every parameter of the stack, and no other', () => {
    const table = section.slice(section.indexOf('| Parameter |'));
    const rows = [...table.matchAll(/^\| `([A-Za-z]+)` \|/gm)].map((match) => match[1]);
    assert.deepEqual([...rows].sort(), Object.keys(Parameters).sort());
  });

  it('creates the stack with its parameters from a file, with CAPABILITY_IAM, then waits', () => {
    const block = /```sh\n(cat > control-plane\.parameters\.json[\s\S]*?)```/.exec(section)?.[1] ?? '';
    assert.match(
      block,
      joinedRegExp(
        /aws cloudformation create-stack --stack-name postgres-control-plane \\\n/,
        / {2}--template-body file:\/\/stack\.yaml --capabilities CAPABILITY_IAM \\\n/,
        / {2}--parameters file:\/\/control-plane\.parameters\.json\n/,
      ),
    );
    assert.match(block, /aws cloudformation wait stack-create-complete --stack-name postgres-control-plane\n/);
    const json = /<<'PARAMETERS'\n([\s\S]*?)\nPARAMETERS\n/.exec(block)?.[1] ?? '';
    const given = (JSON.parse(json) as { ParameterKey: string }[]).map((entry) => entry.ParameterKey);
    const required = Object.entries(Parameters)
      .filter(([, parameter]) => parameter.Default === undefined)
      .map(([id]) => id);
    assert.deepEqual([...given].sort(), required.sort(), 'every parameter without a default, and no other');
  });

  it('reads only outputs the stack has, the admin code from the log group, and stores the relay ticket', () => {
    const named = [...section.matchAll(/\$\(output ([A-Za-z]+)\)/g)].map((match) => match[1] as string);
    assert.deepEqual(named, ['ControllerAddress', 'LogGroupName', 'RelayTicketSecretArn']);
    for (const name of named) assert.ok(name in Outputs, name);
    assert.match(
      section,
      joinedRegExp(
        /aws logs filter-log-events --log-group-name "\$LOG_GROUP" --log-stream-name-prefix controller- \\\n/,
        / {2}--filter-pattern '"one-time admin code"'/,
      ),
    );
    assert.match(section, /^portal enroll --controller "\$CONTROLLER" --code <the admin code>$/m);
    assert.match(section, /^portal project ticket --relay-node --usage-count 2 > relay\.ticket$/m);
    assert.match(
      section,
      joinedRegExp(
        /^aws secretsmanager put-secret-value --secret-id "\$RELAY_TICKET_SECRET" /m,
        /--secret-string file:\/\/relay\.ticket$/m,
      ),
    );
    assert.match(
      section,
      /^aws cloudformation describe-stacks --stack-name "\$stack" --query 'Stacks\[0\]\.Outputs' --output table$/m,
    );
  });

  it("documents the keys of a database secret of yours as the controllers' boot script reads them", () => {
    const json = /```json\n(.*)\n```/.exec(section)?.[1] ?? '';
    const secret = JSON.parse(json) as Record<string, string>;
    assert.deepEqual(Object.keys(secret), ['url', 'password']);
    assert.match(
      secret.url ?? '',
      /^postgres:\/\/portal@[^:/]+:5432\/portal\?sslmode=verify-full&sslrootcert=\/etc\/portal\/rds-ca\.pem$/,
    );
    const boot = userDataOf(compiled(), planeIds.controllerLaunchTemplate);
    assert.ok(boot.includes('| field url;'), 'the boot script reads the key url');
    assert.ok(boot.includes('copy "$DATABASE_SECRET" password '), 'and the key password');
  });
});
