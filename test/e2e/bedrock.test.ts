import assert from 'node:assert/strict';
import { BedrockRuntimeClient, InvokeModelCommand } from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { Agent, createServer as createHttpsServer, type Server } from 'node:https';
import type { AddressInfo, LookupFunction } from 'node:net';
import { join } from 'node:path';
import { createServerCertificate } from '../../src/pki/authority.ts';
import { portal } from '../support/processes.ts';
import { runUseCase, type UseCaseRun } from '../support/usecase-run.ts';

interface InvokeBody {
  inputText: string;
  textGenerationConfig: { maxTokenCount: number; temperature: number; topP: number };
}

/**
 * The foundation-model runtime, standing in for the hosted one: HTTPS with a certificate of its own,
 * `POST /model/{modelId}/invoke` with the spec's request and response bodies, and a refusal of any
 * request that does not carry a SigV4 Authorization header.
 */
async function startRuntime(): Promise<{ server: Server; port: number; certificate: string; seen: { authorization: string; host: string; modelId: string }[] }> {
  const identity = await createServerCertificate('localhost');
  const seen: { authorization: string; host: string; modelId: string }[] = [];
  const server = createHttpsServer({ key: identity.privateKey, cert: identity.certificate }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const route = /^\/model\/([^/]+)\/invoke$/.exec(req.url ?? '');
      const authorization = String(req.headers.authorization ?? '');
      if (req.method !== 'POST' || !route) {
        res.writeHead(404).end();
        return;
      }
      if (!/^AWS4-HMAC-SHA256 Credential=AKIDPORTALTEST\/\d{8}\/us-east-1\/bedrock\/aws4_request, SignedHeaders=[a-z0-9;-]*host[a-z0-9;-]*, Signature=[0-9a-f]{64}$/.test(authorization)) {
        res.writeHead(403, { 'content-type': 'application/json' }).end('{"message":"missing or malformed SigV4 Authorization"}');
        return;
      }
      seen.push({ authorization, host: String(req.headers.host), modelId: decodeURIComponent(route[1] as string) });
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as InvokeBody;
      const answer = {
        inputTextTokenCount: body.inputText.split(/\s+/).length,
        results: [{ tokenCount: body.textGenerationConfig.maxTokenCount, outputText: body.inputText, completionReason: 'FINISH' }],
      };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, certificate: identity.certificate, seen };
}

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
    const started = await run.startPortal((to) => to.replace('$BEDROCK_RUNTIME_ENDPOINT', 'localhost').replace(/:443$/, `:${runtime.port}`), { NODE_EXTRA_CA_CERTS: trust });
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

  /** A bedrock-runtime client for https://bedrock.<project>.<domain> (the README's name), resolving to the inlet as a hosts entry would. */
  function client(options: { name?: string; ca?: string } = {}) {
    const name = options.name ?? `bedrock.${projectId}.${networkDomain}`;
    const lookup: LookupFunction = (_host, lookupOptions, callback) => {
      if (lookupOptions.all) (callback as unknown as (error: null, addresses: { address: string; family: number }[]) => void)(null, [{ address: '127.0.0.1', family: 4 }]);
      else callback(null, '127.0.0.1', 4);
    };
    const httpsAgent = new Agent({ lookup, ...(options.ca ? { ca: options.ca } : {}) });
    return new BedrockRuntimeClient({
      region: 'us-east-1',
      endpoint: `https://${name}:${port}`,
      credentials: { accessKeyId: 'AKIDPORTALTEST', secretAccessKey: 'portal-test-secret' },
      // The inlet speaks HTTP/1.1 (ALPN http/1.1); this client would otherwise choose HTTP/2.
      requestHandler: new NodeHttpHandler({ httpsAgent }),
      maxAttempts: 1,
    });
  }

  const invoke = (inputText: string, options: { name?: string; ca?: string } = { ca: projectCa }) =>
    client(options).send(
      new InvokeModelCommand({
        modelId: 'amazon.titan-text-express-v1',
        contentType: 'application/json',
        accept: 'application/json',
        // The README's body: 256 tokens at most, temperature 0.5, topP 0.9.
        body: JSON.stringify({ inputText, textGenerationConfig: { maxTokenCount: 256, temperature: 0.5, topP: 0.9 } }),
      }),
    );

  it('invokes a model through https://<label>.<project_id>.<network_domain>, signed, with the answer intact', async () => {
    const response = await invoke('Explain in one sentence what an end-to-end encrypted tunnel is.');
    const answer = JSON.parse(new TextDecoder().decode(response.body)) as { inputTextTokenCount: number; results: { tokenCount: number; outputText: string; completionReason: string }[] };
    assert.deepEqual(answer, {
      inputTextTokenCount: 10,
      results: [{ tokenCount: 256, outputText: 'Explain in one sentence what an end-to-end encrypted tunnel is.', completionReason: 'FINISH' }],
    });
    const last = runtime.seen.at(-1);
    assert.equal(last?.modelId, 'amazon.titan-text-express-v1');
    assert.equal(last?.host, `bedrock.${projectId}.${networkDomain}:${port}`, 'the runtime saw the name the client signed');
  });

  it('carries a 1 MiB body both ways exactly', async () => {
    const inputText = randomBytes(768 * 1024).toString('base64');
    assert.equal(inputText.length, 1024 * 1024);
    const response = await invoke(inputText);
    const answer = JSON.parse(new TextDecoder().decode(response.body)) as { results: { outputText: string }[] };
    assert.equal(answer.results[0]?.outputText, inputText);
  });

  it('fails verification for a client that does not trust the project CA, and for a name outside the project', async () => {
    await assert.rejects(invoke('untrusted', {}), /self[- ]signed|unable to (verify|get)/i);
    await assert.rejects(invoke('elsewhere', { name: `models.another-project.${networkDomain}`, ca: projectCa }), /altnames|does not match/i);
  });
});
