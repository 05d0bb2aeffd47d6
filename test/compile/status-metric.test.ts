import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { parseCfnYaml } from '../../src/compile/stack/cfn-yaml.ts';
import { artifactText } from '../support/usecases.ts';

// boto3 cannot reach CloudWatch here; this stand-in records the calls the function makes.
const recordingBoto3 = `import json, os
class _Client:
    def put_metric_data(self, **kwargs):
        with open(os.environ["RECORD"], "a") as f:
            f.write(json.dumps(kwargs) + "\\n")
def client(name):
    assert name == "cloudwatch", name
    return _Client()
`;

/** The subscription filter's delivery: base64 of gzipped JSON with the matching log events. */
function subscriptionEvent(messages: string[]): string {
  const payload = {
    messageType: 'DATA_MESSAGE',
    logGroup: 'postgres-outlet-status-logs',
    logEvents: messages.map((message, id) => ({ id: String(id), timestamp: 0, message })),
  };
  return JSON.stringify({ awslogs: { data: gzipSync(JSON.stringify(payload)).toString('base64') } });
}

describe('node status metric function (subscription filter → NodeDownAlarm)', () => {
  let directory: string;
  let record: string;

  before(async () => {
    directory = await mkdtemp(join(tmpdir(), 'portal-status-metric-'));
    record = join(directory, 'calls.jsonl');
    const template = parseCfnYaml(artifactText('postgres', 'outlet.stack.yaml')) as {
      Resources: { StatusMetricFunction: { Properties: { Code: { ZipFile: string } } } };
    };
    await writeFile(join(directory, 'index.py'), template.Resources.StatusMetricFunction.Properties.Code.ZipFile);
    await mkdir(join(directory, 'boto3'));
    await writeFile(join(directory, 'boto3', '__init__.py'), recordingBoto3);
  });

  after(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  function invoke(messages: string[]) {
    const result = spawnSync(
      'python3',
      ['-c', 'import index, json, sys; print(json.dumps(index.handler(json.loads(sys.stdin.read()), None)))'],
      {
        cwd: directory,
        input: subscriptionEvent(messages),
        env: { ...process.env, PYTHONPATH: directory, STACK_NAME: 'postgres-outlet', RECORD: record },
        encoding: 'utf8',
      },
    );
    assert.equal(result.status, 0, result.stderr);
    return JSON.parse(result.stdout) as unknown;
  }

  it('publishes one NodeUp count per delivery, with the stack as dimension', async () => {
    const result = invoke([
      '2026-11-21T10:00:00Z The node is UP',
      '2026-11-21T10:01:00Z The node is DOWN',
      '2026-11-21T10:02:00Z The node is UP',
    ]);
    assert.deepEqual(result, { up: 2 });
    const calls = (await readFile(record, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as unknown);
    assert.deepEqual(calls, [
      {
        Namespace: 'Portal',
        MetricData: [
          {
            MetricName: 'NodeUp',
            Dimensions: [{ Name: 'StackName', Value: 'postgres-outlet' }],
            Value: 2,
            Unit: 'Count',
          },
        ],
      },
    ]);
  });

  it('publishes nothing when no line says the node is UP, so the alarm sees missing data', async () => {
    await rm(record, { force: true });
    assert.deepEqual(invoke(['2026-11-21T10:01:00Z The node is DOWN']), { up: 0 });
    assert.equal(await readFile(record, 'utf8').catch(() => 'none'), 'none');
  });
});
