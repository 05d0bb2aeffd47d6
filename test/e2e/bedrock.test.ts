import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { invokeModel, startRuntime } from '../support/model-runtime.ts';
import { portal } from '../support/processes.ts';
import { runUseCase, type UseCaseRun } from '../support/usecase-run.ts';

describe('end to end: the foundation-model runtime use case (TLS inlet and outlet, AWS SDK client)', function () {
  this.timeout(90_000);
  let run: UseCaseRun;
  let runtime: Awaited<ReturnType<typeof startRuntime>>;
  let port: number;
  let projectId: string;
  let networkDomain: string;
  let projectCa: string;

  before(async () => {
    runtime = await startRuntime();
    run = await runUseCase('bedrock');
    const trust = join(run.dir, 'runtime-ca.pem');
    await writeFile(trust, runtime.certificate);
    // As the stack does: the placeholder becomes the runtime's host name; the stand-in has its own port.
    const started = await run.startPortal(
      (to) => to.replace('$BEDROCK_RUNTIME_ENDPOINT', 'localhost').replace(/:443$/, `:${runtime.port}`),
      { NODE_EXTRA_CA_CERTS: trust },
    );
    assert.equal(started.compiledTarget, '$BEDROCK_RUNTIME_ENDPOINT:443');
    port = started.inletPort;
    projectId = (await portal(run.adminHome, ['project', 'show', '--jq', '.id'])).stdout.trim();
    networkDomain = (await portal(run.adminHome, ['project', 'show', '--jq', '.network_domain'])).stdout.trim();
    projectCa = (await portal(run.adminHome, ['project', 'ca'])).stdout;
  });

  after(async () => {
    await run?.close();
    await new Promise<void>((resolve) => runtime?.server.close(() => resolve()));
  });

  const invoke = (inputText: string, options: { name?: string; ca?: string } = { ca: projectCa }) =>
    invokeModel(inputText, {
      inletPort: port,
      name: options.name ?? `bedrock.${projectId}.${networkDomain}`,
      ...(options.ca ? { ca: options.ca } : {}),
    });

  it(
    'invokes a model through https://<label>.<project_id>.<network_domain>, ' + 'signed, with the answer intact',
    async () => {
      const response = await invoke('Explain in one sentence what an end-to-end encrypted tunnel is.');
      const answer = JSON.parse(new TextDecoder().decode(response.body)) as {
        inputTextTokenCount: number;
        results: { tokenCount: number; outputText: string; completionReason: string }[];
      };
      assert.deepEqual(answer, {
        inputTextTokenCount: 10,
        results: [
          {
            tokenCount: 256,
            outputText: 'Explain in one sentence what an end-to-end encrypted tunnel is.',
            completionReason: 'FINISH',
          },
        ],
      });
      const last = runtime.seen.at(-1);
      assert.equal(last?.modelId, 'amazon.titan-text-express-v1');
      assert.equal(
        last?.host,
        `bedrock.${projectId}.${networkDomain}:${port}`,
        'the runtime saw the name the client signed',
      );
    },
  );

  it('carries a 1 MiB body both ways exactly', async () => {
    const inputText = randomBytes(768 * 1024).toString('base64');
    assert.equal(inputText.length, 1024 * 1024);
    const response = await invoke(inputText);
    const answer = JSON.parse(new TextDecoder().decode(response.body)) as { results: { outputText: string }[] };
    assert.equal(answer.results[0]?.outputText, inputText);
  });

  it(
    'fails verification for a client that does not trust the project CA, ' + 'and for a name outside the project',
    async () => {
      await assert.rejects(invoke('untrusted', {}), /self[- ]signed|unable to (verify|get)/i);
      await assert.rejects(
        invoke('elsewhere', { name: `models.another-project.${networkDomain}`, ca: projectCa }),
        /altnames|does not match/i,
      );
    },
  );
});
